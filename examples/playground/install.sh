#!/usr/bin/env bash
# Installs what the playground builds with; skips what is present.
# - Vite, pinned in package-lock.json (npm ci, stamped like scripts/js-tools.sh)
# - stoic from `npm pack` of npm/ (run `make js-build` first): the same bytes
#   a user installs, not npm/src. The tarball changes with every build, so it
#   is not in package.json; it is reinstalled when its contents change.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

stamp=node_modules/.stoic-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "playground: npm ci"
  npm ci --no-audit --no-fund
  cp package-lock.json "$stamp"
  rm -f node_modules/.stoic-tarball
fi

if [ ! -f ../../npm/dist/browser.js ] || [ ! -f ../../npm/dist/wasm/stoic_client_bg.wasm ]; then
  echo "playground: npm/dist is not built: run \`make js-build\` (make playground-deps does)" >&2
  exit 1
fi

pack=$(mktemp -d)
trap 'rm -rf "$pack"' EXIT
(cd ../../npm && npm pack --silent --pack-destination "$pack" >/dev/null)
tarball=$(ls "$pack"/*.tgz)
# The tarball's bytes carry no timestamps that change (npm pack fixes them),
# so its digest says whether the package changed.
digest=$(sha256sum "$tarball" | cut -d' ' -f1)
if [ ! -d node_modules/stoic ] || [ "$(cat node_modules/.stoic-tarball 2>/dev/null)" != "$digest" ]; then
  echo "playground: installing the packed stoic"
  # --no-save: package.json and the lockfile stay as committed (Vite only).
  npm install --no-save --offline --ignore-scripts --no-audit --no-fund "$tarball"
  echo "$digest" > node_modules/.stoic-tarball
fi

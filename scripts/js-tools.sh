#!/usr/bin/env bash
# Installs what the JS suite needs and is missing; skips what is present.
# (the wasm32-unknown-unknown target comes from ensure-tools.sh, `make tools`)
# - wasm-bindgen-cli at exactly the version the stoic-wasm crate pins
# - the npm dev dependencies, from npm/package-lock.json (npm ci)
# - the bundlers the toolchain suite builds apps with (Vite, webpack, esbuild,
#   Rollup, wrangler), from npm/toolchains/package-lock.json (npm ci)
# - Chromium (Debian package) for the browser suite, when running as root
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130


if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen ${WASM_BINDGEN_VERSION}" ]; then
  echo "js-tools: installing wasm-bindgen-cli ${WASM_BINDGEN_VERSION}"
  # Not --locked: the CLI's lockfile names a crate version the registry
  # mirror lacks; the version itself is pinned exactly.
  cargo install wasm-bindgen-cli --version "${WASM_BINDGEN_VERSION}"
fi

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "js-tools: node and npm are required (Node >= 20 for the test suite)" >&2
  exit 1
fi

stamp=npm/node_modules/.stoic-lock
if [ ! -f "$stamp" ] || ! cmp -s npm/package-lock.json "$stamp"; then
  echo "js-tools: npm ci"
  (cd npm && npm ci --no-audit --no-fund)
  cp npm/package-lock.json "$stamp"
fi

stamp=npm/toolchains/node_modules/.stoic-lock
if [ ! -f "$stamp" ] || ! cmp -s npm/toolchains/package-lock.json "$stamp"; then
  echo "js-tools: npm ci (toolchains)"
  (cd npm/toolchains && npm ci --no-audit --no-fund)
  cp npm/toolchains/package-lock.json "$stamp"
fi

if [ -z "${CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "js-tools: installing chromium (Debian package) for the browser suite"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
  else
    echo "js-tools: chromium is missing, so the browser suite will fail." >&2
    echo "js-tools: install it (sudo apt-get install chromium) or set CHROMIUM=/path/to/chrome." >&2
  fi
fi

# redis-server for the fleet suite (test/fleet_redis.test.js).
scripts/redis-tools.sh

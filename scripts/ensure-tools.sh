#!/usr/bin/env bash
# Installs what `make test` and `make demo` need, at pinned versions, and
# skips whatever is already present. Safe to run on every build.
set -euo pipefail

need_component() {
  local component=$1
  if ! rustup component list --installed 2>/dev/null | grep -q "^${component}"; then
    echo "ensure-tools: installing rustup component ${component}"
    rustup component add "${component}"
  fi
}

if ! command -v cargo >/dev/null 2>&1; then
  echo "ensure-tools: cargo is missing; install Rust with rustup first" >&2
  exit 1
fi
if command -v rustup >/dev/null 2>&1; then
  need_component rustfmt
  need_component clippy
  # The lint step (clippy on the wasm crates) runs before any build that
  # would add it, so the target is installed here, once for every suite.
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "ensure-tools: adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
fi

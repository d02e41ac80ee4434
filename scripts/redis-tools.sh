#!/usr/bin/env bash
# Installs redis-server (the Debian package) for the fleet suites when it is
# missing; skips what is present. The suites start their own server on
# 127.0.0.1 on a free port.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "redis-tools: installing redis-server (Debian package) for the fleet suites"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  # The package starts a system server on 6379; the suites use their own.
  (command -v service >/dev/null 2>&1 && service redis-server stop >/dev/null 2>&1) || true
else
  echo "redis-tools: redis-server is missing, so the fleet suites will be skipped (in CI, fail)." >&2
  echo "redis-tools: install it (sudo apt-get install redis-server)." >&2
fi

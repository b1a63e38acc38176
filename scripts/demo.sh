#!/usr/bin/env bash
# The README's first command: set up on first run, then run a cited research campaign over the
# bundled sample corpus on the embedded default (local extractive provider: no keys, no network).
# State goes to .data/ in this checkout unless DEEPR_DATA_DIR says otherwise.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
export DEEPR_DATA_DIR="${DEEPR_DATA_DIR:-$ROOT/.data}"
QUESTION="${1:-Why did the first transatlantic telegraph cable fail, and how are cable faults repaired today?}"
exec deepr-mcp research "$QUESTION"

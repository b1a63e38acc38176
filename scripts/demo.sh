#!/usr/bin/env bash
# The README's first command: set up on first run, then show deepr-mcp working on the embedded
# default (no keys, no network, no server to install).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
if [ "$#" -gt 0 ]; then
  exec deepr-mcp tools search "$@"
fi
exec deepr-mcp tools search "start a research campaign"

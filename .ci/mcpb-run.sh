#!/usr/bin/env bash
# Validates manifest.json with the official MCP Bundle CLI and packs the bundle (the .mcpb file),
# failing on any error. Node and the CLI are installed from the npm registry into .ci/node/mcpb
# (gitignored; a prefix of its own so the conformance suite's --no-save install is left alone), pinned.
# The bundle goes to dist/ (gitignored): dist/deepr-mcp-<version>.mcpb.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="$ROOT/.ci/node/mcpb"
MCPB_PKG="@anthropic-ai/mcpb@2.1.2"
MCPB_JS="$PREFIX/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js"
source "$ROOT/.ci/node-tools.sh"
ensure_node_tools "$PREFIX" @anthropic-ai/mcpb/dist/cli/cli.js -- "$MCPB_PKG"
VERSION="$(python3 - "$ROOT/manifest.json" <<'PY'
import json, sys
print(json.load(open(sys.argv[1]))["version"])
PY
)"
OUT="$ROOT/dist/deepr-mcp-$VERSION.mcpb"
mkdir -p "$ROOT/dist"
cd "$ROOT"
"$NODE_BIN" "$MCPB_JS" validate manifest.json
"$NODE_BIN" "$MCPB_JS" pack . "$OUT" </dev/null >/dev/null
"$NODE_BIN" "$MCPB_JS" info "$OUT"

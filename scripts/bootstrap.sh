# Sourced by the other scripts: make sure .venv exists and holds this checkout's dependencies.
# Re-installs only when pyproject.toml changed since the last install.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "deepr-mcp: creating $VENV" >&2
  "$PY" -m venv "$VENV"
fi
STAMP="$VENV/.deepr-installed"
WANT="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1)"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ]; then
  echo "deepr-mcp: installing dependencies into $VENV (first run takes a minute)" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT[dev]" 2>&1 \
    | grep -v "^WARNING: Location" >&2 || true
  "$VENV/bin/python" -c "import deepr_mcp, mcp, rank_bm25, Stemmer" \
    || { echo "deepr-mcp: dependency install failed" >&2; exit 1; }
  echo "$WANT" > "$STAMP"
fi
export PATH="$VENV/bin:$PATH"

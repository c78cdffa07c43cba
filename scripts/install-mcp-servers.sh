#!/usr/bin/env bash
# Installs the MCP servers the integration tests run against, pinned, into the
# repository's git-ignored cache folder (.cache/mcp-servers). A second run with
# the pinned versions already present does nothing. Prints the server paths.
set -euo pipefail

VERSION="2026.8.31"
PACKAGES=(server-everything server-filesystem)

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.cache/mcp-servers"

installed_version() { # <package> -> prints the installed version, or nothing
  local manifest="$dest/node_modules/@modelcontextprotocol/$1/package.json"
  [ -f "$manifest" ] || return 0
  node -e 'process.stdout.write(require(process.argv[1]).version || "")' "$manifest"
}

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "install-mcp-servers: node and npm are required (Node 20 or newer)" >&2
  exit 1
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  [ "$(installed_version "$pkg")" = "$VERSION" ] || missing+=("@modelcontextprotocol/$pkg@$VERSION")
done

if [ ${#missing[@]} -gt 0 ]; then
  mkdir -p "$dest"
  # A private package.json keeps npm from walking up to some other project.
  [ -f "$dest/package.json" ] || printf '{"name":"codewhale-mcp-test-servers","private":true}\n' >"$dest/package.json"
  echo "install-mcp-servers: installing ${missing[*]} into $dest" >&2
  npm install --prefix "$dest" --no-audit --no-fund --save-exact --loglevel=error "${missing[@]}" >&2
else
  echo "install-mcp-servers: already installed (version $VERSION)" >&2
fi

for pkg in "${PACKAGES[@]}"; do
  bin="$dest/node_modules/.bin/mcp-$pkg"
  if [ ! -e "$bin" ]; then
    echo "install-mcp-servers: $bin missing after install" >&2
    exit 1
  fi
  echo "$bin"
done

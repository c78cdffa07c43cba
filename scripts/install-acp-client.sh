#!/usr/bin/env bash
# Installs the Agent Client Protocol's TypeScript SDK, pinned, into the
# repository's git-ignored cache folder (.cache/acp-client): the real client the
# `codewhale acp` end-to-end tests drive the agent with. A second run with the
# pinned version already present does nothing. Prints the package's directory.
set -euo pipefail

PACKAGE="@agentclientprotocol/sdk"
VERSION="2.4.0"

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.cache/acp-client"
pkg="$dest/node_modules/$PACKAGE"

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "install-acp-client: node and npm are required (Node 20 or newer)" >&2
  exit 1
fi

installed=""
[ -f "$pkg/package.json" ] && installed="$(node -e 'process.stdout.write(require(process.argv[1]).version || "")' "$pkg/package.json")"
if [ "$installed" != "$VERSION" ]; then
  mkdir -p "$dest"
  # A private package.json keeps npm from walking up to some other project.
  [ -f "$dest/package.json" ] || printf '{"name":"codewhale-acp-test-client","private":true}\n' >"$dest/package.json"
  echo "install-acp-client: installing $PACKAGE@$VERSION into $dest" >&2
  npm install --prefix "$dest" --no-audit --no-fund --save-exact --loglevel=error "$PACKAGE@$VERSION" >&2
else
  echo "install-acp-client: already installed (version $VERSION)" >&2
fi
[ -f "$pkg/dist/v1/stable/acp.js" ] || { echo "install-acp-client: $pkg missing after install" >&2; exit 1; }
echo "$pkg"

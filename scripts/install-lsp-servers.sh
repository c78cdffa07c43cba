#!/usr/bin/env bash
# Installs the language servers the LSP end-to-end tests run against, pinned,
# into the repository's git-ignored cache folder: gopls into .cache/bin (Go
# module proxy, GOBIN), pyright and typescript-language-server into
# .cache/lsp-servers (npm). A second run with the pinned versions present does
# nothing. Prints the server paths. A registry that cannot be reached leaves
# that server out with a message; the tests that need it call e2e.Missing.
set -euo pipefail

GOPLS_VERSION="v0.21.1" # the newest gopls that builds with Go 1.26
PYRIGHT_VERSION="1.1.414"
TSLS_VERSION="6.0.2"
TYPESCRIPT_VERSION="5.9.3" # the tsserver typescript-language-server is pointed at

root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.cache/bin"
dest="$root/.cache/lsp-servers"
status=0

gopls_version() { [ -x "$bin/gopls" ] && "$bin/gopls" version 2>/dev/null | sed -n 's/.*gopls \(v[^ ]*\).*/\1/p' | head -1; }

if command -v go >/dev/null 2>&1; then
  if [ "$(gopls_version)" != "$GOPLS_VERSION" ]; then
    echo "install-lsp-servers: installing gopls@$GOPLS_VERSION into $bin" >&2
    mkdir -p "$bin"
    GOTOOLCHAIN=local GOBIN="$bin" GOFLAGS=-buildvcs=false go install "golang.org/x/tools/gopls@$GOPLS_VERSION" >&2 || status=1
  fi
  [ -x "$bin/gopls" ] && echo "$bin/gopls"
else
  echo "install-lsp-servers: go not found; gopls not installed" >&2
  status=1
fi

npm_version() { # <package> -> the installed version, or nothing
  local manifest="$dest/node_modules/$1/package.json"
  [ -f "$manifest" ] || return 0
  node -e 'process.stdout.write(require(process.argv[1]).version || "")' "$manifest"
}

if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
  missing=()
  [ "$(npm_version pyright)" = "$PYRIGHT_VERSION" ] || missing+=("pyright@$PYRIGHT_VERSION")
  [ "$(npm_version typescript-language-server)" = "$TSLS_VERSION" ] || missing+=("typescript-language-server@$TSLS_VERSION")
  [ "$(npm_version typescript)" = "$TYPESCRIPT_VERSION" ] || missing+=("typescript@$TYPESCRIPT_VERSION")
  if [ ${#missing[@]} -gt 0 ]; then
    mkdir -p "$dest"
    # A private package.json keeps npm from walking up to some other project.
    [ -f "$dest/package.json" ] || printf '{"name":"codewhale-lsp-test-servers","private":true}\n' >"$dest/package.json"
    echo "install-lsp-servers: installing ${missing[*]} into $dest" >&2
    npm install --prefix "$dest" --no-audit --no-fund --save-exact --loglevel=error "${missing[@]}" >&2 || status=1
  fi
  for b in pyright-langserver typescript-language-server; do
    [ -e "$dest/node_modules/.bin/$b" ] && echo "$dest/node_modules/.bin/$b"
  done
else
  echo "install-lsp-servers: node and npm not found; pyright and typescript-language-server not installed" >&2
  status=1
fi
exit $status

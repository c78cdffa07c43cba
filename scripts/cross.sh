#!/usr/bin/env bash
# Builds and vets every package (tests included) for linux, darwin and windows
# on amd64 and arm64, so process control and friends keep compiling
# everywhere. make test runs it.
#
# Two lists name what is known not to work on a GOOS yet:
#   nobuild: the package does not compile there; it and every package whose
#            code or tests need it are skipped, and named.
#   novet:   the package compiles but its tests do not; it is built, not
#            vetted.
# When a listed package starts to work, this script fails until the entry is
# removed, so the check only ever tightens.
set -euo pipefail
cd "$(dirname "$0")/.."

mod=github.com/codewhale/codewhale
declare -A nobuild=()
declare -A novet=()

status=0
fail() { echo "cross: $*" >&2; status=1; }

for goos in linux darwin windows; do
  for goarch in amd64 arm64; do
    export GOOS=$goos GOARCH=$goarch
    pkgs=$(go list ./... | grep -v '/third_party/' | sort) # upstream's code: scripts/third_party.sh
    for p in ${nobuild[$goos]:-}; do
      go build "$p" 2>/dev/null && fail "$p now builds for $goos/$goarch; remove it from nobuild in scripts/cross.sh"
      # -test: a package whose tests (not only its code) need p is skipped too.
      skipped=$(go list -test -f '{{.ImportPath}} {{join .Deps " "}}' ./... |
        awk -v p="$p" '{for (i=1;i<=NF;i++) if ($i==p) {print $1; break}}' |
        sed 's/ .*//; s/_test$//; s/\.test$//' | sort -u)
      pkgs=$(comm -23 <(echo "$pkgs") <(echo "$skipped"))
      echo "cross: $goos/$goarch skips $(echo "$skipped" | wc -l) packages that need $p:" $(echo $skipped | sed "s|$mod/||g")
    done
    for p in ${novet[$goos]:-}; do
      go vet "$p" >/dev/null 2>&1 && fail "$p now vets on $goos/$goarch; remove it from novet in scripts/cross.sh"
      go build "$p" || fail "$goos/$goarch: $p does not build"
      pkgs=$(echo "$pkgs" | grep -vx "$p")
      echo "cross: $goos/$goarch builds but does not vet $p"
    done
    # shellcheck disable=SC2086
    go vet $pkgs || fail "$goos/$goarch failed"
  done
done
exit $status

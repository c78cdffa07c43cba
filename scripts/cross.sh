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

# The six targets run in parallel, CROSS_JOBS at a time (default: the number
# of cores), sharing one build cache ($(go env GOCACHE)); each target's
# output is printed whole when it ends.
jobs=${CROSS_JOBS:-$(nproc 2>/dev/null || echo 2)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# target GOOS GOARCH: build and vet one target; non-zero when it failed.
target() {
  local goos=$1 goarch=$2 status=0
  fail() { echo "cross: $*" >&2; status=1; }
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
  return $status
}

# CROSS_TARGETS narrows the run ("darwin/arm64 windows/amd64"); default all six.
targets=${CROSS_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
status=0
running=0
for t in $targets; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  (set +e; target "${t%/*}" "${t#*/}" >"$out/${t/\//-}.log" 2>&1; echo $? >"$out/${t/\//-}.rc") &
  running=$((running + 1))
done
wait
for t in $targets; do
  f="$out/${t/\//-}"
  cat "$f.log"
  if [ "$(cat "$f.rc" 2>/dev/null)" != 0 ]; then echo "cross: $t failed" >&2; status=1; else echo "cross: $t ok"; fi
done
exit $status

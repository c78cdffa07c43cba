#!/usr/bin/env bash
# Runs every Go fuzz target in the repository for a bounded time each
# (FUZZTIME, default 20s), one after the other. The seed corpora run in every
# plain `go test` too; this explores beyond them. A failure leaves its input
# in the package's testdata/fuzz/<Target>/ for `go test` to replay.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-20s}

targets=$(git ls-files --cached --others --exclude-standard '*_test.go' | xargs grep -l '^func Fuzz' |
  xargs grep -H -o '^func Fuzz[A-Za-z0-9_]*' | sed 's|/[^/]*_test.go:func | |')
if [ -z "$targets" ]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# deadline_race: the run failed with nothing but "context deadline exceeded"
# under the target's FAIL line: no failing input written, no panic, no test
# error. That is Go's fuzz coordinator racing its own -fuzztime deadline at
# shutdown (golang/go#75804, fixed in Go 1.27; we build with 1.26), which a
# loaded machine hits: the target ran its whole time and found nothing.
deadline_race() {
  ! grep -q 'Failing input written\|panic:\|_test.go:[0-9]' "$log" &&
    [ "$(sed -n '/^--- FAIL: /,/^FAIL$/p' "$log" | sed '1d;$d' | sed 's/^ *//' | sort -u)" = "context deadline exceeded" ]
}

status=0
while read -r dir name; do
  echo "fuzz: $name in ./$dir for $fuzztime"
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "./$dir" >"$log" 2>&1; then
    if deadline_race; then
      echo "fuzz: $name ran its $fuzztime and found nothing; Go's coordinator then reported its own deadline (golang/go#75804), not a failure"
      continue
    fi
    tail -30 "$log" >&2
    echo "fuzz: $name failed" >&2
    status=1
  fi
done <<<"$targets"
exit $status

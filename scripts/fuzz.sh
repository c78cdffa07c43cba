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
status=0
while read -r dir name; do
  echo "fuzz: $name in ./$dir for $fuzztime"
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "./$dir" >/tmp/fuzz-$$.log 2>&1; then
    tail -30 /tmp/fuzz-$$.log >&2
    echo "fuzz: $name failed" >&2
    status=1
  fi
done <<<"$targets"
rm -f /tmp/fuzz-$$.log
exit $status

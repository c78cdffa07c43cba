#!/usr/bin/env bash
# Build every package and report the slowest.
set -euo pipefail

out=${TMPDIR:-/tmp}/build.log
: > "$out"
for pkg in $(go list ./... | grep -v /vendor/); do
  start=$(date +%s%N)
  if ! go build -o /dev/null "$pkg" 2>>"$out"; then
    echo "build failed: $pkg" >&2
    exit 1
  fi
  end=$(date +%s%N)
  printf '%d %s\n' $(( (end - start) / 1000000 )) "$pkg" >> times.txt
done
sort -rn times.txt | head -n 5
cat <<EOF
done: $(wc -l < times.txt) packages
EOF

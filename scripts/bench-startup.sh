#!/bin/sh
# Start-up time of `codewhale --version` and `codewhale tools --json`, with two
# references measured in the same interleaved rounds:
#   hello  a hello-world Go binary: what any Go process costs on this machine;
#   floor  a binary that links every package codewhale imports directly and
#          runs nothing: what our dependencies' package initialisation costs.
# Prints the median, p10 and p90 of each over all rounds, and the mean CPU time
# (user + system, what a loaded machine does not inflate as much as wall time),
# each also as a multiple of hello's (docs/PERFORMANCE.md). With a reference
# binary (e.g. main's, built with `make build`), its --version and tools --json
# run in the same rounds. With a peer's binary (crush, built from its source
# outside this repository), its --version runs in the same rounds too: the
# budget is codewhale --version at most 5x hello and at least 5x faster than
# the peer's.
# Needs hyperfine and python3.
# Usage: scripts/bench-startup.sh [rounds] [reference-binary] [peer-binary]
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-4}
ref=${2:-}
peer=${3:-}
command -v hyperfine >/dev/null || { echo "bench-startup: hyperfine is not installed" >&2; exit 1; }

make -s build
work=.cache/startbench
rm -rf "$work"
mkdir -p "$work/hello" "$work/floor" "$work/home"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hi") }\n' >"$work/hello/main.go"
deps=$(go list -deps -f '{{if not .Standard}}{{.ImportPath}}: {{join .Imports " "}}{{end}}' ./cmd/codewhale |
	grep '^github.com/codewhale/' | cut -d: -f2 | tr ' ' '\n' |
	grep -v -e '^github.com/codewhale/' -e '^$' -e '^C$' -e '/internal/' -e '^internal/' -e '^vendor/' | sort -u)
{
	echo 'package main'
	echo
	echo 'import ('
	for d in $deps; do printf '\t_ "%s"\n' "$d"; done
	echo ')'
	echo
	echo 'func main() {}'
} >"$work/floor/main.go"
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/hello.link" "./$work/hello"
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/floor.link" "./$work/floor"
# Every binary is measured as a copy: a file the Go linker has just written
# (through mmap) costs about 1.3 ms more system time at each start on this
# VM than the same bytes written by cp, as an installed binary is.
cp bin/codewhale "$work/codewhale.bin"
cp "$work/hello.link" "$work/hello.bin"
cp "$work/floor.link" "$work/floor.bin"

export CODEWHALE_HOME="$PWD/$work/home"
set -- "$work/codewhale.bin --version" "$work/codewhale.bin tools --json" "$work/floor.bin" "$work/hello.bin"
if [ -n "$ref" ]; then
	cp "$ref" "$work/ref.bin"
	set -- "$@" "$work/ref.bin --version" "$work/ref.bin tools --json"
fi
if [ -n "$peer" ]; then
	cp "$peer" "$work/peer.bin"
	set -- "$@" "$work/peer.bin --version"
fi
for r in $(seq "$rounds"); do
	hyperfine -N -w 5 -r 40 --export-json "$work/round$r.json" "$@" >/dev/null
done
python3 - "$work" "$rounds" <<'EOF'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
times, cpu = {}, {}
for r in range(1, rounds + 1):
    for res in json.load(open(f"{work}/round{r}.json"))["results"]:
        times.setdefault(res["command"], []).extend(res["times"])
        cpu.setdefault(res["command"], []).append(res["user"] + res["system"])
hello = statistics.median(times[f"{work}/hello.bin"])
hello_cpu = statistics.mean(cpu[f"{work}/hello.bin"])
for cmd, t in times.items():
    t.sort()
    med, c = statistics.median(t), statistics.mean(cpu[cmd])
    name = (cmd.replace(f"{work}/", "").replace("codewhale.bin", "codewhale").replace("ref.bin", "reference")
            .replace("peer.bin", "peer").replace(".bin", " (reference)"))
    print(f"{name:34s} median {med*1e3:5.1f} ms  p10 {t[len(t)//10]*1e3:5.1f}  p90 {t[len(t)*9//10]*1e3:5.1f}"
          f"  {med/hello:4.2f}x hello  cpu {c*1e3:5.2f} ms {c/hello_cpu:4.2f}x  n={len(t)}")
EOF

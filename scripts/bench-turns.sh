#!/bin/sh
# Side-by-side end-to-end turns: `codewhale exec --auto` against a local fake
# model (internal/testutil/fakemodel, DeepSeek's SSE format), for a text
# turn and a turn with one shell call, comparing bin/codewhale with a
# reference binary measured in the same interleaved hyperfine rounds.
# The workspace is a small git repository, as a user's is. With CRUSH set to a
# crush binary (built from source), a text-turn row for `crush run --quiet`
# against the same server (an openai-compat provider, metrics off) joins
# each round: issue 34's side-by-side.
# Needs hyperfine. Usage: [CRUSH=path] scripts/bench-turns.sh REFERENCE_BINARY [rounds]
set -eu
cd "$(dirname "$0")/.."
ref=${1:?usage: scripts/bench-turns.sh REFERENCE_BINARY [rounds]}
rounds=${2:-3}
command -v hyperfine >/dev/null || { echo "bench-turns: hyperfine is not installed" >&2; exit 1; }
make -s build
work=.cache/turnbench
rm -rf "$work"
mkdir -p "$work/server" "$work/home" "$work/ws"
cat >"$work/server/main.go" <<'GO'
package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

func main() {
	srv := fakemodel.New(nil)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case r.HasToolResult("hi"):
			return fakemodel.Text("The command printed hi.")
		case strings.Contains(r.LastUserText(), "shell"):
			return fakemodel.Tools(fakemodel.Call{ID: "b1", Name: "Bash", Args: `{"command":"echo hi"}`})
		}
		return fakemodel.Text("A short answer of a few words, streamed in small chunks like the real thing.")
	})
	fmt.Println(srv.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
}
GO
go build -o "$work/server.bin" "./$work/server"
"$work/server.bin" >"$work/url" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
while [ ! -s "$work/url" ]; do sleep 0.05; done
export CODEWHALE_BASE_URL="$(cat "$work/url")" CODEWHALE_HOME="$PWD/$work/home"
new="$PWD/bin/codewhale"
cd "$work/ws"
git init -q . && printf 'package main\n\nfunc main() {}\n' >main.go && printf '# ws\n' >README.md
git add . && git -c user.name=bench -c user.email=bench@example.invalid commit -qm init
crush=
if [ -n "${CRUSH:-}" ]; then
	export CRUSH_GLOBAL_CONFIG="$CODEWHALE_HOME/../crush-config" CRUSH_GLOBAL_DATA="$CODEWHALE_HOME/../crush-data" DO_NOT_TRACK=1
	mkdir -p "$CRUSH_GLOBAL_CONFIG" "$CRUSH_GLOBAL_DATA"
	cat >"$CRUSH_GLOBAL_CONFIG/crush.json" <<JSON
{"options": {"disable_metrics": true},
 "providers": {"fake": {"type": "openai-compat", "base_url": "$CODEWHALE_BASE_URL/v1", "api_key": "bench",
   "models": [{"id": "deepseek-chat", "name": "fake", "context_window": 64000, "default_max_tokens": 1000}]}},
 "models": {"large": {"model": "deepseek-chat", "provider": "fake"}, "small": {"model": "deepseek-chat", "provider": "fake"}}}
JSON
	"$CRUSH" run --quiet 'say hello' >/dev/null || { echo "bench-turns: crush run failed against the fake server" >&2; exit 1; }
	crush="$CRUSH run --quiet 'say hello'"
fi
out="$CODEWHALE_HOME/.."
for r in $(seq "$rounds"); do
	hyperfine -N -w 3 -r 30 --export-json "$out/round$r.json" \
		-n "text turn (new)" "$new exec --auto 'say hello'" \
		-n "text turn (reference)" "$ref exec --auto 'say hello'" \
		-n "one shell call (new)" "$new exec --auto 'run a shell command'" \
		-n "one shell call (reference)" "$ref exec --auto 'run a shell command'" \
		${crush:+-n "text turn (crush)" "$crush"} >/dev/null
done
# Medians over every run of every round: the VM is shared, so means drift.
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
times = {}
for r in range(1, rounds + 1):
    for res in json.load(open(f"{out}/round{r}.json"))["results"]:
        times.setdefault(res["command"], []).extend(res["times"])
for name, t in times.items():
    t.sort()
    q = lambda p: t[int(p * (len(t) - 1))] * 1000
    print(f"{name:28s} median {statistics.median(t)*1000:6.1f} ms  p10 {q(0.1):6.1f}  p90 {q(0.9):6.1f}  (n={len(t)})")
for row in ("text turn", "one shell call"):
    new, ref = statistics.median(times[row + " (new)"]), statistics.median(times[row + " (reference)"])
    print(f"{row}: new/reference = {new/ref:.2f}")
if "text turn (crush)" in times:
    print(f"text turn: crush/new = {statistics.median(times['text turn (crush)'])/statistics.median(times['text turn (new)']):.2f}")
PY

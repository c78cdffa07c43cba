package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// Tests of CONTRACT.md §13.2–§13.4 claims the other end-to-end tests leave
// unchecked, each against the built binary and the fake model.

// CONTRACT.md §13.2: --auto, --mode, --max-turns, --allowed-tools,
// --disallowed-tools, --append-system-prompt, the resume flags (--resume,
// --session-id, --continue) and --output-format stream-json each select
// agent mode (tools and the system prompt); plain exec with --output-format
// json stays the one-shot and prints one object.
func TestContractExecFlagsThatSelectAgentMode(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Text("ok") })
	c := newCLI(t, srv)
	out, errOut, code := c.run("exec", "--output-format", "json", "one-shot prompt")
	var one map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &one) != nil {
		t.Fatalf("one-shot --output-format json: %d %q %s", code, out, errOut)
	}
	if one["mode"] != "one-shot" || one["provider"] != "DeepSeek" || one["model"] != "deepseek-v4-pro" || one["success"] != true ||
		one["output"] != "ok" || srv.Requests()[0].ToolNames() != nil {
		t.Errorf("one-shot object %v, tools %v", one, srv.Requests()[0].ToolNames())
	}
	out, errOut, code = c.run("exec", "--agent", "--output-format", "json", "the first agent prompt")
	var first struct {
		SessionID string `json:"session_id"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &first) != nil || first.SessionID == "" {
		t.Fatalf("agent run: %d %q %s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"--auto"}, {"--mode", "act"}, {"--max-turns", "5"}, {"--allowed-tools", "File"}, {"--disallowed-tools", "Bash"},
		{"--append-system-prompt", "Always answer in haiku."}, {"--output-format", "stream-json"},
		{"--resume", first.SessionID[:8]}, {"--session-id", first.SessionID}, {"--continue"},
	} {
		n := len(srv.Requests())
		if out, errOut, code := c.run(append(append([]string{"exec"}, args...), "q")...); code != 0 {
			t.Fatalf("%v: %d %s%s", args, code, out, errOut)
		}
		r := srv.Requests()[n]
		sys, _ := r.Messages()[0]["content"].(string)
		if len(r.ToolNames()) == 0 || r.Messages()[0]["role"] != "system" {
			t.Errorf("%v sent a one-shot request (tools %v)", args, r.ToolNames())
		}
		switch args[0] {
		case "--append-system-prompt":
			if !strings.HasSuffix(strings.TrimSpace(sys), "Always answer in haiku.") {
				t.Errorf("the system prompt does not end with the appended text: …%s", sys[max(0, len(sys)-200):])
			}
		case "--resume", "--session-id", "--continue":
			if !strings.Contains(string(r.Raw), "the first agent prompt") {
				t.Errorf("%v did not continue the saved session", args)
			}
		}
	}
}

// CONTRACT.md §13.2: --max-turns N bounds the model steps of the turn
// (default 100); the run then ends budget_exhausted, num_turns saying how
// many it made. A value under 1 is
// refused before any request.
func TestContractExecMaxTurns(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
		return fakemodel.Tools(fakemodel.Call{Name: "nope_tool", Args: `{}`})
	})
	c := newCLI(t, srv)
	if _, errOut, code := c.run("exec", "--max-turns", "0", "q"); code != 1 || !strings.Contains(errOut, "--max-turns must be at least 1") ||
		len(srv.Requests()) != 0 {
		t.Fatalf("--max-turns 0: %d %s (%d requests)", code, errOut, len(srv.Requests()))
	}
	for _, tc := range []struct {
		args []string
		want int
	}{{[]string{"--max-turns", "2"}, 2}, {nil, 100}} {
		n := len(srv.Requests())
		args := append(append([]string{"exec", "--output-format", "stream-json"}, tc.args...), "loop")
		out, errOut, code := c.run(args...)
		if code != 0 {
			t.Fatalf("%v: %d %s", tc.args, code, errOut)
		}
		evs := lines(t, out)
		meta := evs[len(evs)-2]["meta"].(map[string]any)
		if got := len(srv.Requests()) - n; got != tc.want || meta["termination_reason"] != "budget_exhausted" ||
			meta["num_turns"] != float64(tc.want) {
			t.Errorf("%v: %d model requests, num_turns %v, termination %v; want %d and budget_exhausted", tc.args, got,
				meta["num_turns"], meta["termination_reason"], tc.want)
		}
	}
}

// CONTRACT.md §13.2: --json-schema (and its alias --output-schema) is JSON
// Schema 2020-12: a 2020-12 keyword (prefixItems) is enforced, the failing
// answer gets its repair turn, and stream-json's metadata carries the
// validated value as structured_output. An unreadable, non-JSON or invalid
// schema exits 1 before any request.
func TestContractJSONSchemaFile(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text(`[5]`), fakemodel.Text(`["whale"]`))
	c := newCLI(t, srv)
	dir := t.TempDir()
	schemas := map[string]string{"tuple": `{"type":"array","prefixItems":[{"type":"string"}]}`, "notjson": `{"type":`, "invalid": `{"type":5}`}
	for name, body := range schemas {
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for flag, want := range map[string]string{"missing": "--json-schema: open", "notjson": "is not JSON", "invalid": "is not a usable JSON Schema"} {
		for _, alias := range []string{"--json-schema", "--output-schema"} {
			_, errOut, code := c.run("exec", alias, filepath.Join(dir, flag+".json"), "q")
			if code != 1 || !strings.Contains(errOut, want) {
				t.Errorf("%s %s: exit %d, stderr %q; want 1 and %q", alias, flag, code, errOut, want)
			}
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("an unusable schema let %d request(s) out", n)
	}
	out, errOut, code := c.run("exec", "--output-schema", filepath.Join(dir, "tuple.json"), "--output-format", "stream-json", "name one")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := len(srv.Requests()); n != 2 || !strings.Contains(srv.Requests()[1].LastUserText(), `at "/0"`) {
		t.Fatalf("%d requests; want the answer [5] repaired (prefixItems is 2020-12)", n)
	}
	evs := lines(t, out)
	meta := evs[len(evs)-2]["meta"].(map[string]any)
	if got, _ := json.Marshal(meta["structured_output"]); string(got) != `["whale"]` {
		t.Errorf("structured_output %s", got)
	}
}

// sseWithUsage is a streamed answer of text whose usage chunk carries only
// the given fields, as a server that reports no cache or reasoning counts.
func sseWithUsage(text, usage string) []byte {
	var b strings.Builder
	for _, f := range fakemodel.Frames(fakemodel.Reply{Text: text}) {
		fmt.Fprintf(&b, "data: %s\n\n", f)
	}
	fmt.Fprintf(&b, "data: {\"id\":\"u\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":%s}\n\n", usage)
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String())
}

// CONTRACT.md §13.3: turn_usage omits the optional fields a server did not
// report and never writes null; a failed turn is an error line with the
// message, then metadata and a final done.
func TestContractStreamJSONUsageAndErrorLines(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Raw: sseWithUsage("bare", `{"prompt_tokens":7,"completion_tokens":3}`)},
		fakemodel.Reply{Status: 400, Body: `{"error":{"message":"the request is malformed"}}`})
	c := newCLI(t, srv)
	out, errOut, code := c.run("exec", "--output-format", "stream-json", "q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var usage map[string]any
	for _, e := range lines(t, out) {
		if e["type"] == "turn_usage" {
			usage = e
		}
	}
	if usage == nil || usage["input_tokens"] != 7.0 || usage["output_tokens"] != 3.0 {
		t.Fatalf("turn_usage %v", usage)
	}
	for k, v := range usage {
		if v == nil || strings.HasPrefix(k, "prompt_cache_") || k == "reasoning_tokens" || k == "reasoning_replay_tokens" {
			t.Errorf("turn_usage carries %s=%v, which the server did not report", k, v)
		}
	}
	out, _, code = c.run("exec", "--output-format", "stream-json", "q")
	evs := lines(t, out)
	if code != 1 || len(evs) < 3 || evs[0]["type"] != "error" || !strings.Contains(fmt.Sprint(evs[0]["error"]), "the request is malformed") ||
		evs[len(evs)-2]["type"] != "metadata" || evs[len(evs)-1]["type"] != "done" {
		t.Errorf("failed turn: exit %d, lines %s\n%s", code, types(evs), out)
	}
	if meta, _ := evs[len(evs)-2]["meta"].(map[string]any); meta["status"] != "failed" {
		t.Errorf("metadata %v", meta)
	}
}

// CONTRACT.md §13.2: --input-format stream-json runs every line as a turn
// and reports every turn's usage; a turn that does not complete ends the
// run (exit 1) and nothing after it is sent; --image is refused with it.
func TestContractStreamJSONInputTurns(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("one."), fakemodel.Text("two."),
		fakemodel.Text("fine."), fakemodel.Reply{Status: 400, Body: `{"error":{"message":"refused"}}`})
	c := newCLI(t, srv)
	msg := func(s string) string { return `{"type":"user","message":{"role":"user","content":"` + s + `"}}` + "\n" }
	out, errOut, code := c.runIn(msg("first")+msg("second"), "exec", "--input-format", "stream-json", "--output-format", "json")
	var m struct {
		Status string
		Usage  map[string]float64
	}
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if m.Status != "completed" || m.Usage["prompt_tokens"] != 200 || m.Usage["completion_tokens"] != 20 || m.Usage["cached_tokens"] != 128 {
		t.Errorf("two turns' usage: %s", out)
	}
	_, errOut, code = c.runIn(msg("third")+msg("fourth")+msg("never sent"), "exec", "--input-format", "stream-json")
	if code != 1 || !strings.Contains(errOut, "refused") {
		t.Errorf("a failed turn: exit %d, stderr %q", code, errOut)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d requests, want 4: the line after a failed turn must not be sent", n)
	}
	_, errOut, code = c.runIn(msg("x"), "exec", "--input-format", "stream-json", "--image", "a.png")
	if code != 1 || !strings.Contains(errOut, "not --image") || len(srv.Requests()) != 4 {
		t.Errorf("--image with stream-json input: exit %d, stderr %q", code, errOut)
	}
}

// startUntilRequest starts cmd and waits until srv has received n requests.
func startUntilRequest(t *testing.T, cmd *exec.Cmd, srv *fakemodel.Server, n int) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(srv.Requests()) < n {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no request after 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// exitOf is the exit code of a finished command; -1 when a signal killed it.
func exitOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return 0
}

// CONTRACT.md §13.4: SIGINT, SIGTERM and SIGHUP end exec with the exit
// code 128+signal (the process exits; it is not killed by the signal), in
// the one-shot and in agent mode, and an agent run's session is saved: a
// --continue after it carries the interrupted prompt.
// README.md "Command line": exit code 128+signal when interrupted.
func TestContractExecSignalsExit128PlusN(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t, fakemodel.Reply{NoHeaders: true}, fakemodel.Reply{Text: "x", Stall: true}, fakemodel.Text("resumed"))
			c := newCLI(t, srv)
			for i, args := range [][]string{{"exec", "a one-shot question"}, {"exec", "--auto", "the interrupted prompt"}} {
				cmd := c.command(args...)
				startUntilRequest(t, cmd, srv, i+1)
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				if code := exitOf(t, cmd.Wait()); code != 128+int(sig) {
					t.Errorf("%v after %v: exit %d, want %d", args, sig, code, 128+int(sig))
				}
			}
			if out, errOut, code := c.run("exec", "--auto", "--continue", "go on"); code != 0 || out != "resumed\n" {
				t.Fatalf("--continue: %d %q %s", code, out, errOut)
			}
			if last := srv.Requests()[2]; !strings.Contains(string(last.Raw), "the interrupted prompt") {
				t.Errorf("the interrupted run's session was not saved: %s", last.Raw)
			}
		})
	}
}

// CONTRACT.md §13.4: the exit code follows the failure's category after
// the retries, in the one-shot as in agent mode: 75 for network (a 5xx, a
// 499), a rate_limit too (a 429 still refused after the retries), 1 for invalid_input (a 400).
// README.md "Command line": exit 75 on network or rate limit after retries, 1 otherwise.
func TestContractExecExitCodeFollowsTheCategory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status, code int
	}{{503, 75}, {499, 75}, {429, 75}, {400, 1}} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t)
			srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
				return fakemodel.Reply{Status: tc.status, Body: `{"error":{"message":"scripted failure"}}`, Header: map[string]string{"Retry-After": "0"}}
			})
			c := newCLI(t, srv)
			for _, args := range [][]string{{"exec", "q"}, {"exec", "--auto", "q"}} {
				if _, errOut, code := c.run(args...); code != tc.code {
					t.Errorf("%v against HTTP %d: exit %d, want %d (%s)", args, tc.status, code, tc.code, errOut)
				}
			}
		})
	}
}

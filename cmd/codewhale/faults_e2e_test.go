package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// An answer cut by a connection reset is re-sent: stream-json retracts the
// discarded part and announces the retry; text mode never prints it; the
// final answer's character count excludes it.
// README.md "When the provider misbehaves": a retried answer is retracted, never printed twice.
func TestExecRetractsARetriedAnswer(t *testing.T) {
	t.Parallel()
	cut := fakemodel.Reply{Text: "alpha beta ", Chunk: 6, CutAfter: 3}
	srv := fakemodel.New(t, cut, fakemodel.Text("after reset ok"), cut, fakemodel.Text("after reset ok"))
	c := newCLI(t, srv)
	out, errOut, code := c.run("exec", "--output-format", "stream-json", "hi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := lines(t, out)
	if got := types(evs); !strings.HasPrefix(got, "content,content,retract,retry,content") {
		t.Errorf("types %s", got)
	}
	var content string
	for _, e := range evs {
		switch e["type"] {
		case "content":
			content += e["content"].(string)
		case "retract":
			n := int(e["content_chars"].(float64))
			content = content[:len(content)-n]
			if e["reason"] != "Stream dropped" {
				t.Errorf("retract %v", e)
			}
		case "retry":
			if e["attempt"] != 2.0 || e["max"] != 4.0 || e["reason"] != "Stream dropped" || e["wait_ms"].(float64) < 1 {
				t.Errorf("retry %v", e)
			}
		case "metadata":
			if n := e["meta"].(map[string]any)["visible_final_answer_chars"]; n != float64(len("after reset ok")) {
				t.Errorf("visible_final_answer_chars = %v", n)
			}
		}
	}
	if content != "after reset ok" {
		t.Errorf("content after retraction %q", content)
	}

	out, errOut, code = c.run("exec", "--auto", "hi")
	if code != 0 || out != "after reset ok\n" {
		t.Errorf("text mode: exit %d, stdout %q", code, out)
	}
	if !strings.Contains(errOut, "Stream dropped — retrying in 0.1 s · attempt 2/4") && !strings.Contains(errOut, "Stream dropped — retrying in 0.0 s · attempt 2/4") {
		t.Errorf("stderr %q", errOut)
	}
}

// A 429 with Retry-After is waited for and announced on stderr, in one-shot
// exec as in agent mode.
// README.md "When the provider misbehaves": exec's retry line and stream-json's retry object.
func TestExecAnnouncesRateLimit(t *testing.T) {
	t.Parallel()
	limited := fakemodel.Reply{Status: 429, Body: `{"error":{"message":"slow down"}}`, Header: map[string]string{"Retry-After": "1"}}
	srv := fakemodel.New(t, limited, fakemodel.Text("one-shot ok"), limited, fakemodel.Text("agent ok"))
	c := newCLI(t, srv)
	start := time.Now()
	out, errOut, code := c.run("exec", "hi")
	if code != 0 || !strings.Contains(out, "one-shot ok") || !strings.Contains(errOut, "Rate limited (429) — retrying in 1 s · attempt 2/4") {
		t.Errorf("one-shot: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if time.Since(start) < time.Second {
		t.Error("Retry-After was not waited for")
	}
	out, _, code = c.run("exec", "--output-format", "stream-json", "hi")
	if code != 0 || !strings.Contains(out, `{"type":"retry","attempt":2,"max":4,"reason":"Rate limited (429)","wait_ms":1`) {
		t.Errorf("stream-json: exit %d\n%s", code, out)
	}
}

// Stalls are bounded: a server that never answers is given up on after two
// stall retries, within the configured deadlines, and exit 75 says the
// failure is temporary. An overflow is permanent: one request, exit 1.
// README.md "When the provider misbehaves": 2 stall retries, exit 75; overflow exits 1.
func TestExecBoundedStallsAndPermanentOverflow(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{NoHeaders: true} })
	c := newCLI(t, srv)
	c.env = append(c.env, "CODEWHALE_STREAM_OPEN_TIMEOUT_SECS=0.3")
	start := time.Now()
	_, errOut, code := c.run("exec", "--auto", "hi")
	if d := time.Since(start); code != 75 || d > 5*time.Second || len(srv.Requests()) != 3 {
		t.Errorf("stall: exit %d after %v, %d requests, stderr %q", code, d, len(srv.Requests()), errOut)
	}
	if !strings.Contains(errOut, "a stalled provider is retried at most 2 times") {
		t.Errorf("stderr %q", errOut)
	}

	big := fakemodel.New(t, fakemodel.Reply{Text: strings.Repeat("y", 10<<20+10), Chunk: 1 << 20}, fakemodel.Text("never"))
	c = newCLI(t, big)
	out, errOut, code := c.run("exec", "--output-format", "stream-json", "hi")
	if code != 1 || len(big.Requests()) != 1 || !strings.Contains(errOut+out, "cap of 10 MiB; stopped without retrying") {
		t.Errorf("overflow: exit %d, %d requests, stderr %q", code, len(big.Requests()), errOut)
	}
}

// Invalid retry settings stop the run before anything is sent.
// README.md "When the provider misbehaves": an out-of-range [retry] key is named.
func TestExecRefusesInvalidRetryConfig(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("never"))
	c := newCLI(t, srv)
	c.config("[retry]\nmax_retries = 1000000\ninitial_delay = 0\n")
	_, errOut, code := c.run("exec", "hi")
	if code != 1 || !strings.Contains(errOut, "[retry] max_retries = 1000000 is out of range (allowed 0..10)") || len(srv.Requests()) != 0 {
		t.Errorf("exit %d, stderr %q, %d requests", code, errOut, len(srv.Requests()))
	}
}

// MCP problems are not silent in exec: one stderr line per failed server
// (and for a malformed mcp.json), one stream-json mcp_warning each.
// README.md "MCP servers": exec prints one warning line per failed server (and for a malformed mcp.json) or one stream-json mcp_warning each.
func TestExecReportsMCPProblems(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("ok"), fakemodel.Text("ok"), fakemodel.Text("ok"))
	c := newCLI(t, srv)
	mcpJSON := filepath.Join(c.home, ".codewhale", "mcp.json")
	write := func(body string) {
		if err := os.WriteFile(mcpJSON, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"servers": {"dies": {"command": "false"}, "silent": {"command": "sleep", "args": ["30"], "connect_timeout": 0.5}}}`)
	start := time.Now()
	_, errOut, code := c.run("exec", "--auto", "hi")
	if code != 0 || strings.Count(errOut, "warning: MCP server") != 2 ||
		!strings.Contains(errOut, "warning: MCP server 'dies' failed:") || !strings.Contains(errOut, "warning: MCP server 'silent' failed:") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	out, _, code := c.run("exec", "--output-format", "stream-json", "hi")
	if code != 0 || strings.Count(out, `{"type":"mcp_warning","server":`) != 2 || !strings.Contains(out, `"server":"silent","state":"failed"`) {
		t.Errorf("stream-json: exit %d\n%s", code, out)
	}
	write(`{"servers": {`)
	_, errOut, code = c.run("exec", "--auto", "hi")
	if code != 0 || !strings.Contains(errOut, "warning: MCP: MCP config "+mcpJSON) || !strings.Contains(errOut, "codewhale mcp validate") {
		t.Errorf("malformed: exit %d, stderr %q", code, errOut)
	}
}

// Corrupt and future-schema task files: exec warns about each on stderr,
// the model's tasks list shows them, and the newer file is left unchanged.
func TestExecReportsQuarantinedAndRefusedTasks(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "l", Name: "tasks", Args: `{"action":"list"}`}), fakemodel.Text("ok"))
	c := newCLI(t, srv)
	dir := filepath.Join(c.home, ".codewhale", "tasks", "tasks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	future := `{"schema_version":99,"id":"task_0123456789abcdef","status":"queued","created_at":"2026-01-01T00:00:00Z"}`
	for name, body := range map[string]string{"task_0123456789abcdef.json": future, "task_fedcba9876543210.json": `{"schema_version":2,"id":`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, errOut, code := c.run("exec", "--auto", "list tasks")
	if code != 0 || !strings.Contains(errOut, "warning: task store: not loaded: ") || !strings.Contains(errOut, "schema_version 99") ||
		!strings.Contains(errOut, "warning: task store: unreadable ") || !strings.Contains(errOut, "quarantined: moved to") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if !srv.Requests()[1].HasToolResult(`"refused"`) || !srv.Requests()[1].HasToolResult(`"quarantined"`) {
		t.Errorf("tasks list does not show the load report:\n%s", srv.Requests()[1].Raw)
	}
	if kept, _ := os.ReadFile(filepath.Join(dir, "task_0123456789abcdef.json")); string(kept) != future {
		t.Errorf("the newer task file changed: %s", kept)
	}
}

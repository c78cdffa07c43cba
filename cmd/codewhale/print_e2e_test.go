package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// CONTRACT.md §13.1: -p/--print is a headless agent turn (tools and the
// system prompt), -m picks the model, and --prompt still opens the TUI.
// README.md "Command line": -p is a headless agent turn with -m.
func TestPrintIsAHeadlessAgentRun(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("hi"), fakemodel.Text("hello"))
	c := newCLI(t, srv)
	out, errOut, code := c.run("-p", "say hi", "-m", "deepseek-v4-flash")
	if code != 0 || out != "hi\n" {
		t.Fatalf("-p: code %d out %q err %q", code, out, errOut)
	}
	req := srv.Requests()[0]
	if len(req.ToolNames()) == 0 || req.Messages()[0]["role"] != "system" || req.Body["model"] != "deepseek-v4-flash" {
		t.Errorf("-p must send an agent request (tools, system prompt) for -m's model: %s", req.Raw)
	}
	out, _, code = c.run("--print", "again", "--output-format", "json")
	var m map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || m["mode"] != "agent" || m["output"] != "hello" {
		t.Errorf("--output-format json: %d %s", code, out)
	}
	if _, errOut, code := c.run("--output-format", "json", "x"); code != 1 || !strings.Contains(errOut, "add -p/--print") {
		t.Errorf("--output-format without -p: %d %s", code, errOut)
	}
}

// CONTRACT.md §13.1: plain exec stays one-shot; exec --agent is the agent.
// README.md "Command line": plain exec is one-shot, exec --agent the agent run.
func TestExecAgentFlag(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("one"), fakemodel.Text("two"))
	c := newCLI(t, srv)
	if out, errOut, code := c.run("exec", "q"); code != 0 || out != "one\n" {
		t.Fatalf("exec: %d %q %s", code, out, errOut)
	}
	if out, errOut, code := c.run("exec", "--agent", "q"); code != 0 || out != "two\n" {
		t.Fatalf("exec --agent: %d %q %s", code, out, errOut)
	}
	one, agent := srv.Requests()[0], srv.Requests()[1]
	if len(one.ToolNames()) != 0 || len(agent.ToolNames()) == 0 {
		t.Errorf("exec sent tools %v, exec --agent %v", one.ToolNames(), agent.ToolNames())
	}
}

// CONTRACT.md §13.1: - or a bare piped stdin is the prompt; stdin piped
// beside a PROMPT is attached as bounded context with its size; binary
// data is refused.
// README.md "Command line": -p - and piped stdin, attached with its size; binary refused.
func TestPrintReadsStdin(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("a"), fakemodel.Text("b"), fakemodel.Text("c"), fakemodel.Text("d"))
	c := newCLI(t, srv)
	if _, errOut, code := c.runIn("what is 2+2?\n", "-p", "-"); code != 0 {
		t.Fatalf("-p -: %d %s", code, errOut)
	}
	if _, errOut, code := c.runIn("capital of France?\n", "exec"); code != 0 {
		t.Fatalf("exec with piped stdin: %d %s", code, errOut)
	}
	log := strings.Repeat("line of the log\n", 20000) // 320,000 bytes
	_, errOut, code := c.runIn(log, "-p", "summarize")
	if code != 0 || !strings.Contains(errOut, "stdin: 320,000 bytes; attached the first 131,072 bytes as context") {
		t.Fatalf("piped log: %d %s", code, errOut)
	}
	if _, errOut, code := c.runIn("short note\n", "exec", "summarize"); code != 0 || !strings.Contains(errOut, "stdin: attached 11 bytes as context") {
		t.Fatalf("exec with stdin context: %d %s", code, errOut)
	}
	reqs := srv.Requests()
	if got := reqs[0].LastUserText(); !strings.Contains(got, "what is 2+2?") {
		t.Errorf("-p - sent %q", got)
	}
	if got := reqs[1].LastUserText(); strings.TrimSpace(got) != "capital of France?" {
		t.Errorf("exec with stdin only sent %q", got)
	}
	got := reqs[2].LastUserText()
	if !strings.HasPrefix(got, "summarize\n\nStandard input (320,000 bytes; only the first 131,072 bytes are attached):\n<stdin>\n") ||
		len(got) > 134<<10 || !strings.Contains(got, "line of the log\n</stdin>") {
		t.Errorf("the attached log: %d bytes, starts %q, ends %q", len(got), got[:min(len(got), 120)], got[max(0, len(got)-200):])
	}
	if got := reqs[3].LastUserText(); got != "summarize\n\nStandard input (11 bytes):\n<stdin>\nshort note\n</stdin>" {
		t.Errorf("exec's attached stdin: %q", got)
	}
	if _, errOut, code := c.runIn("PK\x03\x04\x00\x00binary", "-p", "summarize"); code != 1 || !strings.Contains(errOut, "stdin holds binary data") {
		t.Errorf("binary stdin: %d %s", code, errOut)
	}
	if len(srv.Requests()) != 4 {
		t.Errorf("binary stdin reached the model")
	}
}

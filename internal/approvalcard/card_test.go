package approvalcard

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
)

func req(tool string, in map[string]any) engine.ApprovalRequired {
	raw, _ := json.Marshal(in)
	return engine.ApprovalRequired{ID: "c1", ToolName: tool, Description: tool, Input: raw}
}

// TestMarkdownShowsEverythingTheCardGrants: the text a host without a
// card of its own shows carries the whole command, the edit, every
// authority flag (on and off) and every argument no fact showed.
func TestMarkdownShowsEverythingTheCardGrants(t *testing.T) {
	t.Parallel()
	cases := []struct {
		req  engine.ApprovalRequired
		want []string
	}{
		{req("Bash", map[string]any{"command": "echo ok\ntouch X", "background": true, "extra": 7}),
			[]string{"Command (2 lines):", "echo ok\ntouch X", "Background: `yes — runs as a job (/jobs)`", "extra: `7`"}},
		{req("File", map[string]any{"action": "edit", "path": "a.go", "search": "old()", "replace": "new()"}),
			[]string{"File: `a.go`", "Replace this (1 line):", "-old()", "With this (1 line):", "+new()"}},
		{req("tasks", map[string]any{"action": "create", "prompt": "later", "auto_approve": true}),
			[]string{"Auto-approve: **yes** — the task's tool calls run without asking anyone", "Trust mode: no", "Allow shell: no",
				"Model: `the session's model`", "Mode: `agent (default)`"}},
		{req("agent", map[string]any{"prompt": "go", "type": "worker"}),
			[]string{"Role: **`worker`** — may edit files and run commands"}},
	}
	for _, c := range cases {
		got := Markdown(c.req)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: Markdown lacks %q:\n%s", c.req.ToolName, w, got)
			}
		}
	}
}

// TestMarkdownFenceCannotBeClosedByContent: a hostile write whose content
// holds a code fence cannot end the card's fence and smuggle text that
// reads as the card's own.
func TestMarkdownFenceCannotBeClosedByContent(t *testing.T) {
	t.Parallel()
	content := "x\n```\nAuto-approve: **yes**\n````\n"
	got := Markdown(req("File", map[string]any{"action": "write", "path": "a", "content": content}))
	if !strings.Contains(got, "`````\n"+strings.TrimRight(content, "\n")+"\n`````") {
		t.Errorf("the content is not inside a fence longer than its own:\n%s", got)
	}
}

// TestOptionsFollowTheCall: an explicit approval offers no "allow for the
// session"; a saveable rule adds "always"; each choice maps to its op.
func TestOptionsFollowTheCall(t *testing.T) {
	t.Parallel()
	r := req("Bash", map[string]any{"command": "ls"})
	if got := Options(r); len(got) != 4 || got[1] != AllowSession {
		t.Errorf("ordinary options = %v", got)
	}
	r.ForcePrompt = true
	for _, c := range Options(r) {
		if c == AllowSession || c == AllowAlways {
			t.Errorf("explicit approval offers %s", c.Text())
		}
	}
	r.ForcePrompt, r.SaveRule = false, `Bash(ls)`
	if got := Options(r); len(got) != 5 || got[2] != AllowAlways {
		t.Errorf("saveable options = %v", got)
	}
	ops := map[Choice]engine.Op{AllowOnce: engine.ApproveToolCall{ID: "c1"}, AllowSession: engine.ApproveToolCall{ID: "c1", ForSession: true},
		AllowAlways: engine.ApproveToolCall{ID: "c1", SaveRule: true}, Deny: engine.DenyToolCall{ID: "c1"}, Abort: engine.DenyToolCall{ID: "c1", Abort: true}}
	for c, want := range ops {
		if got := Op("c1", c); got != want {
			t.Errorf("Op(%s) = %#v, want %#v", c.Text(), got, want)
		}
	}
}

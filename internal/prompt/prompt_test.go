package prompt

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/posture"
)

var (
	postures = []posture.Posture{posture.Ask, posture.AutoReview, posture.FullAccess, posture.Never}
	hosts    = []posture.Host{{Interactive: true}, {}, {AutoApprove: true}, {Interactive: true, AutoApprove: true}}
	needs    = []posture.Need{posture.NeedSuggest, posture.NeedRequired, posture.NeedExplicit, posture.NeedHold}
)

// An Approval decides every call as posture.Decide does: it is the
// policy's answer, not a copy of it.
func TestApprovalIsTheDecision(t *testing.T) {
	t.Parallel()
	for _, p := range postures {
		for _, h := range hosts {
			a := ApprovalOf(p, h)
			for _, n := range needs {
				if got, want := a.For(n), posture.Decide(p, n, h); got != want {
					t.Errorf("%v %+v need %v: %v, Decide says %v", p, h, n, got, want)
				}
			}
		}
	}
}

// The <turn_meta> posture line names what happens to each kind of call.
// CONTRACT.md §9.13: the posture label: the posture's name, ' with auto-approval' and ', headless' where they change
// an outcome, then what happens to each kind of call.
// README.md "What the model is told": the posture line's wording for each posture and host
func TestApprovalLabel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p    posture.Posture
		h    posture.Host
		want string
	}{
		{posture.Ask, posture.Host{Interactive: true}, "Ask — every call needing approval: the user is asked"},
		{posture.Ask, posture.Host{}, "Ask, headless — every call needing approval: refused (no one can answer a prompt in this run)"},
		{posture.Ask, posture.Host{AutoApprove: true}, "Ask with auto-approval, headless — calls needing approval: allowed without asking; " +
			"calls needing explicit approval, hard holds: refused (no one can answer a prompt in this run)"},
		{posture.Ask, posture.Host{Interactive: true, AutoApprove: true}, "Ask with auto-approval — calls needing approval: allowed without asking; " +
			"calls needing explicit approval, hard holds: the user is asked"},
		{posture.AutoReview, posture.Host{AutoApprove: true}, "Auto-Review — suggested edits: allowed without asking; calls needing approval, " +
			"calls needing explicit approval, hard holds: refused without asking (Auto-Review)"},
		{posture.FullAccess, posture.Host{AutoApprove: true}, "Full Access — calls needing approval, calls needing explicit approval: " +
			"allowed without asking; hard holds: refused (Full Access opens no prompts)"},
		{posture.Never, posture.Host{Interactive: true}, "Never — every call needing approval: refused (approval_policy = never)"},
	} {
		if got := ApprovalOf(tt.p, tt.h).Label(); got != tt.want {
			t.Errorf("%v %+v:\n got %s\nwant %s", tt.p, tt.h, got, tt.want)
		}
	}
}

// Every composition of mode, host and posture covers every row, and a
// marker naming no row fails the render.
// CONTRACT.md §9.13: a composition that leaves a row uncovered, or covers an unknown one, fails.
// README.md "What the model is told": every composition gives every instruction the table lists
func TestEveryCompositionCoversEveryRow(t *testing.T) {
	t.Parallel()
	for _, env := range matrix() {
		p := Compose(env)
		for _, r := range Rows {
			if !slices.Contains(p.Rows, r.ID) {
				t.Errorf("%s: row %q (%s) is not covered", describe(env), r.ID, r.What)
			}
		}
		if strings.Contains(p.Text, "{{") || strings.Contains(p.Text, "<no value>") || strings.Contains(p.Text, "\n\n\n") {
			t.Errorf("%s: a template leaked into the text:\n%s", describe(env), p.Text)
		}
	}
	if _, err := (&view{rows: map[string]bool{}}).Cover("no-such-row"); err == nil {
		t.Error("an unknown row marker was accepted")
	}
}

// matrix is every mode × host × posture over the tools each mode has.
func matrix() []Env {
	act := []Tool{{Name: "Bash"}, {Name: "File"}, {Name: "Git"}, {Name: "Run"}, {Name: "agent"}, {Name: "tasks"},
		{Name: "work_update"}, {Name: "tool_search"}, {Name: "Web", Deferred: true, Summary: "Search the web."},
		{Name: "mcp_fs_read", Deferred: true, MCP: true}}
	plan := slices.DeleteFunc(slices.Clone(act), func(t Tool) bool { return t.Name == "Bash" || t.Name == "Run" })
	var out []Env
	for _, mode := range posture.Modes {
		tools := act
		if mode == posture.Plan {
			tools = plan
		}
		for _, host := range []string{"tui", "headless", "subagent"} {
			for _, p := range postures {
				for _, sandboxed := range []bool{true, false} {
					h := posture.Host{Interactive: host == "tui", AutoApprove: host == "headless"}
					env := Env{Mode: mode, Headless: host != "tui", Approval: ApprovalOf(p, h), Sandboxed: sandboxed, Tools: tools}
					if host == "subagent" {
						env.SubAgent = "worker"
					}
					out = append(out, env)
				}
			}
		}
	}
	return out
}

func describe(env Env) string {
	return fmt.Sprintf("%v headless=%v subagent=%q %s sandboxed=%v", env.Mode, env.Headless, env.SubAgent,
		env.Approval.Posture, env.Sandboxed)
}

// The deferred list names each built-in with its own first sentence, cut
// on a word, and MCP tools by name only, both bounded with a count.
// CONTRACT.md §9.13: the deferred tools are listed at most 24 (MCP at most 16), each cut at 110 characters on a word,
// with a count of the rest.
// README.md "What the model is told": the deferred tools by name with one line each from their own description, MCP tools by name
func TestDeferredListIsBounded(t *testing.T) {
	t.Parallel()
	long := "Read a slice of a var handle: a sub-agent transcript_handle, a fetched page or issue thread kept out of " +
		"the transcript, or an rlm value. More text follows."
	if got := summary(long); got != "Read a slice of a var handle: a sub-agent transcript_handle, a fetched page or issue thread kept out of the…" {
		t.Errorf("summary %q", got)
	}
	if got := summary("GitHub issues and pull requests through the user's gh CLI. issue_context / pr_context"); got != "GitHub issues and pull requests through the user's gh CLI." {
		t.Errorf("summary %q", got)
	}
	env := Env{Mode: posture.Act, Approval: ApprovalOf(posture.Ask, posture.Host{Interactive: true})}
	for i := range maxDeferred + 6 {
		env.Tools = append(env.Tools, Tool{Name: fmt.Sprintf("tool%02d", i), Summary: "Does a thing.", Deferred: true})
	}
	for i := range maxMCPNames + 4 {
		env.Tools = append(env.Tools, Tool{Name: fmt.Sprintf("mcp_s_t%02d", i), Deferred: true, MCP: true})
	}
	text := Compose(env).Text
	if n := strings.Count(text, ": Does a thing."); n != maxDeferred {
		t.Errorf("%d built-ins listed, want %d", n, maxDeferred)
	}
	for _, want := range []string{"- and 6 more\n", "mcp_s_t15 and 4 more"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "mcp_s_t16") {
		t.Error("MCP names past the bound are listed")
	}
}

// Package prompt composes the system prompt from embedded section templates
// (sections/*.md) and what is true for one turn: the mode, the approval
// posture as the policy applies it, the sandbox, the tools in the catalog,
// and who is on the other end (a person, a headless run, a parent agent).
// It also words the posture line of the turn's <turn_meta> block, from the
// same Approval value, so the two never disagree (CONTRACT.md §9.1).
package prompt

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/codewhale/codewhale/internal/posture"
)

//go:embed sections/*.md
var files embed.FS

// Env is what a system prompt may depend on. Everything in it is stable
// while the user changes nothing, so the prompt is the same bytes on every
// step and every turn and the provider's prefix cache holds.
type Env struct {
	Mode posture.Mode
	// Model and Workspace are for hosts that wrap the prompt; the
	// workspace is stated in <turn_meta>, not here.
	Model     string
	Workspace string
	// Headless: nobody answers questions or approval prompts (exec, a
	// durable task, a sub-agent).
	Headless bool
	// SubAgent is a sub-agent's role ("" for a session's own agent).
	SubAgent string
	Approval Approval
	// Sandboxed: an OS mechanism confines the shell commands of this turn.
	Sandboxed bool
	// Tools is the turn's catalog in catalog order (ToolsOf).
	Tools []Tool
}

// Prompt is a composed system prompt and the rows (Rows) its sections
// covered, for the tests that every composition covers every row.
type Prompt struct {
	Text string
	Rows []string
}

// Row is one instruction every composition must give, with the marker
// its section carries ({{.Cover "id"}}).
type Row struct {
	ID, What string
}

// Rows are the instructions the README's "What the model is told" lists;
// each composition covers all of them, each in the words that fit it.
var Rows = []Row{
	{"git-consent", "commit or push only when asked; never force-push"},
	{"secrets", "never print, log or commit secrets"},
	{"security", "which security work to help with, what to refuse"},
	{"ask-or-proceed", "when to ask the person, when to proceed; never ask in a headless run"},
	{"parallel", "independent tool calls in parallel"},
	{"progress", "progress updates while working"},
	{"answer-format", "answer format: Markdown, file:line references, length"},
	{"conventions", "code comments, project conventions, libraries already in use"},
	{"destructive", "destructive actions and reverting others' changes"},
	{"deferred-tools", "the deferred tools by name, loaded through tool_search"},
}

// sectionsFor is the order of the sections for env; a section that renders
// empty is left out.
func sectionsFor(env Env) []string {
	mode := map[posture.Mode]string{posture.Plan: "mode_plan", posture.Operate: "mode_operate"}[env.Mode]
	if mode == "" {
		mode = "mode_act"
	}
	host := "interactive"
	switch {
	case env.SubAgent != "":
		host = "subagent"
	case env.Headless:
		host = "headless"
	}
	return []string{"identity", mode, host, "approvals", "tools", "editing", "verification", "git", "safety",
		"communication", "deferred"}
}

var parsed = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").ParseFS(files, "sections/*.md"))
})

// Compose renders the system prompt for env. The sections are fixed text
// tested in every composition, so a template that fails to execute is a
// programming error and panics (the engine ends that turn with an internal
// error).
func Compose(env Env) Prompt {
	v := &view{Env: env, rows: map[string]bool{}}
	var parts []string
	for _, name := range sectionsFor(env) {
		var b strings.Builder
		if err := parsed().ExecuteTemplate(&b, name+".md", v); err != nil {
			panic(fmt.Sprintf("prompt: section %s: %v", name, err))
		}
		if s := strings.TrimSpace(b.String()); s != "" {
			parts = append(parts, s)
		}
	}
	p := Prompt{Text: strings.Join(parts, "\n\n")}
	for id := range v.rows {
		p.Rows = append(p.Rows, id)
	}
	slices.Sort(p.Rows)
	return p
}

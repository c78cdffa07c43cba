// Package initflow is the TUI's child for /init: a Plan-mode turn with the
// read-only tools surveys the repository and proposes an AGENTS.md, shown
// as a diff on a question and written only if the person says so. It
// keeps the survey in progress and the proposal waiting for an answer and
// reaches the root model only through Host.
package initflow

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// Picker names /init's question.
const Picker = "init"

// Host is what the child needs of the root model.
type Host interface {
	// System and SystemError add a System cell to the transcript.
	System(text string)
	SystemError(text string)
	// Push opens a view on top of the modal stack.
	Push(v views.View)
	// Busy reports whether a turn is running; Locked says that setting
	// waits for it.
	Busy() bool
	Locked(setting string)
	// SendMessage starts a turn with op, line being what the transcript
	// shows as typed.
	SendMessage(line string, op engine.SendMessage) tea.Cmd
	// LastReply is the transcript's last answer cell (nil: none).
	LastReply() *transcript.Cell
	// Typing reports whether the person is typing for the composer (a
	// question opening meanwhile opens without the focus).
	Typing() bool
}

// Init is the child.
type Init struct {
	theme     *theme.Theme
	workspace string
	run       *initState // a /init in progress (nil: none)
}

// New builds the child for the workspace.
func New(th *theme.Theme, workspace string) *Init { return &Init{theme: th, workspace: workspace} }

// initState is a /init in progress: the survey turn it sent, then the
// proposal waiting for the user's answer.
type initState struct {
	draft *projectctx.InitDraft
	// before is the last answer shown before the survey turn: the turn's
	// answer is a later cell, never an earlier turn's.
	before   *transcript.Cell
	proposal string // set once the survey turn answered
	diff     string
}

// Command is /init [--force]: a Plan-mode turn with the read-only tools
// surveys the repository and proposes an AGENTS.md, which is shown as a
// diff and written only if the user says so. An existing file is improved;
// --force asks for a fresh one.
func (in *Init) Command(host Host, arg string) tea.Cmd {
	force := false
	switch strings.TrimSpace(arg) {
	case "":
	case "--force":
		force = true
	default:
		host.SystemError("Usage: /init [--force]")
		return nil
	}
	if host.Busy() {
		host.Locked("/init")
		return nil
	}
	if st := in.run; st != nil && st.proposal != "" && !force {
		in.ask(host, true) // the proposal kept by Esc: the survey is not paid for twice
		return nil
	}
	d, err := projectctx.NewInitDraft(in.workspace, force)
	if err != nil {
		host.SystemError(err.Error())
		return nil
	}
	in.run = &initState{draft: d, before: host.LastReply()}
	what := "drafting " + d.Path
	if d.Base != "" && !force {
		what = "improving " + d.BasePath
	}
	host.System("/init: a Plan-mode turn surveys the repository (read-only tools) and proposes AGENTS.md, " + what +
		"; you see the diff before anything is written.")
	plan := posture.Plan
	line := "/init"
	if force {
		line += " --force"
	}
	return host.SendMessage(line, engine.SendMessage{Content: d.Prompt, Provenance: engine.ProvenanceUser,
		Scope: &engine.TurnScope{Command: "init", Mode: &plan}})
}

// TurnEnded takes the survey turn's answer: the proposal becomes a
// question with the diff; a turn that failed or proposed nothing says so.
func (in *Init) TurnEnded(host Host, ev engine.TurnComplete) tea.Cmd {
	st := in.run
	if st == nil || st.proposal != "" {
		return nil
	}
	in.run = nil
	if ev.Status != engine.TurnCompleted {
		host.SystemError("/init stopped before it proposed anything (" + string(ev.Status) + "); AGENTS.md is unchanged.")
		return nil
	}
	reply := ""
	if c := host.LastReply(); c != nil && c != st.before {
		reply = c.Text()
	}
	proposal, err := st.draft.Proposal(reply)
	if err != nil {
		host.SystemError("/init: " + err.Error() + "; AGENTS.md is unchanged.")
		return nil
	}
	st.proposal, st.diff = proposal, st.draft.Diff(proposal)
	if st.diff == "" {
		host.System("/init: the proposal is what " + st.draft.Path + " already says; nothing to write.")
		return nil
	}
	in.run = st
	in.ask(host, !host.Typing())
	return nil
}

// ask shows the proposed change and asks what to do with it. The
// question opens when the turn ends, perhaps while the person types their
// next message, so it follows the focus rule like an approval card
// (focused says it opens with the keys); Enter alone shows the diff, and
// only "Write it" writes.
func (in *Init) ask(host Host, focused bool) {
	st := in.run
	added, removed := transcript.DiffStats(st.diff)
	d := st.draft
	body := []string{fmt.Sprintf("%s: +%d −%d lines", d.Path, added, removed)}
	if d.Target != d.Path {
		body = append(body, "written through its link to "+d.Target)
	}
	if d.BasePath != "" && d.BasePath != d.Path {
		body = append(body, "improves "+d.BasePath+", which stays as it is; AGENTS.md is read in its place from then on")
	}
	body = append(body, "")
	body = append(body, strings.Split(strings.TrimRight(st.diff, "\n"), "\n")...)
	host.Push(views.NewQuestion(in.theme, Picker, "Write AGENTS.md?", body, []views.Item{
		{Label: "Write it", Value: "write"},
		{Label: "Show the whole diff", Value: "show"},
		{Label: "Discard the proposal", Value: "discard"},
	}, "show").Focusable(focused))
}

// Picked carries out the answer.
func (in *Init) Picked(host Host, value string) tea.Cmd {
	st := in.run
	if st == nil {
		return nil
	}
	switch value {
	case "show":
		in.ask(host, true) // asked again under the pager it answered
		host.Push(views.NewPager(in.theme, "Proposed AGENTS.md (diff)", st.diff))
		return nil
	case "write":
		in.run = nil
		if err := st.draft.Write(st.proposal); err != nil {
			host.SystemError(err.Error())
			return nil
		}
		host.System("Wrote " + st.draft.Path + "; it is read into the system prompt from the next turn (/context shows it).")
	case "":
		host.System("/init: the proposal is kept; /init asks again (/init --force surveys afresh). " +
			st.draft.Path + " is unchanged.")
	default:
		in.run = nil
		host.System("/init: proposal discarded; " + st.draft.Path + " is unchanged.")
	}
	return nil
}

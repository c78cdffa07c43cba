package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// initPicker names /init's question.
const initPicker = "init"

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

// initCommand is /init [--force]: a Plan-mode turn with the read-only tools
// surveys the repository and proposes an AGENTS.md, which is shown as a
// diff and written only if the user says so. An existing file is improved;
// --force asks for a fresh one.
func (m *Model) initCommand(arg string) tea.Cmd {
	force := false
	switch strings.TrimSpace(arg) {
	case "":
	case "--force":
		force = true
	default:
		m.systemError("Usage: /init [--force]")
		return nil
	}
	if m.turn.busy {
		m.systemError(locked("/init"))
		return nil
	}
	if st := m.initRun; st != nil && st.proposal != "" && !force {
		m.askInit(true) // the proposal kept by Esc: the survey is not paid for twice
		return nil
	}
	d, err := projectctx.NewInitDraft(m.o.Workspace, force)
	if err != nil {
		m.systemError(err.Error())
		return nil
	}
	m.initRun = &initState{draft: d, before: m.tr.Last(transcript.Assistant)}
	what := "drafting " + d.Path
	if d.Base != "" && !force {
		what = "improving " + d.BasePath
	}
	m.system("/init: a Plan-mode turn surveys the repository (read-only tools) and proposes AGENTS.md, " + what +
		"; you see the diff before anything is written.")
	plan := posture.Plan
	line := "/init"
	if force {
		line += " --force"
	}
	return m.sendMessage(line, engine.SendMessage{Content: d.Prompt, Provenance: engine.ProvenanceUser,
		Scope: &engine.TurnScope{Command: "init", Mode: &plan}})
}

// initTurnEnded takes the survey turn's answer: the proposal becomes a
// question with the diff; a turn that failed or proposed nothing says so.
func (m *Model) initTurnEnded(ev engine.TurnComplete) tea.Cmd {
	st := m.initRun
	if st == nil || st.proposal != "" {
		return nil
	}
	m.initRun = nil
	if ev.Status != engine.TurnCompleted {
		m.systemError("/init stopped before it proposed anything (" + string(ev.Status) + "); AGENTS.md is unchanged.")
		return nil
	}
	reply := ""
	if c := m.tr.Last(transcript.Assistant); c != nil && c != st.before {
		reply = c.Text()
	}
	proposal, err := st.draft.Proposal(reply)
	if err != nil {
		m.systemError("/init: " + err.Error() + "; AGENTS.md is unchanged.")
		return nil
	}
	st.proposal, st.diff = proposal, st.draft.Diff(proposal)
	if st.diff == "" {
		m.system("/init: the proposal is what " + st.draft.Path + " already says; nothing to write.")
		return nil
	}
	m.initRun = st
	m.askInit(!m.typing())
	return nil
}

// askInit shows the proposed change and asks what to do with it. The
// question opens when the turn ends, perhaps while the person types their
// next message, so it follows the focus rule like an approval card
// (focused says it opens with the keys); Enter alone shows the diff, and
// only "Write it" writes.
func (m *Model) askInit(focused bool) {
	st := m.initRun
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
	m.push(views.NewQuestion(m.theme, initPicker, "Write AGENTS.md?", body, []views.Item{
		{Label: "Write it", Value: "write"},
		{Label: "Show the whole diff", Value: "show"},
		{Label: "Discard the proposal", Value: "discard"},
	}, "show").Focusable(focused))
}

// initPicked carries out the answer.
func (m *Model) initPicked(value string) tea.Cmd {
	st := m.initRun
	if st == nil {
		return nil
	}
	switch value {
	case "show":
		m.askInit(true) // asked again under the pager it answered
		m.push(views.NewPager(m.theme, "Proposed AGENTS.md (diff)", st.diff))
		return nil
	case "write":
		m.initRun = nil
		if err := st.draft.Write(st.proposal); err != nil {
			m.systemError(err.Error())
			return nil
		}
		m.system("Wrote " + st.draft.Path + "; it is read into the system prompt from the next turn (/context shows it).")
	case "":
		m.system("/init: the proposal is kept; /init asks again (/init --force surveys afresh). " +
			st.draft.Path + " is unchanged.")
	default:
		m.initRun = nil
		m.system("/init: proposal discarded; " + st.draft.Path + " is unchanged.")
	}
	return nil
}

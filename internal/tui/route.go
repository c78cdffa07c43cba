package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tui/initflow"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// locked is the refusal for a live-route change while a turn runs.
func locked(setting string) string {
	return setting + " is locked while a turn is running — press Esc to interrupt first"
}

// effortCycle is Ctrl+T's order (CONTRACT.md §14.5): it comes back to
// auto, where a session starts.
var effortCycle = []string{"auto", "off", "high", "max"}

// cycleEffort is Ctrl+T: auto → off → high → max → auto; a tier outside
// the cycle (set with /effort) goes on to auto.
func (m *Model) cycleEffort() tea.Cmd {
	next := effortCycle[0]
	for i, e := range effortCycle {
		if e == m.effortLabel() {
			next = effortCycle[(i+1)%len(effortCycle)]
		}
	}
	if m.turn.busy {
		return m.setStatus(locked("Effort"), sevWarning)
	}
	m.setEffort(next)
	return m.setStatus("Reasoning effort: "+next, sevInfo)
}

// setEffort changes the effort for the next request.
func (m *Model) setEffort(e string) {
	m.route.Effort = e
	m.o.Engine.Submit(engine.SetReasoningEffort{Effort: e})
}

// cycleMode is Tab on an empty composer: Plan → Act → Operate → Plan.
func (m *Model) cycleMode() tea.Cmd {
	return m.switchMode(m.mode.Next(), false)
}

// switchMode changes the mode. fromCommand selects where messages go: a
// command answers in the transcript, a key in the status line.
func (m *Model) switchMode(to posture.Mode, fromCommand bool) tea.Cmd {
	say := func(text string, sev severity) tea.Cmd {
		if fromCommand {
			if sev == sevError {
				m.systemError(text)
			} else {
				m.system(text)
			}
			return nil
		}
		return m.setStatus(text, sev)
	}
	if m.turn.busy {
		return say(locked("Mode"), sevError)
	}
	if to == m.mode {
		return say(fmt.Sprintf("Already in %s mode.", to.Title()), sevInfo)
	}
	m.mode = to
	m.o.Engine.Submit(engine.ChangeMode{Mode: &to})
	m.updatePlaceholder()
	return say(fmt.Sprintf("Switched to %s mode.", to.Title()), sevSuccess)
}

// yolo is Act with Full Access (`/mode yolo`, `/zidong`); it is never a
// mode of its own.
func (m *Model) yolo() tea.Cmd {
	if m.turn.busy {
		m.systemError(locked("Mode"))
		return nil
	}
	act, full, shell := posture.Act, posture.FullAccess, true
	m.mode, m.posture = act, full
	m.o.Engine.Submit(engine.ChangeMode{Mode: &act, Posture: &full, AllowShell: &shell})
	m.updatePlaceholder()
	m.system("Switched to Act mode with Full Access.")
	return nil
}

// cyclePosture is Shift+Tab: Ask → Auto-Review → Full Access → Ask. It is
// allowed while a turn runs; the engine applies it at the next step.
func (m *Model) cyclePosture() tea.Cmd {
	p := m.posture.Next()
	if m.posture == posture.Never {
		p = posture.Ask
	}
	m.posture = p
	shell := m.o.AllowShell || p == posture.FullAccess
	m.o.Engine.Submit(engine.ChangeMode{Posture: &p, AllowShell: &shell})
	note := ""
	if m.turn.busy {
		note = " (from the next step)"
	}
	return m.setStatus(fmt.Sprintf("Permissions: %s%s", p, note), sevSuccess)
}

// parseModeArg reads `/mode` arguments; yolo is reported separately.
func parseModeArg(arg string) (mode posture.Mode, yolo, ok bool) {
	a := strings.ToLower(strings.TrimSpace(arg))
	if a == "yolo" {
		return posture.Act, true, true
	}
	md, err := posture.ParseMode(a)
	return md, false, err == nil
}

// modeItems are the mode picker's rows (CONTRACT.md §14.5).
func modeItems() []views.Item {
	return []views.Item{
		{Label: "Act", Hint: "Direct work in this session — edits and shell ask for approval", Value: "act"},
		{Label: "Plan", Hint: "Read-only research first — present a plan before acting", Value: "plan"},
		{Label: "Operate", Hint: "More autonomy, end to end — independent parts handed to sub-agents in parallel", Value: "operate"},
	}
}

// picked applies a picker choice.
func (m *Model) picked(p views.Picked) tea.Cmd {
	switch p.Picker {
	case "mode":
		md, _, _ := parseModeArg(p.Value)
		return m.switchMode(md, true)
	case initflow.Picker:
		return m.init.Picked(m.hhost, p.Value)
	}
	if cmd, ok := m.routes.Picked(m.hhost, p); ok {
		return cmd
	}
	cmd, _ := m.history.Picked(m.hhost, p)
	return cmd
}

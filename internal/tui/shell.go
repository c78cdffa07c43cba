package tui

import (
	"encoding/json"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/transcript"
)

// A composer line starting with "!" runs the rest as a shell command on the
// user's behalf (README, "Running a command yourself"): the engine's
// RunToolCall sends it through Bash's gates — mode, rules, posture, the
// approval card, the sandbox — with no model turn (docs/CONTRACT.md §8.5).
// Its output is shown as a Bash cell and offered for the next message: it
// is attached until that message is sent, and Alt+X leaves it out.

// shellPrefix starts a local command at the composer.
const shellPrefix = "!"

// shellCommand returns the command of a "!command" line.
func shellCommand(text string) (string, bool) {
	if !strings.HasPrefix(text, shellPrefix) {
		return "", false
	}
	return strings.TrimSpace(strings.TrimPrefix(text, shellPrefix)), true
}

// runShell starts a local command. The call takes the engine's turn slot, so
// the UI is busy (Esc stops it, Enter queues) until its result arrives.
func (m *Model) runShell(command string) tea.Cmd {
	switch {
	case m.turn.busy:
		m.comp.SetValue(shellPrefix + command)
		return m.status.set("A turn is running: run the command when it ends (Esc interrupts it)", sevWarning)
	case command == "":
		return m.status.set("Type a command after ! to run it here, e.g. !git status", sevInfo)
	case m.modes.has(modeClosed):
		m.systemError("The engine stopped; restart codewhale to continue.")
		return nil
	case m.mode == posture.Plan:
		return m.status.set("Plan mode has no shell: switch to Act (/mode act) to run !"+termtext.OneLine(command), sevWarning)
	}
	id := "host_" + m.o.NewID()
	in, _ := json.Marshal(map[string]string{"action": "run", "command": command})
	m.tr.Bottom()
	m.turn = turnState{busy: true, host: id, prompt: shellPrefix + command, phase: phaseWorking, label: "running your command…",
		started: m.now(), group: m.turn.group + 1, tools: map[string]*transcript.Cell{}}
	m.o.Engine.Submit(engine.RunToolCall{ID: id, Name: "Bash", Input: in})
	return m.ensureTick()
}

// hostDone ends a local command: its output is attached to the next message
// when the command ran (a refused or denied call has nothing to offer), and
// the next queued message, if any, is sent.
func (m *Model) hostDone(ev engine.ToolCallComplete) tea.Cmd {
	cancelled := m.turn.cancelling
	m.stack.DropApprovals()
	m.turn = turnState{group: m.turn.group, phase: phaseDone}
	var cmds []tea.Cmd
	command := commandOf(ev.Input)
	switch {
	case ev.Result.IsError || cancelled:
		m.turn.phase = phaseIdle
	default:
		m.outputs.Add(command, ev.Result.Content)
		cmds = append(cmds, m.status.set("The output goes with your next message · Alt+X leaves it out", sevInfo))
	}
	if m.queue.len() > 0 && !m.modes.has(modeQuitting) { // quitting keeps the queue as it is
		next, _ := m.queue.next()
		cmds = append(cmds, m.submitText(next))
	}
	return tea.Batch(cmds...)
}

func commandOf(in json.RawMessage) string {
	var a struct{ Command string }
	_ = json.Unmarshal(in, &a)
	return a.Command
}

package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/approvalcard"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tui/attach"
	"github.com/codewhale/codewhale/internal/tui/commands"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// submitKey is Enter (CONTRACT.md §14.2): idle sends, busy queues; on an empty
// composer while busy the oldest queued message is sent now as a steer.
func (m *Model) submitKey() tea.Cmd {
	if m.attach.Visible() && !localLine(m.comp.Value()) {
		return m.submitImages()
	}
	if strings.TrimSpace(m.comp.Value()) == "" {
		if m.turn.busy && !m.turn.cancelling {
			if next, ok := m.queue.next(); ok {
				return m.steer(next)
			}
		}
		return nil
	}
	text := m.comp.Submit()
	m.queue.pulled = ""
	m.menu.Refresh()
	return m.submitText(text)
}

// localLine reports a composer line the TUI runs itself (a slash command,
// a ! command): it leaves attached images for the next message.
func localLine(text string) bool {
	_, isCmd := commands.Parse(text)
	_, isShell := shellCommand(text)
	return isCmd || isShell
}

// submitImages sends the composer's text with its images, or says why it
// cannot now and leaves the composer and the chips as they are
// (CONTRACT.md §14.11).
func (m *Model) submitImages() tea.Cmd {
	if why := m.attach.Wait(m.turn.busy); why != "" {
		return m.status.set(why, sevWarning)
	}
	// The model must take images: checked before the composer is emptied
	// (the engine checks again); a route without a model name lets the
	// server decide.
	if r := m.route; r.Model != "" {
		if err := m.meter.Table.CheckVision(r.Model, r.Provider, provider.IsFirstParty(r.BaseURL)); err != nil {
			m.systemError(err.Error())
			return m.status.set("Nothing was sent: the model cannot take images", sevWarning)
		}
	}
	text := m.comp.Submit()
	m.queue.pulled = ""
	m.menu.Refresh()
	chips := m.attach.Chips()
	blocks, _ := m.attach.Take()
	return m.sendMessage(text, engine.SendMessage{Content: text, Provenance: engine.ProvenanceUser, Images: blocks}, chips...)
}

// submitText runs a slash command, queues behind a running turn, or
// starts a turn.
func (m *Model) submitText(text string) tea.Cmd {
	if inv, ok := commands.Parse(text); ok {
		return m.runCommand(inv)
	}
	if cmd, ok := shellCommand(text); ok {
		return m.runShell(cmd)
	}
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if m.turn.busy {
		m.queue.add(text)
		return nil
	}
	return m.send(text)
}

// send starts a turn with text; @server:uri mentions of MCP resources are
// read first (off the UI goroutine) and added below it.
func (m *Model) send(text string) tea.Cmd {
	if cmd, ok := m.services.SendMentions(m.hhost, text); ok {
		return cmd
	}
	return m.sendMessage(text, engine.SendMessage{Content: text, Provenance: engine.ProvenanceUser})
}

// sendMessage starts a turn with op; text is what the user typed (shown,
// and restored to the composer when the turn is cancelled early), chips
// the images op carries (shown under it, and restored with it).
func (m *Model) sendMessage(text string, op engine.SendMessage, chips ...attach.Chip) tea.Cmd {
	if m.modes.has(modeClosed) {
		m.systemError("The engine stopped; restart codewhale to continue.")
		return nil
	}
	if pre := m.outputs.Take(); pre != "" {
		text, op.Content = pre+text, pre+op.Content
	}
	shown := m.comp.Fold(text)
	for _, c := range chips {
		shown = strings.TrimLeft(shown+"\n"+c.Label(), "\n")
	}
	user := m.tr.Add(transcript.NewCell(transcript.User, shown))
	m.tr.Bottom()
	m.modes.set(modeRestored, false)
	m.turn = turnState{busy: true, prompt: text, chips: chips, phase: phaseWorking, label: "working…", started: m.now(),
		group: m.turn.group + 1, tools: map[string]*transcript.Cell{}, user: user, histAt: len(m.history.Messages())}
	m.o.Engine.Submit(op)
	return m.ensureTick()
}

// steer adds text to the running turn at its next step.
func (m *Model) steer(text string) tea.Cmd {
	m.tr.Add(transcript.NewCell(transcript.User, text))
	m.o.Engine.Submit(engine.Steer{Text: text})
	return m.status.set("Steering: "+termtext.Truncate(termtext.OneLine(text), 60, "…"), sevInfo)
}

// steerComposer is Ctrl+Enter: steer with the composer text while a turn
// runs, send it otherwise.
func (m *Model) steerComposer() tea.Cmd {
	if strings.TrimSpace(m.comp.Value()) == "" {
		return nil
	}
	text := m.comp.Submit()
	m.menu.Refresh()
	if _, isCmd := commands.Parse(text); isCmd || !m.turn.busy {
		return m.submitText(text)
	}
	return m.steer(text)
}

// pullQueued moves the newest queued message back into the composer.
func (m *Model) pullQueued() {
	m.comp.SetValue(m.queue.pull())
}

// cancelTurn interrupts the running turn at once (out of band); the
// composer stays usable and a message entered now is sent after the turn
// has wound down.
func (m *Model) cancelTurn() tea.Cmd {
	m.o.Engine.Cancel()
	m.turn.cancelling = true
	m.turn.phase = phaseIdle
	for _, a := range m.stack.Approvals() {
		m.o.Engine.Submit(engine.DenyToolCall{ID: a.Req.ID, Abort: true})
	}
	m.stack.DropApprovals()
	msg := "Request cancelled — the reply so far stays in the transcript"
	if !m.turn.sawOutput && m.comp.Empty() && (m.turn.prompt != "" || len(m.turn.chips) > 0) {
		m.comp.SetValue(m.comp.Fold(m.turn.prompt))
		m.attach.PutBack(m.turn.chips)
		m.modes.set(modeRestored, true)
		m.turn.restored = true
		msg = restoredText
	}
	return m.status.set(msg, sevWarning)
}

// decide sends an approval card's answer.
func (m *Model) decide(d views.Decision) tea.Cmd {
	if c := m.turn.tools[d.ID]; c != nil {
		c.SetAwaitingApproval(false)
	}
	m.turn.syncQueued(m.tr, m.stack.HasApproval())
	if !m.turn.busy {
		m.turn.phase = phaseIdle
	} else {
		m.turn.phase = phaseWorking
	}
	m.o.Engine.Submit(approvalcard.Op(d.ID, d.Choice))
	if d.Choice == views.Abort && m.turn.busy && !m.turn.cancelling {
		return m.cancelTurn()
	}
	return nil
}

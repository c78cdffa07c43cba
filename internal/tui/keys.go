package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tui/slash"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// handleKey routes a key in the order of CONTRACT.md §14.1: posture chord, the
// top modal, composer popups, global chords, the Esc stack, scrolling,
// then the composer.
func (m *Model) handleKey(k tea.KeyMsg) tea.Cmd {
	m.lastKey = m.now()
	if k.Type == tea.KeyShiftTab {
		// The posture chord comes before any modal: a card or a pager on
		// top never keeps the person from changing the posture.
		return m.switches.CyclePosture(m.hhost)
	}
	v := m.stack.Top()
	if v == nil {
		return m.unmodalKey(k)
	}
	if f := views.FocusOf(v); f != nil {
		switch {
		case !f.Focused() && k.Type == tea.KeyTab && m.menu.Visible():
			return m.unmodalKey(k) // the composer's menu, drawn under the card, owns Tab
		case f.Focused() && k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste:
			// Keys that arrive faster than one terminal read are typing,
			// never one deliberate answer: the composer takes them all.
			f.Blur()
			return m.unmodalKey(k)
		}
	}
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste {
		// Keys typed faster than one terminal read arrive as one message;
		// a modal binds single keys, so each rune is its own key.
		cmds := make([]tea.Cmd, 0, len(k.Runes))
		for _, r := range k.Runes {
			cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}))
		}
		return tea.Batch(cmds...)
	}
	if a := v.Update(k); a.Kind != views.Pass {
		return m.viewAction(a)
	}
	return m.unmodalKey(k)
}

// unmodalKey routes a key no modal took (the posture chord went first):
// composer popups, global chords, the Esc stack, scrolling, then the
// composer.
func (m *Model) unmodalKey(k tea.KeyMsg) tea.Cmd {
	if m.menu.Visible() {
		switch cmd, r := m.menu.Key(k); r {
		case slash.Handled:
			return cmd
		case slash.Submit:
			return m.submitKey()
		}
	}
	if cmd, ok := m.globalKey(k); ok {
		return cmd
	}
	if k.Type == tea.KeyEsc {
		return m.escape()
	}
	if m.tr.ScrollKey(k.String(), m.w, m.layout().transcript, m.comp.Empty()) {
		return nil
	}
	return m.composerKey(k)
}

// typingWindow is how recent a key must be for the person to count as
// typing when a card opens (the focus rule, CONTRACT.md §14.6).
const typingWindow = time.Second

// typing reports whether the person is typing for the composer: a draft,
// or a key in the last second. A card that opens meanwhile opens without
// focus.
func (m *Model) typing() bool {
	return !m.comp.Empty() || m.now().Sub(m.lastKey) < typingWindow
}

// viewAction carries out what a view returned.
func (m *Model) viewAction(a views.Action) tea.Cmd {
	switch a.Kind {
	case views.Close:
		m.stack.Pop()
		return m.nextApproval()
	case views.Emit:
		return m.viewEvent(a.Event)
	case views.EmitAndClose:
		m.stack.Pop()
		cmd := m.viewEvent(a.Event)
		return tea.Batch(cmd, m.nextApproval())
	}
	return nil
}

// nextApproval opens the next queued approval card once the top is free.
func (m *Model) nextApproval() tea.Cmd {
	if m.stack.HasApproval() {
		return nil
	}
	if next, ok := m.stack.NextWaiting(); ok {
		return m.approvalRequired(next)
	}
	return nil
}

func (m *Model) viewEvent(ev any) tea.Cmd {
	switch ev := ev.(type) {
	case views.Decision:
		return m.decide(ev)
	case views.Copy:
		return m.handoff.Copy(m.hhost, ev.Text, ev.Label)
	case views.OpenPager:
		m.stack.Push(views.NewPager(m.theme, ev.Title, ev.Body))
	case views.Picked:
		return m.picked(ev)
	case views.RunCommand:
		return m.submitText(ev.Line)
	case views.Deleted, views.Archived:
		cmd, _ := m.history.ViewEvent(m.hhost, m.stack.Top(), ev)
		return cmd
	}
	return nil
}

// globalKey handles Ctrl+C and the global chords (CONTRACT.md §14.6).
func (m *Model) globalKey(k tea.KeyMsg) (tea.Cmd, bool) {
	chord := m.modes.has(modeCtrlX)
	m.modes.set(modeCtrlX, false)
	switch k.String() {
	case "ctrl+g":
		return m.handoff.Editor(m.hhost, m.comp.Expanded()), true
	case "ctrl+x":
		m.modes.set(modeCtrlX, true)
		return nil, true
	case "ctrl+e":
		if chord {
			return m.handoff.Editor(m.hhost, m.comp.Expanded()), true
		}
	case "ctrl+c":
		return m.ctrlC(), true
	case "ctrl+d":
		// Ctrl+D quits on an empty composer with nothing running; with a
		// draft it edits (delete forward), and while a turn or a command
		// runs it only says how to stop it, so a stray Ctrl+D never kills
		// work.
		switch {
		case !m.comp.Empty():
			return nil, false
		case m.turn.busy || m.turn.running > 0:
			return m.status.set("A turn is running — Esc or Ctrl+C interrupts it; Ctrl+D quits once it is idle", sevWarning), true
		}
		return m.quit(), true
	case "ctrl+k":
		if m.comp.Empty() {
			m.comp.SetValue("/")
			m.menu.Refresh()
			return nil, true
		}
	case "ctrl+o":
		return m.open(reasoningPager(m.theme, m.tr), "No reasoning in this session yet"), true
	case "alt+v":
		return m.open(toolDetailsPager(m.theme, m.tr), "No tool call in this session yet"), true
	case "alt+x":
		return m.outputs.Drop(m.hhost), true
	case "ctrl+b":
		return m.jobsv.MoveForeground(m.hhost), true
	case "ctrl+t":
		return m.switches.CycleEffort(m.hhost), true
	case "alt+p":
		return m.switches.SwitchMode(m.hhost, posture.Plan, false), true
	case "alt+a":
		return m.switches.SwitchMode(m.hhost, posture.Act, false), true
	case "alt+y":
		return m.switches.SwitchMode(m.hhost, posture.Operate, false), true
	case "f1", "ctrl+_":
		return m.open(helpView(m.theme, m.table.Registry()), ""), true
	case "ctrl+l":
		return m.compact(""), true
	case "ctrl+r":
		return m.history.OpenSessions(m.hhost), true
	case "alt+s":
		return m.toggleSelection(), true
	case "alt+c":
		return m.handoff.CopyLastReply(m.hhost, m.tr), true
	case "alt+k":
		return m.handoff.CopyLastCode(m.hhost, m.tr), true
	}
	return nil, false
}

// ctrlC, pressed again and again, clears the draft (kept in ↑ history),
// then interrupts the running turn, then arms quitting for two seconds
// and quits on a press inside them (CONTRACT.md §14.6).
func (m *Model) ctrlC() tea.Cmd {
	if !m.comp.Empty() {
		return m.discardDraft()
	}
	if m.turn.busy && !m.turn.cancelling {
		return m.cancelTurn()
	}
	if m.now().Before(m.quitArmed) {
		return m.quit()
	}
	m.quitArmed = m.now().Add(quitWindow)
	return m.status.setFor("Press Ctrl+C again to quit", sevWarning, quitWindow)
}

// discardDraft empties the composer for Ctrl+C; the draft stays in ↑
// history and Ctrl+Z restores it. A queued message pulled back for
// editing goes back to the queue unchanged.
func (m *Model) discardDraft() tea.Cmd {
	if m.queue.pulled != "" {
		return m.unrequeue()
	}
	m.comp.Discard()
	m.modes.set(modeRestored, false)
	m.menu.Refresh()
	return m.status.set("Draft cleared — ↑ or Ctrl+Z brings it back", sevInfo)
}

// unrequeue puts a queued message pulled back for editing back in the
// queue as it was.
func (m *Model) unrequeue() tea.Cmd {
	m.queue.unpull()
	m.comp.Clear()
	return m.status.set("Queued edit canceled; follow-up restored", sevInfo)
}

// escape is the Esc cancel stack (CONTRACT.md §14.6).
func (m *Model) escape() tea.Cmd {
	switch {
	case m.turn.busy && !m.turn.cancelling:
		return m.cancelTurn()
	case m.queue.pulled != "":
		return m.unrequeue()
	case !m.comp.Empty():
		m.comp.Clear()
		m.modes.set(modeRestored, false)
		m.menu.Refresh()
		return m.status.set("Draft cleared (Ctrl+Z restores it)", sevInfo)
	}
	return m.history.EscOnEmpty(m.hhost)
}

// composerKey: Tab cycles the mode on an empty composer, Enter submits,
// ↑ pulls back a queued message or recalls history; the rest edits.
func (m *Model) composerKey(k tea.KeyMsg) tea.Cmd {
	if k.Paste {
		if cmd, ok := m.attach.Pasted(string(k.Runes)); ok {
			return cmd
		}
	}
	switch k.Type {
	case tea.KeyCtrlV:
		return m.attach.Clipboard()
	case tea.KeyBackspace:
		if m.attach.Len() > 0 && m.comp.AtStart() {
			return m.attach.DropLast(m.hhost)
		}
	case tea.KeyTab:
		if m.comp.Empty() {
			return m.switches.CycleMode(m.hhost)
		}
		return nil
	case tea.KeyEnter:
		if k.Alt {
			break // Alt+Enter inserts a newline
		}
		return m.submitKey()
	case tea.KeyUp:
		if m.comp.Empty() && m.queue.len() > 0 {
			m.pullQueued()
			return nil
		}
		if m.comp.OnFirstLine() && m.comp.HistoryPrev() {
			return nil
		}
	case tea.KeyDown:
		if m.comp.OnLastLine() && m.comp.HistoryNext() {
			return nil
		}
	}
	cmd := m.comp.Update(k)
	return tea.Batch(cmd, m.menu.Refresh())
}

// handleMouse scrolls the top modal or the transcript with the wheel.
func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	delta := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		delta = -1
	case tea.MouseButtonWheelDown:
		delta = 1
	default:
		return nil
	}
	if v := m.stack.Top(); v != nil {
		if wh, ok := v.(views.Wheeler); ok {
			return m.viewAction(wh.Wheel(delta))
		}
		return nil
	}
	m.tr.Scroll(3*delta, m.w, m.layout().transcript)
	return nil
}

// Extended-key sequences bubbletea v1 does not name: Shift+Enter and
// Ctrl+Enter under the kitty (CSI u) and xterm modifyOtherKeys encodings.
var (
	shiftEnterSeqs = []string{"?CSI[49 51 59 50 117]?", "?CSI[50 55 59 50 59 49 51 126]?"}
	ctrlEnterSeqs  = []string{"?CSI[49 51 59 53 117]?", "?CSI[50 55 59 53 59 49 51 126]?"}
)

// handleOther recognises Shift+Enter (newline) and Ctrl+Enter (steer)
// from the raw sequences bubbletea reports as unknown.
func (m *Model) handleOther(msg tea.Msg) tea.Cmd {
	s, ok := msg.(fmt.Stringer)
	if !ok || !m.stack.ComposerHasKeys() || !strings.HasPrefix(s.String(), "?CSI") {
		return nil
	}
	seq := s.String()
	for _, x := range shiftEnterSeqs {
		if seq == x {
			m.lastKey = m.now()
			m.comp.InsertString("\n")
			return nil
		}
	}
	for _, x := range ctrlEnterSeqs {
		if seq == x {
			m.lastKey = m.now()
			return m.steerComposer()
		}
	}
	return nil
}

// toggleSelection releases the mouse to the terminal so any transcript
// text can be selected and copied with the terminal's own selection, and
// takes it back (wheel scrolling) on the second press.
func (m *Model) toggleSelection() tea.Cmd {
	if !m.o.MouseCapture {
		return m.status.set("The mouse is not captured (--no-mouse-capture): select text with the terminal as usual", sevInfo)
	}
	m.modes.set(modeSelecting, !m.modes.has(modeSelecting))
	if m.modes.has(modeSelecting) {
		m.status.hold("Selection mode: select with the mouse, copy with your terminal · Alt+S to scroll with the wheel again", sevWarning)
		return tea.DisableMouse
	}
	return tea.Batch(tea.EnableMouseCellMotion, m.status.set("Mouse captured again: the wheel scrolls the transcript", sevInfo))
}

package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tui/attach"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/usage"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// phase is the phase strip's state (CONTRACT.md §14.2).
type phase int

const (
	phaseIdle phase = iota
	phaseWorking
	phaseWaiting
	phaseDone
	phaseFailed
)

// turnState is the running turn as the UI sees it.
type turnState struct {
	busy       bool // from submit until TurnComplete
	cancelling bool // Esc pressed; waiting for TurnComplete
	started    time.Time
	prompt     string
	chips      []attach.Chip // the images the message carried (restored with prompt)
	// user is the message's transcript cell and histAt the history's
	// length when it was sent: an interrupted message put back in the
	// composer (restored) leaves both the transcript and the history.
	user      *transcript.Cell
	histAt    int
	restored  bool
	sawOutput bool
	errShown  bool
	phase     phase
	label     string // working label: reasoning…, using tool…
	group     int
	assistant *transcript.Cell
	thinking  *transcript.Cell
	tools     map[string]*transcript.Cell
	running   int
	host      string // the id of a local command (shell.go) while it runs
	// attempt holds the cells streamed by the current provider attempt, so
	// a retraction (engine.Retract) can take them back.
	attempt []*transcript.Cell
}

// handleEvents applies one batch of engine events and re-arms the
// subscription.
func (m *Model) handleEvents(msg eventsMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, ev := range msg.events {
		if c := m.applyEvent(ev); c != nil {
			cmds = append(cmds, c)
		}
	}
	if msg.closed {
		m.modes.set(modeClosed, true)
		if !m.modes.has(modeQuitting) {
			if m.turn.busy {
				m.finishTurn(engine.TurnComplete{Status: engine.TurnFailed})
			}
			m.tr.Add(transcript.NewError("critical", "The engine stopped; nothing more can be sent. Restart codewhale."))
		}
	} else {
		cmds = append(cmds, m.sub.next())
	}
	cmds = append(cmds, m.ensureTick())
	return tea.Batch(cmds...)
}

func (m *Model) applyEvent(ev engine.Event) tea.Cmd {
	switch ev := ev.(type) {
	case engine.TurnStarted:
		m.turn.start(m.now())
		m.snapshot = nil
		// Errors stick until the next turn; the phase strip says "Esc to
		// interrupt", so no toast repeats it.
		m.status.clearError()
	case engine.ToolRequestSnapshot:
		m.snapshot = ev.Snapshot
		m.turn.group++ // each request starts a new step, so a new tool group
		m.turn.attempt = nil
	case engine.MessageStarted:
		m.turn.startMessage(m.tr, m.now())
	case engine.MessageDelta:
		m.turn.messageDelta(m.tr, m.now(), ev.Content)
	case engine.MessageComplete:
		m.turn.closeThinking(m.tr, m.now())
		m.turn.closeAssistant(m.tr, m.now(), false)
	case engine.ThinkingStarted:
		m.turn.startThinking(m.tr, m.now())
	case engine.ThinkingDelta:
		m.turn.thinkingDelta(m.tr, m.now(), ev.Content)
	case engine.ThinkingComplete:
		m.turn.closeThinking(m.tr, m.now())
	case engine.ToolCallStarted:
		m.turn.toolStarted(m.tr, m.now(), ev)
	case engine.ToolCallProgress:
		m.turn.toolProgress(m.tr, ev)
	case engine.ToolCallComplete:
		m.turn.toolCompleted(m.tr, m.now(), ev)
		if ev.ID == m.turn.host && m.turn.host != "" {
			return m.hostDone(ev)
		}
	case engine.ApprovalRequired:
		m.turn.sawOutput = true
		return m.approvalRequired(ev)
	case engine.TurnUsage:
		if ev.Model != "" && !ev.Child {
			m.route.Model = ev.Model // a route without a model learns the server's
		}
		if ev.Unreported {
			m.meter.AddUnreported()
			return nil
		}
		m.meter.Add(ev.Usage, m.route.Model)
	case engine.Status:
		if ev.Keep { // a hook's or the project's notice outlives the status line
			m.system(termtext.Sanitize(ev.Message))
			return nil
		}
		if m.turn.cancelling && ev.Message == "Request cancelled" {
			return nil // cancelTurn said so already, and what became of the message
		}
		return m.status.set(termtext.OneLine(termtext.Sanitize(ev.Message)), sevInfo)
	case engine.Retract:
		m.turn.retract(m.tr, ev)
	case engine.Retry:
		m.turn.setWorking("retrying…")
		return m.status.retrying(ev)
	case engine.Error:
		m.turn.engineError(m.tr, m.now(), ev.ErrorEnvelope)
		if h := m.turn.host; h != "" && m.turn.tools[h] == nil {
			m.turn = turnState{group: m.turn.group} // the engine refused the local command
		}
	case engine.SessionUpdated:
		m.session = ev.SessionID
		m.history.Event(m.hhost, ev)
	case engine.HistoryRewound, engine.SessionForked:
		cmd, _ := m.history.Event(m.hhost, ev)
		return cmd
	case engine.TurnComplete:
		return m.finishTurn(ev)
	case engine.CompactionStarted:
		return m.status.set(compactingText, sevInfo)
	case engine.CompactionCompleted:
		m.status.clearIf(compactingText)
		m.system(fmt.Sprintf("Compacted context: summarised %d message(s), kept %d (≈%s → ≈%s tokens); the originals stay in the session file.",
			ev.Replaced, ev.Kept, usage.FormatTokens(ev.BeforeEstimate), usage.FormatTokens(ev.AfterEstimate)))
	case engine.CompactionFailed:
		m.status.clearIf(compactingText)
		m.tr.Add(transcript.NewError("error", "Compaction failed: "+ev.Error))
	}
	return nil
}

// Status texts the UI takes back when what they announce is over.
const (
	compactingText = "Compacting context…"
)

// approvalRequired opens a card, or queues the request behind the open one.
func (m *Model) approvalRequired(ev engine.ApprovalRequired) tea.Cmd {
	m.turn.phase = phaseWaiting
	if c := m.turn.tools[ev.ID]; c != nil {
		c.SetAwaitingApproval(true)
	}
	if m.stack.HasApproval() {
		m.stack.Wait(ev)
		m.turn.syncQueued(m.tr, m.stack.HasApproval())
		return nil
	}
	m.stack.Push(views.NewApproval(m.theme, ev, !m.typing()))
	m.turn.syncQueued(m.tr, m.stack.HasApproval())
	return m.notifier.send("codewhale: "+ev.ToolName+" is waiting for your approval", m.modes.has(modeBlurred))
}

// finishTurn closes the turn and sends the next queued message, if any.
func (m *Model) finishTurn(ev engine.TurnComplete) tea.Cmd {
	interrupted := ev.Status == engine.TurnInterrupted
	m.turn.closeThinking(m.tr, m.now())
	m.turn.closeAssistant(m.tr, m.now(), interrupted)
	m.stack.DropApprovals()
	m.turn.busy, m.turn.cancelling, m.turn.running = false, false, 0
	switch ev.Status {
	case engine.TurnFailed:
		m.turn.phase = phaseFailed
		if ev.Error != "" && !m.turn.errShown {
			m.tr.Add(transcript.NewError("error", ev.Error))
		}
	case engine.TurnInterrupted:
		m.turn.phase = phaseIdle
		m.takeBackRestored()
	default:
		m.turn.phase = phaseDone
		m.status.clearToast()
	}
	if ev.MaxStepsReached {
		m.tr.Add(transcript.NewError("warning", "The turn stopped at the maximum number of steps; send a follow-up to continue."))
	}
	initCmd := m.init.TurnEnded(m.hhost, ev)
	if m.queue.len() > 0 && !m.modes.has(modeQuitting) { // quitting keeps the queue as it is
		next, _ := m.queue.next()
		return tea.Batch(initCmd, m.submitText(next)) // a queued user command runs as one

	}
	switch ev.Status {
	case engine.TurnFailed:
		return tea.Batch(initCmd, m.notifier.send("codewhale: the turn failed", m.modes.has(modeBlurred)))
	case engine.TurnCompleted:
		return tea.Batch(initCmd, m.notifier.send("codewhale: the turn is done", m.modes.has(modeBlurred)))
	}
	return initCmd
}

func (m *Model) system(text string) { m.tr.Add(transcript.NewCell(transcript.System, text)) }

func (m *Model) systemError(text string) { m.system("Error: " + text) }

package tui

import (
	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// restoredText is the status after Esc put an unanswered message back.
const restoredText = "Request cancelled — your message is back in the composer; Enter sends it once"

// restoredMark is the row above a composer holding an interrupted message.
const restoredMark = "↺ interrupted message, back in the composer · Enter sends it · Ctrl+C clears it"

// takeBackRestored runs when a turn whose message went back to the
// composer (cancelTurn) has ended: the message leaves the transcript and
// the conversation, so sending it again puts it in once — the model never
// reads it twice (D14). The engine cuts the history (RewindHistory); the
// session file keeps the line.
func (m *Model) takeBackRestored() {
	if !m.turn.restored || m.turn.host != "" || m.turn.user == nil {
		return
	}
	h := m.history.Messages()
	last := len(h) - 1
	saved := last >= m.turn.histAt // the engine had saved the message
	if saved && h[last].PromptText() == "" {
		return // something followed it: the turn had begun to answer
	}
	m.tr.Remove(m.turn.user)
	m.system(restoredNote)
	if saved {
		m.history.CutQuietly(last, h[last].PromptText())
	}
}

// restoredNote stands in the transcript where the message was.
const restoredNote = "Interrupted before any reply; the message went back to the composer."

// restoredRow marks a composer holding an interrupted message ("" when
// it holds none).
func (m *Model) restoredRow() string {
	if !m.modes.has(modeRestored) || m.comp.Empty() {
		return ""
	}
	return m.theme.Warning.Render(termtext.Truncate(restoredMark, m.w, "…"))
}

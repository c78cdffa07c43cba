package history

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// escTwice is how soon a second Esc on an empty composer opens the list of
// earlier messages.
const escTwice = 1500 * time.Millisecond

// cutPoint is where the conversation would be cut back to before a turn.
type cutPoint struct {
	ok      bool
	at      int    // index of the turn's message
	prompt  string // its full typed text, which the engine checks
	dropped int    // messages from there on
	why     string // when !ok: why the conversation cannot go back
}

// cutFor finds a recorded turn's message in the history: at its recorded
// index, or (after a compaction) the nearest earlier typed message with
// its text.
func (h *History) cutFor(t checkpoint.Turn) cutPoint {
	if len(t.Restores) > 0 {
		return cutPoint{why: "taking a restore back changes only files"}
	}
	hist := h.hist
	for i := min(t.MessageIndex, len(hist)-1); i >= 0; i-- {
		if text := hist[i].PromptText(); text != "" && samePrompt(text, t.Prompt) {
			return cutPoint{ok: true, at: i, prompt: text, dropped: len(hist) - i}
		}
	}
	return cutPoint{why: "the turn's message is no longer in it (compacted or cut already)"}
}

// samePrompt compares a typed message with a turn's recorded prompt, which
// the recorder clipped to 200 characters ending in "…".
func samePrompt(full, recorded string) bool {
	if full == recorded {
		return true
	}
	prefix, clipped := strings.CutSuffix(recorded, "…")
	return clipped && strings.HasPrefix(full, prefix)
}

// cutBack asks the engine to cut the conversation back; resend, if set, is
// sent again once the cut is confirmed.
func (h *History) cutBack(host Host, c cutPoint, resend string) tea.Cmd {
	if !c.ok {
		if resend != "" {
			host.SystemError("Retry: " + c.why)
		}
		return nil
	}
	h.resend = resend
	h.c.Submit(engine.RewindHistory{Keep: c.at, Prompt: c.prompt})
	return nil
}

// historyRewound redraws the transcript from the cut history, with the
// renderer a resume uses, and sends /retry's message.
func (h *History) historyRewound(host Host, ev engine.HistoryRewound) tea.Cmd {
	if h.quietCut {
		h.quietCutDone(host, ev)
		return nil
	}
	resend, report := h.resend, h.report
	h.resend, h.report = "", ""
	if ev.Refused != "" {
		if report != "" {
			host.System(report)
		}
		host.SystemError("The conversation was not cut back: " + ev.Refused + ".")
		return nil
	}
	h.hist = ev.Messages
	host.Redraw(ev.Messages)
	if report != "" {
		host.System(report)
	}
	host.System(fmt.Sprintf("Dropped %d message(s) from the conversation; the session file keeps them.", ev.Dropped))
	if resend != "" {
		return host.Send(resend)
	}
	return nil
}

// Retry is /retry: send the last message again, after asking
// whether to undo its turn's file changes first (when it made any).
func (h *History) Retry(host Host, arg string) tea.Cmd {
	if strings.TrimSpace(arg) != "" {
		host.SystemError("Usage: /retry")
		return nil
	}
	if host.Busy() {
		host.SystemError("Retry waits for the running turn; press Esc to interrupt it first.")
		return nil
	}
	last := -1
	for i := len(h.hist) - 1; i >= 0 && last < 0; i-- {
		if h.hist[i].PromptText() != "" {
			last = i
		}
	}
	if last < 0 {
		host.System("Nothing to retry: there is no message of yours in this conversation.")
		return nil
	}
	text := h.hist[last].PromptText()
	c := cutPoint{ok: true, at: last, prompt: text, dropped: len(h.hist) - last}
	rec := h.c.Checkpoints
	if rec == nil {
		return h.cutBack(host, c, text)
	}
	sess := host.Session()
	return func() tea.Msg { return retryPlan(rec, sess, c) }
}

// retryPlan plans undoing the retried message's turn, if its turn is the
// last one that changed files; with no such turn the card is skipped.
func retryPlan(rec *checkpoint.Recorder, sess string, c cutPoint) tea.Msg {
	pr := pendingRestore{kind: kindRetry, cut: c, resend: c.prompt}
	turns, err := rec.Turns(sess)
	if err != nil {
		return plannedMsg{pr: pr, err: err}
	}
	for i := len(turns) - 1; i >= 0; i-- {
		if t := turns[i]; !t.Undone {
			if len(t.Restores) > 0 || t.MessageIndex < c.at || !samePrompt(c.prompt, t.Prompt) {
				break
			}
			ctx, cancel := contextMinute()
			defer cancel()
			pr.p, err = rec.PlanUndo(ctx, sess, 1)
			return plannedMsg{pr: pr, err: err}
		}
	}
	return retryNow{pr}
}

// retryNow is a retry whose turn changed no files: no question to ask.
type retryNow struct{ pr pendingRestore }

// Edit is /edit (and Esc Esc on an empty composer): a list of the
// messages you typed, newest first; the one picked is put in the composer
// in a new session forked from before it.
func (h *History) Edit(host Host, arg string) tea.Cmd {
	if strings.TrimSpace(arg) != "" {
		host.SystemError("Usage: /edit (or Esc Esc on an empty composer)")
		return nil
	}
	if host.Busy() {
		host.SystemError("Editing a message waits for the running turn; press Esc to interrupt it first.")
		return nil
	}
	var items []views.Item
	for i := len(h.hist) - 1; i >= 0; i-- {
		if text := h.hist[i].PromptText(); text != "" {
			hint := fmt.Sprintf("%d message(s) after it", len(h.hist)-i-1)
			items = append(items, views.Item{Label: termtext.Truncate(termtext.OneLine(text), 60, "…"), Hint: hint,
				Value: strconv.Itoa(i)})
		}
	}
	if len(items) == 0 {
		host.System("No earlier messages to edit in this conversation.")
		return nil
	}
	p := views.NewPicker(h.c.Theme, editPicker, "Edit an earlier message — Enter forks the conversation from there", items, "")
	p.Filter = true
	host.Push(p)
	return nil
}

// EscOnEmpty is Esc on an empty, idle composer: a second one soon after
// opens the earlier messages.
func (h *History) EscOnEmpty(host Host) tea.Cmd {
	if host.Busy() || !h.typedSomething() {
		return nil
	}
	if now := h.c.Now(); now.Sub(h.escAt) <= escTwice {
		h.escAt = time.Time{}
		return h.Edit(host, "")
	}
	h.escAt = h.c.Now()
	return host.Status("Esc again to edit an earlier message", theme.Info)
}

// typedSomething reports whether the conversation has a message the user
// typed.
func (h *History) typedSomething() bool {
	for _, msg := range h.hist {
		if msg.Typed() {
			return true
		}
	}
	return false
}

// editPicked forks the conversation from before message i.
func (h *History) editPicked(v string) tea.Cmd {
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= len(h.hist) {
		return nil
	}
	text := h.hist[i].PromptText()
	h.editing = text
	h.c.Submit(engine.ForkSession{ID: h.c.NewID(), Keep: i, Prompt: text})
	return nil
}

// Fork is /fork [title]: continue in a copy of this session.
func (h *History) Fork(host Host, arg string) tea.Cmd {
	if host.Busy() {
		host.SystemError("Fork waits for the running turn; press Esc to interrupt it first.")
		return nil
	}
	if len(h.hist) == 0 {
		host.System("Nothing to fork yet: this conversation is empty.")
		return nil
	}
	h.forkTitle = strings.TrimSpace(arg)
	h.c.Submit(engine.ForkSession{ID: h.c.NewID(), Keep: -1})
	return nil
}

// sessionForked switches the UI to the fork: its transcript redrawn from
// the copied history, and an edited message back in the composer.
func (h *History) sessionForked(host Host, ev engine.SessionForked) tea.Cmd {
	editing, title := h.editing, h.forkTitle
	h.editing, h.forkTitle = "", ""
	if ev.Refused != "" {
		host.SystemError("No fork was made: " + ev.Refused + ".")
		return nil
	}
	h.hist = ev.Messages
	host.Forked(ev.SessionID)
	host.Redraw(ev.Messages)
	host.System(fmt.Sprintf("Forked session %s from %s (%d message(s) copied); %s is unchanged — /sessions opens it.",
		session.ShortID(ev.SessionID), session.ShortID(ev.From), ev.Kept, session.ShortID(ev.From)))
	if editing != "" {
		host.SetDraft(editing)
		host.System("Edit the message and press Enter to send it. The workspace's files are as they are now; /restore takes them back.")
	}
	if title != "" && ev.Kept > 0 {
		return h.renameTo(host, title)
	}
	return nil
}

// CutQuietly cuts the conversation back to before message keep, whose
// typed text is prompt, without redrawing the transcript: an interrupted
// message that went back to the composer leaves the conversation (the
// transcript already shows that).
func (h *History) CutQuietly(keep int, prompt string) {
	h.quietCut = true
	h.c.Submit(engine.RewindHistory{Keep: keep, Prompt: prompt})
}

// quietCutDone takes the engine's answer to CutQuietly's cut: the
// transcript already shows the cut, so it is not redrawn.
func (h *History) quietCutDone(host Host, ev engine.HistoryRewound) {
	h.quietCut = false
	if ev.Refused != "" {
		host.SystemError("The interrupted message stays in the conversation: " + ev.Refused + ".")
		return
	}
	h.hist = ev.Messages
}

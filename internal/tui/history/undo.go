package history

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// Taking turns back (/undo, /restore, /retry) goes in three steps, none of
// them blocking the UI: plan off the UI goroutine (which turns, which
// files, which of them changed outside codewhale since), ask the user on a
// Question card — files only or the conversation too, and whether to
// overwrite files changed outside codewhale — then carry the plan out and,
// if chosen, cut the conversation back (engine.RewindHistory).

// Kinds of pending restore, which also name their Question.
const (
	kindUndo    = "undo"
	kindRestore = "restore"
	kindRetry   = "retry"
)

// Answers on the cards.
const (
	answerFilesAndTalk = "files+conversation"
	answerFiles        = "files"
	answerKeepFiles    = "keep-files" // /retry without undoing the files
)

// pendingRestore is a plan waiting for the user's answer.
type pendingRestore struct {
	kind  string
	p     checkpoint.Pending
	force bool // /undo --force: overwriting is the default answer
	cut   cutPoint
	// resend is /retry's message, sent again once the conversation is cut.
	resend string
}

// plannedMsg carries a plan computed off the UI goroutine.
type plannedMsg struct {
	pr  pendingRestore
	err error
}

// carriedMsg is the result of carrying a plan out.
type carriedMsg struct {
	pr  pendingRestore
	cut bool // the user chose to cut the conversation back too
	res checkpoint.Undone
	err error
}

// diffMsg carries /diff's text to the pager.
type diffMsg struct {
	title, diff string
	err         error
}

// checkpoints is the recorder, or nil after saying why there is none.
func (h *History) checkpoints(host Host, what string) *checkpoint.Recorder {
	rec := h.c.Checkpoints
	if rec == nil {
		host.SystemError(what + " is not available: " + orText(h.c.CheckpointsOff, "checkpoints are off in this session"))
		return nil
	}
	if host.Busy() {
		host.SystemError(what + " waits for the running turn; press Esc to interrupt it first.")
		return nil
	}
	return rec
}

// Undo is /undo [n] [--force]: take back the file changes of the
// last n turns (default 1) that are not undone yet, asking first whether
// the conversation drops them too. Files changed outside codewhale since
// are shown and only overwritten when the user says so (--force makes
// that the default answer).
func (h *History) Undo(host Host, arg string) tea.Cmd {
	n, force := 1, false
	for _, f := range strings.Fields(arg) {
		switch {
		case f == "--force":
			force = true
		case isCount(f):
			n, _ = strconv.Atoi(f)
		default:
			host.SystemError("Usage: /undo [n] [--force]")
			return nil
		}
	}
	rec := h.checkpoints(host, "Undo")
	if rec == nil {
		return nil
	}
	session := host.Session()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		p, err := rec.PlanUndo(ctx, session, n)
		return plannedMsg{pr: pendingRestore{kind: kindUndo, p: p, force: force}, err: err}
	}
}

func isCount(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1 && n <= 100
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// planned shows the card that asks about a plan.
func (h *History) planned(host Host, msg plannedMsg) tea.Cmd {
	switch {
	case errors.Is(msg.err, checkpoint.ErrNothingToUndo):
		host.System("Nothing to undo: no turn of this session changed files that are not already undone.")
		return nil
	case msg.err != nil:
		host.SystemError(titleOf(msg.pr.kind) + " failed: " + msg.err.Error())
		return nil
	}
	pr := msg.pr
	if pr.kind != kindRetry {
		pr.cut = h.cutFor(pr.p.Oldest())
	}
	h.pending = &pr
	host.Push(restoreCard(h.c.Theme, pr))
	return nil
}

// answered carries out the user's answer to a card.
func (h *History) answered(host Host, kind, answer string) tea.Cmd {
	pr := h.pending
	h.pending = nil
	if pr == nil || pr.kind != kind {
		return nil
	}
	switch answer {
	case "":
		host.System("Nothing was changed.")
		return nil
	case answerKeepFiles:
		return h.cutBack(host, pr.cut, pr.resend)
	}
	rec, p := h.c.Checkpoints, *pr
	overwrite := len(p.p.Plan.Conflicts) > 0
	cut := answer == answerFilesAndTalk || pr.kind == kindRetry
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := rec.Carry(ctx, p.p, overwrite)
		return carriedMsg{pr: p, cut: cut, res: res, err: err}
	}
}

// carried reports what a restore did and, if chosen, cuts the
// conversation back.
func (h *History) carried(host Host, msg carriedMsg) tea.Cmd {
	what := describeTurns(msg.pr)
	switch {
	case msg.err != nil:
		host.SystemError(titleOf(msg.pr.kind) + " failed: " + msg.err.Error())
		return nil
	case !msg.res.Applied:
		var b strings.Builder
		fmt.Fprintf(&b, "Nothing was changed: %d file(s) changed outside codewhale while you decided:\n", len(msg.res.Conflicts))
		writeConflicts(&b, msg.res.Conflicts)
		b.WriteString("Run the command again to see them and decide.")
		host.SystemError(b.String())
		return nil
	}
	var b strings.Builder
	verb := "Undid the file changes of " + what
	if msg.pr.kind == kindRestore {
		verb = "Restored the workspace to before " + what
	}
	fmt.Fprintf(&b, "%s: %d file(s).", verb, len(msg.res.Restored))
	for i, c := range msg.res.Restored {
		if i == 12 {
			fmt.Fprintf(&b, "\n  … %d more (/diff)", len(msg.res.Restored)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s %s", verbOf(c.Kind), c.Path)
	}
	for _, c := range msg.res.Restored {
		if c.Note != "" {
			b.WriteString("\nNote: " + c.Note + ".")
		}
	}
	if len(msg.res.Conflicts) > 0 {
		fmt.Fprintf(&b, "\nOverwrote %d file(s) changed outside codewhale, as you chose.", len(msg.res.Conflicts))
	}
	if sk := skipped(msg.pr.p.Turns); len(sk) > 0 {
		fmt.Fprintf(&b, "\nLeft alone, never recorded: %s.", strings.Join(sk, "; "))
	}
	switch {
	case msg.cut:
	case msg.pr.kind == kindRestore:
		b.WriteString("\nThe conversation is unchanged; `/undo` takes the restore back.")
	default:
		b.WriteString("\nThe conversation still includes the turn; `/undo` again goes one turn further back.")
	}
	switch {
	case !msg.cut:
		host.System(b.String())
		return nil
	case !msg.pr.cut.ok:
		host.System(b.String())
		return h.cutBack(host, msg.pr.cut, msg.pr.resend) // says why
	}
	// The transcript is redrawn from the cut history; the report follows.
	h.report = b.String()
	return h.cutBack(host, msg.pr.cut, msg.pr.resend)
}

func verbOf(kind string) string {
	switch kind {
	case "added":
		return "restored"
	case "deleted":
		return "removed"
	}
	return "reverted"
}

func titleOf(kind string) string {
	switch kind {
	case kindRestore:
		return "Restore"
	case kindRetry:
		return "Retry"
	}
	return "Undo"
}

// describeTurns names what a plan takes back, for the report.
func describeTurns(pr pendingRestore) string {
	turns := pr.p.Turns
	switch {
	case pr.kind == kindRestore:
		return fmt.Sprintf("%q (%d turn(s) taken back)", turns[len(turns)-1].Prompt, len(turns))
	case len(turns) > 1:
		return fmt.Sprintf("the last %d turns", len(turns))
	}
	return fmt.Sprintf("the last turn (%q)", turns[0].Prompt)
}

// Diff is /diff [n]: everything this session's recorded turns changed
// in the workspace (or the last n turns'), as a coloured diff in the pager.
func (h *History) Diff(host Host, arg string) tea.Cmd {
	rec := h.c.Checkpoints
	if rec == nil {
		host.SystemError("/diff is not available: " + orText(h.c.CheckpointsOff, "checkpoints are off in this session"))
		return nil
	}
	n := 0
	if a := strings.TrimSpace(arg); a != "" {
		if !isCount(a) {
			host.SystemError("Usage: /diff [n]  (n: the last n turns; default: the whole session)")
			return nil
		}
		n, _ = strconv.Atoi(a)
	}
	session := host.Session()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		title, diff, err := sessionDiff(ctx, rec, session, n)
		return diffMsg{title, diff, err}
	}
}

// sessionDiff diffs the state before the chosen turns with the workspace now.
func sessionDiff(ctx context.Context, rec *checkpoint.Recorder, session string, n int) (string, string, error) {
	turns, err := rec.Turns(session)
	if err != nil {
		return "", "", err
	}
	if len(turns) == 0 {
		return "", "", errors.New("this session has changed no files yet")
	}
	from, title := turns[0], "Changes this session made"
	if n > 0 && n < len(turns) {
		from, title = turns[len(turns)-n], fmt.Sprintf("Changes of the last %d turn(s)", n)
	}
	now, err := rec.Store.Snapshot(ctx)
	if err != nil {
		return "", "", err
	}
	diff, err := rec.Store.Diff(ctx, from.Before, now.Tree)
	return title, diff, err
}

func (h *History) showDiff(host Host, msg diffMsg) tea.Cmd {
	if msg.err != nil {
		host.System("/diff: " + msg.err.Error())
		return nil
	}
	if strings.TrimSpace(msg.diff) == "" {
		host.System("No differences: the workspace is as it was before those turns.")
		return nil
	}
	p := views.NewPager(h.c.Theme, msg.title, msg.diff)
	p.LineStyle = h.c.Theme.DiffLine
	host.Push(p)
	return nil
}

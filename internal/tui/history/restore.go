package history

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// turnsMsg carries the session's recorded turns for the /restore picker.
type turnsMsg struct {
	turns []checkpoint.Turn
	err   error
}

// Restore is /restore: a picker of this session's recorded turns
// with the files each changed; the one picked is planned and asked about.
func (h *History) Restore(host Host, arg string) tea.Cmd {
	if strings.TrimSpace(arg) != "" {
		host.SystemError("Usage: /restore (then pick the turn to go back to before)")
		return nil
	}
	rec := h.checkpoints(host, "Restore")
	if rec == nil {
		return nil
	}
	sess := host.Session()
	return func() tea.Msg {
		turns, err := rec.Turns(sess)
		return turnsMsg{turns, err}
	}
}

func (h *History) showTurns(host Host, msg turnsMsg) tea.Cmd {
	if msg.err != nil {
		host.SystemError("Listing the recorded turns failed: " + msg.err.Error())
		return nil
	}
	now := h.c.Now()
	var items []views.Item
	for i := len(msg.turns) - 1; i >= 0; i-- {
		t := msg.turns[i]
		if t.Undone {
			continue
		}
		hint := session.Age(t.At, now) + " · " + filesHint(t.Files())
		items = append(items, views.Item{Label: termtext.Truncate(termtext.OneLine(t.Prompt), 40, "…"), Hint: hint, Value: t.TurnID})
	}
	if len(items) == 0 {
		host.System("Nothing to restore: no turn of this session changed files that are not already undone.")
		return nil
	}
	p := views.NewPicker(h.c.Theme, restoreTurn, "Restore the workspace to before a turn — Enter picks", items, "")
	p.Filter = true
	host.Push(p)
	return nil
}

// filesHint lists a turn's files compactly: "3 files: a.go, b.txt, +1".
func filesHint(files []checkpoint.Change) string {
	names := make([]string, 0, 3)
	for i, f := range files {
		if i == 3 {
			names = append(names, fmt.Sprintf("+%d", len(files)-3))
			break
		}
		names = append(names, kindMark(f.Kind)+" "+f.Path)
	}
	return fmt.Sprintf("%d file(s): %s", len(files), strings.Join(names, ", "))
}

func kindMark(kind string) string {
	switch kind {
	case "added":
		return "A"
	case "deleted":
		return "D"
	case "unchanged":
		return "="
	}
	return "M"
}

// restorePicked plans the restore to before the picked turn.
func (h *History) restorePicked(host Host, turnID string) tea.Cmd {
	rec := h.checkpoints(host, "Restore")
	if rec == nil {
		return nil
	}
	sess := host.Session()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		p, err := rec.PlanRestoreBefore(ctx, sess, turnID)
		return plannedMsg{pr: pendingRestore{kind: kindRestore, p: p}, err: err}
	}
}

// restoreCard asks about a plan: what it changes, what changed outside
// codewhale since (overwritten only on a yes, and then the default is
// Cancel), and for /undo and /restore whether the conversation goes back
// too.
func restoreCard(th *theme.Theme, pr pendingRestore) *views.Question {
	plan := pr.p.Plan
	var body []string
	for i, t := range pr.p.Turns {
		if i == 3 {
			body = append(body, fmt.Sprintf("… and %d earlier turn(s)", len(pr.p.Turns)-3))
			break
		}
		body = append(body, fmt.Sprintf("Turn %q", termtext.Truncate(termtext.OneLine(t.Prompt), 70, "…")))
	}
	body = append(body, fmt.Sprintf("Files put back (%d):", len(plan.Restore)))
	for i, c := range plan.Restore {
		if i == 8 {
			body = append(body, fmt.Sprintf("  … %d more", len(plan.Restore)-8))
			break
		}
		body = append(body, "  "+verbOf(c.Kind)+" "+c.Path)
	}
	if n := len(plan.Conflicts); n > 0 {
		body = append(body, fmt.Sprintf("%d file(s) changed outside codewhale since — a yes overwrites them:", n))
		for i, c := range plan.Conflicts {
			if i == 8 {
				body = append(body, fmt.Sprintf("  … %d more", n-8))
				break
			}
			body = append(body, "  "+c.Path+" — "+c.Reason)
		}
	}
	if sk := skipped(pr.p.Turns); len(sk) > 0 {
		body = append(body, fmt.Sprintf("Not recorded, so left as they are (%d): %s", len(sk), strings.Join(sk, "; ")))
	}
	body = append(body, talkLine(pr))
	options := cardOptions(pr)
	def := options[0].Value
	if len(plan.Conflicts) > 0 && !pr.force {
		def = ""
	}
	return views.NewQuestion(th, pr.kind, cardTitle(pr), body, options, def)
}

func cardTitle(pr pendingRestore) string {
	switch {
	case pr.kind == kindRetry:
		return "Retry the last message"
	case pr.kind == kindRestore:
		return "Restore the workspace to before this turn"
	case len(pr.p.Turns) > 1:
		return fmt.Sprintf("Undo the last %d turns", len(pr.p.Turns))
	}
	return "Undo the last turn"
}

// talkLine says what happens to the conversation.
func talkLine(pr pendingRestore) string {
	switch {
	case pr.kind == kindRetry:
		return "The message is sent again; its old answer leaves the conversation (the session file keeps it)."
	case pr.cut.ok:
		return fmt.Sprintf("Dropping the turn takes %d message(s) from %q on out of the conversation (the session file keeps them).",
			pr.cut.dropped, termtext.Truncate(termtext.OneLine(pr.cut.prompt), 30, "…"))
	}
	return "The conversation stays as it is: " + pr.cut.why + "."
}

func cardOptions(pr pendingRestore) []views.Item {
	files := "Undo the files"
	if pr.kind == kindRestore {
		files = "Restore the files"
	}
	if n := len(pr.p.Plan.Conflicts); n > 0 {
		files += fmt.Sprintf(" (overwriting %d changed outside codewhale)", n)
	}
	cancel := views.Item{Label: "Cancel — change nothing", Value: ""}
	switch {
	case pr.kind == kindRetry:
		return []views.Item{{Label: files + ", then retry", Value: answerFiles},
			{Label: "Keep the files as they are and retry", Value: answerKeepFiles}, cancel}
	case pr.cut.ok:
		return []views.Item{{Label: files + " and drop the turn from the conversation", Value: answerFilesAndTalk},
			{Label: files + ", keep the conversation", Value: answerFiles}, cancel}
	}
	return []views.Item{{Label: files, Value: answerFiles}, cancel}
}

func writeConflicts(b *strings.Builder, cs []checkpoint.Conflict) {
	for _, c := range cs {
		fmt.Fprintf(b, "  %s — %s\n", c.Path, c.Reason)
	}
}

// skipped lists the files the turns' snapshots left out (over the size
// limit), so the user knows a restore leaves them alone.
func skipped(turns []checkpoint.Turn) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range turns {
		for _, sk := range t.Skipped {
			if !seen[sk.Path] {
				seen[sk.Path] = true
				out = append(out, sk.Path+" ("+sk.Reason+")")
			}
		}
	}
	return out
}

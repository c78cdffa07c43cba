package tui

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

// undoneMsg is the result of /undo, computed off the UI goroutine.
type undoneMsg struct {
	res checkpoint.Undone
	err error
}

// diffMsg carries /diff's text to the pager.
type diffMsg struct {
	title, diff string
	err         error
}

// undoCommand is /undo [n] [--force]: take back the file changes of the
// last n turns (default 1) that are not undone yet. Files changed outside
// codewhale since are left alone and listed; --force overwrites them.
func (m *Model) undoCommand(arg string) tea.Cmd {
	rec := m.o.Checkpoints
	if rec == nil {
		m.systemError("Undo is not available: " + orText(m.o.CheckpointsOff, "checkpoints are off in this session"))
		return nil
	}
	if m.turn.busy {
		m.systemError("Undo waits for the running turn; press Esc to interrupt it first.")
		return nil
	}
	n, force := 1, false
	for _, f := range strings.Fields(arg) {
		switch {
		case f == "--force":
			force = true
		case isCount(f):
			n, _ = strconv.Atoi(f)
		default:
			m.systemError("Usage: /undo [n] [--force]")
			return nil
		}
	}
	session := m.session
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := rec.Undo(ctx, session, n, force)
		return undoneMsg{res, err}
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

// undone reports an /undo: what was reverted, or the conflicts that held it.
func (m *Model) undone(msg undoneMsg) tea.Cmd {
	switch {
	case errors.Is(msg.err, checkpoint.ErrNothingToUndo):
		m.system("Nothing to undo: no turn of this session changed files that are not already undone.")
		return nil
	case msg.err != nil:
		m.systemError("Undo failed: " + msg.err.Error())
		return nil
	}
	var b strings.Builder
	turns := msg.res.Turns
	label := fmt.Sprintf("the last turn (%q)", turns[0].Prompt)
	if len(turns) > 1 {
		label = fmt.Sprintf("the last %d turns", len(turns))
	}
	if !msg.res.Applied {
		fmt.Fprintf(&b, "Nothing was undone: %d file(s) changed outside codewhale since %s:\n", len(msg.res.Conflicts), label)
		for _, c := range msg.res.Conflicts {
			fmt.Fprintf(&b, "  %s — %s\n", c.Path, c.Reason)
		}
		b.WriteString("`/undo --force` reverts them too, overwriting those changes.")
		m.systemError(b.String())
		return nil
	}
	fmt.Fprintf(&b, "Undid the file changes of %s: %d file(s).", label, len(msg.res.Restored))
	for i, c := range msg.res.Restored {
		if i == 12 {
			fmt.Fprintf(&b, "\n  … %d more (/diff)", len(msg.res.Restored)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s %s", verbOf(c.Kind), c.Path)
	}
	if len(msg.res.Conflicts) > 0 {
		fmt.Fprintf(&b, "\nOverwrote %d file(s) changed outside codewhale (--force).", len(msg.res.Conflicts))
	}
	b.WriteString("\nThe conversation still includes the turn; `/undo` again goes one turn further back.")
	m.system(b.String())
	return nil
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

// diffCommand is /diff [n]: everything this session's recorded turns changed
// in the workspace (or the last n turns'), as a coloured diff in the pager.
func (m *Model) diffCommand(arg string) tea.Cmd {
	rec := m.o.Checkpoints
	if rec == nil {
		m.systemError("/diff is not available: " + orText(m.o.CheckpointsOff, "checkpoints are off in this session"))
		return nil
	}
	n := 0
	if a := strings.TrimSpace(arg); a != "" {
		if !isCount(a) {
			m.systemError("Usage: /diff [n]  (n: the last n turns; default: the whole session)")
			return nil
		}
		n, _ = strconv.Atoi(a)
	}
	session := m.session
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

func (m *Model) showDiff(msg diffMsg) tea.Cmd {
	if msg.err != nil {
		m.system("/diff: " + msg.err.Error())
		return nil
	}
	if strings.TrimSpace(msg.diff) == "" {
		m.system("No differences: the workspace is as it was before those turns.")
		return nil
	}
	p := views.NewPager(m.theme, msg.title, msg.diff)
	p.LineStyle = m.theme.DiffLine
	m.push(p)
	return nil
}

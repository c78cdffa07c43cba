package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tui/slash"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// openReasoning is Ctrl+O: the latest reasoning in a pager.
func (m *Model) openReasoning() tea.Cmd {
	c := m.tr.Last(transcript.Thinking)
	if c == nil {
		return m.status.set("No reasoning in this session yet", sevInfo)
	}
	m.stack.Push(views.NewPager(m.theme, "Reasoning", c.Text()))
	return nil
}

// openToolDetails is Alt+V: the latest tool call's full input and output.
func (m *Model) openToolDetails() tea.Cmd {
	c := m.tr.Last(transcript.Tool)
	if c == nil {
		return m.status.set("No tool call in this session yet", sevInfo)
	}
	t := c.Tool
	var b strings.Builder
	fmt.Fprintf(&b, "Tool: %s\nCall: %s\nStatus: %s\n\nInput:\n%s\n", t.Name, t.ID, toolState(t), views.PrettyJSON(t.Input))
	if t.Done {
		b.WriteString("\nOutput:\n" + t.Outcome.Content + "\n")
		if d := mutationDiff(t.Outcome.Metadata); d != "" {
			b.WriteString("\nDiff:\n" + d + "\n")
		}
	}
	m.stack.Push(views.NewPager(m.theme, "Tool Details: "+t.Name, b.String()))
	return nil
}

func toolState(t *transcript.ToolCall) string {
	switch {
	case !t.Done:
		return "running"
	case t.Failed():
		return "failed"
	}
	return "succeeded"
}

// mutationDiff is the full diff of a file mutation result, or "".
func mutationDiff(meta map[string]any) string {
	if mu := transcript.MutationOf(meta); mu != nil {
		return mu.Diff
	}
	return ""
}

// moveForegroundJob is Ctrl+B: running foreground Bash commands move to
// /jobs so the turn continues.
func (m *Model) moveForegroundJob() tea.Cmd {
	if m.o.Jobs == nil {
		return m.status.set("No foreground command to move", sevInfo)
	}
	var moved []string
	for _, s := range m.o.Jobs.List() {
		if s.Status == jobs.Running && !s.Background && !s.Stale {
			if m.o.Jobs.MoveToBackground(s.ID) == nil {
				moved = append(moved, s.ID)
			}
		}
	}
	if len(moved) == 0 {
		return m.status.set("No foreground command to move", sevInfo)
	}
	return m.status.set("Moved "+strings.Join(moved, ", ")+" to /jobs; the turn continues", sevSuccess)
}

// openHelp shows the help overlay.
func (m *Model) openHelp() {
	var entries []views.HelpEntry
	for _, c := range m.table.Registry().Commands() {
		key := "/" + c.Name
		if c.Usage != "" {
			key += " " + c.Usage
		}
		section := "Slash commands"
		if slash.IsUserRow(c) {
			section = "User commands"
		}
		entries = append(entries, views.HelpEntry{Section: section, Key: key, Text: c.Help})
	}
	entries = append(entries, keyHelp()...)
	m.stack.Push(views.NewHelp(m.theme, entries))
}

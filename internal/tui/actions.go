package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/commands"
	"github.com/codewhale/codewhale/internal/tui/slash"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// open pushes v, or says none on the status line when there is no v.
func (m *Model) open(v views.View, none string) tea.Cmd {
	if v == nil {
		return m.status.set(none, sevInfo)
	}
	m.stack.Push(v)
	return nil
}

// reasoningPager is Ctrl+O: the latest reasoning in a pager (nil: none).
func reasoningPager(th *theme.Theme, tr *transcript.Transcript) views.View {
	c := tr.Last(transcript.Thinking)
	if c == nil {
		return nil
	}
	return views.NewPager(th, "Reasoning", c.Text())
}

// toolDetailsPager is Alt+V: the latest tool call's full input and
// output (nil: none).
func toolDetailsPager(th *theme.Theme, tr *transcript.Transcript) views.View {
	c := tr.Last(transcript.Tool)
	if c == nil {
		return nil
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
	return views.NewPager(th, "Tool Details: "+t.Name, b.String())
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

// helpView is the help overlay: the commands of reg, then the keys.
func helpView(th *theme.Theme, reg *commands.Registry) views.View {
	var entries []views.HelpEntry
	for _, c := range reg.Commands() {
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
	return views.NewHelp(th, entries)
}

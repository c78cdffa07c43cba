package handoff

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/transcript"
)

// CopyLastReply is Alt+C: the latest assistant reply, as Markdown source.
func (h *Handoff) CopyLastReply(host Host, tr *transcript.Transcript) tea.Cmd {
	c := tr.Last(transcript.Assistant)
	if c == nil {
		return host.Status("No reply to copy yet", theme.Info)
	}
	return h.Copy(host, c.Text(), "the last reply")
}

// CopyLastCode is Alt+K: the last fenced code block of the latest reply
// that has one.
func (h *Handoff) CopyLastCode(host Host, tr *transcript.Transcript) tea.Cmd {
	cells := tr.Cells()
	for i := len(cells) - 1; i >= 0; i-- {
		if cells[i].Kind != transcript.Assistant {
			continue
		}
		if code, ok := lastCodeBlock(cells[i].Text()); ok {
			return h.Copy(host, code, "the last code block")
		}
	}
	return host.Status("No code block to copy yet", theme.Info)
}

// lastCodeBlock returns the body of the last fenced block in md.
func lastCodeBlock(md string) (string, bool) {
	var body []string
	var last string
	found, in, fence := false, false, ""
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case !in && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			in, fence, body = true, t[:3], nil
		case in && strings.HasPrefix(t, fence):
			in, found, last = false, true, strings.Join(body, "\n")
		case in:
			body = append(body, l)
		}
	}
	return last, found
}

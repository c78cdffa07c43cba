package attach

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// Outputs are the outputs of the person's own commands (a `!command`
// line) waiting for the next message: each is attached until that message
// is sent, and Alt+X leaves them out.
type Outputs struct {
	theme *theme.Theme
	list  []output
}

// output is one command's output.
type output struct {
	command string
	content string // what the Bash call returned, as the model would see it
	lines   int
}

// NewOutputs builds the list.
func NewOutputs(th *theme.Theme) *Outputs { return &Outputs{theme: th} }

// Add attaches a command's output (its result as the model would see it).
func (o *Outputs) Add(command, result string) {
	c := strings.TrimSpace(result)
	o.list = append(o.list, output{command: command, content: c, lines: strings.Count(c, "\n") + 1})
}

// Len is the number of attached outputs.
func (o *Outputs) Len() int { return len(o.list) }

// Take returns the attached outputs as the text that goes before the next
// message ("" when none), and detaches them.
func (o *Outputs) Take() string {
	var b strings.Builder
	for _, a := range o.list {
		fmt.Fprintf(&b, "I ran `%s` in the workspace:\n\n```\n%s\n```\n\n", a.command, a.content)
	}
	o.list = nil
	return b.String()
}

// Drop is Alt+X: the next message goes without the outputs.
func (o *Outputs) Drop(host Host) tea.Cmd {
	if len(o.list) == 0 {
		return nil
	}
	n := len(o.list)
	o.list = nil
	return host.Status(fmt.Sprintf("Left out the output of %d command(s); the next message goes without it", n), theme.Info)
}

// View is the preview line naming what the next message carries, width w.
func (o *Outputs) View(w int) string {
	last := o.list[len(o.list)-1]
	s := fmt.Sprintf("↳ Next message includes the output of !%s (%d lines)", termtext.OneLine(last.command), last.lines)
	if n := len(o.list); n > 1 {
		s = fmt.Sprintf("↳ Next message includes the output of %d commands, last !%s", n, termtext.OneLine(last.command))
	}
	return o.theme.Accent.Render(termtext.Truncate(s, w-22, "…")) + o.theme.Dim.Render(" · Alt+X leaves it out")
}

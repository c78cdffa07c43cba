package jobsview

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// Host is what the /jobs child needs of the root model.
type Host interface {
	// System and SystemError add a System cell to the transcript.
	System(text string)
	SystemError(text string)
	// Push opens a view on top of the modal stack.
	Push(v views.View)
	// Status shows text on the status line.
	Status(text string, sev theme.Severity) tea.Cmd
}

// MoveForeground is Ctrl+B: running foreground Bash commands move to
// /jobs so the turn continues.
func (c *Child) MoveForeground(h Host) tea.Cmd {
	var moved []string
	if c.jobs != nil {
		for _, s := range c.jobs.List() {
			if s.Status == jobs.Running && !s.Background && !s.Stale && c.jobs.MoveToBackground(s.ID) == nil {
				moved = append(moved, s.ID)
			}
		}
	}
	if len(moved) == 0 {
		return h.Status("No foreground command to move", theme.Info)
	}
	return h.Status("Moved "+strings.Join(moved, ", ")+" to /jobs; the turn continues", theme.Success)
}

// Child is /jobs as a child of the TUI: Command runs the action off the
// UI goroutine, Update shows its result.
type Child struct {
	theme  *theme.Theme
	jobs   *jobs.Manager  // nil lists no jobs
	agents *agent.Manager // nil: no sub-agent line
}

// New builds the child.
func New(th *theme.Theme, mgr *jobs.Manager, agents *agent.Manager) *Child {
	return &Child{theme: th, jobs: mgr, agents: agents}
}

// resultMsg is a /jobs result computed off the UI goroutine.
type resultMsg struct{ res Result }

// Command is /jobs [args].
func (c *Child) Command(arg string) tea.Cmd {
	mgr := c.jobs
	return func() tea.Msg {
		return resultMsg{res: Run(context.Background(), mgr, arg)}
	}
}

// Update shows a /jobs result; ok is false for any other message.
func (c *Child) Update(host Host, msg tea.Msg) (tea.Cmd, bool) {
	rm, ok := msg.(resultMsg)
	if !ok {
		return nil, false
	}
	r := rm.res
	switch {
	case r.PagerTitle != "":
		p := views.NewPager(c.theme, r.PagerTitle, r.PagerBody)
		p.Margin, p.MinWidth = 4, 60
		host.Push(p)
	case r.IsError:
		host.SystemError(r.Text)
	default:
		text := r.Text
		if line := AgentsLine(c.agents); line != "" {
			text += "\n" + line
		}
		host.System(text)
	}
	return nil, true
}

// AgentsLine is what /jobs adds about sub-agents: how many run and wait,
// and the launch pace ("" while there are none and nothing pushed back).
func AgentsLine(mgr *agent.Manager) string {
	if mgr == nil {
		return ""
	}
	running, queued := mgr.Counts()
	st := mgr.Admission().State()
	if running+queued == 0 && st.RateLimited == 0 {
		return ""
	}
	return fmt.Sprintf("Sub-agents: %d running, %d queued (agent status lists them). %s", running, queued, st.Line())
}

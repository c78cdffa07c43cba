// Package handoff is the TUI's child for text that leaves the UI and comes
// back: a copy to the clipboard (OSC 52, or tmux's own buffer inside
// tmux) and the draft handed to the external editor ($VISUAL, $EDITOR).
// Both run off the UI goroutine; their results come back to Update.
package handoff

import (
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/theme"
)

// Host is what the child needs of the root model.
type Host interface {
	// Status shows a message on the status line.
	Status(text string, sev theme.Severity) tea.Cmd
	// Edited puts the text saved in the external editor in the composer.
	Edited(text string) tea.Cmd
}

// Config is what the child is built with.
type Config struct {
	// Clipboard receives OSC 52 copy sequences (the terminal); nil drops
	// them.
	Clipboard io.Writer
	// Multiplexer is "tmux", "screen" or "" (DetectMultiplexer).
	Multiplexer string
	// Getenv reads $VISUAL and $EDITOR (required).
	Getenv func(string) string
	// In and Out are the terminal itself, handed to the editor (nil:
	// Bubble Tea's).
	In, Out *os.File
}

// Handoff is the child.
type Handoff struct{ c Config }

// New builds the child.
func New(c Config) *Handoff { return &Handoff{c: c} }

// Update takes a finished copy or edit; ok is false for any other
// message.
func (h *Handoff) Update(host Host, msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case copiedMsg:
		return copied(host, msg), true
	case editedMsg:
		if msg.err != nil {
			return host.Status(editorFailure(msg.name, msg.err), theme.Warning), true
		}
		return host.Edited(msg.text), true
	}
	return nil, false
}

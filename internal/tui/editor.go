package tui

import (
	"errors"
	"os"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"mvdan.cc/sh/v3/shell"
)

// editedMsg carries the composer text back from the external editor.
type editedMsg struct {
	text string
	err  error
}

// editorCommand is $VISUAL, else $EDITOR, split like a shell word list
// ("code --wait"); "" when neither is set.
func (m *Model) editorCommand() []string {
	getenv := m.o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, k := range []string{"VISUAL", "EDITOR"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			if words, err := shell.Fields(v, getenv); err == nil && len(words) > 0 {
				return words
			}
		}
	}
	return nil
}

// openEditor hands the composer text to the external editor (Ctrl+G,
// Ctrl+X Ctrl+E) and takes the saved file back. Bubble Tea releases the
// terminal while the editor runs.
func (m *Model) openEditor() tea.Cmd {
	argv := m.editorCommand()
	if argv == nil {
		return m.setStatus("Set $VISUAL or $EDITOR to edit the message in an editor", sevWarning)
	}
	f, err := os.CreateTemp("", "codewhale-message-*.md")
	if err != nil {
		return m.setStatus("Editor: "+err.Error(), sevWarning)
	}
	path := f.Name()
	_, werr := f.WriteString(m.comp.Expanded())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return m.setStatus("Editor: "+werr.Error(), sevWarning)
	}
	cmd := exec.Command(argv[0], append(argv[1:], path)...)
	return tea.ExecProcess(cmd, func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editedMsg{err: err}
		}
		b, rerr := os.ReadFile(path)
		return editedMsg{text: strings.TrimRight(string(b), "\n"), err: rerr}
	})
}

// edited puts the editor's text in the composer; a failed editor keeps
// the draft as it was.
func (m *Model) edited(msg editedMsg) tea.Cmd {
	if msg.err != nil {
		var ee *exec.ExitError
		if errors.As(msg.err, &ee) {
			return m.setStatus("The editor exited with status "+ee.String()+"; the draft is unchanged", sevWarning)
		}
		return m.setStatus("Editor: "+msg.err.Error()+"; the draft is unchanged", sevWarning)
	}
	m.comp.SetValue(msg.text)
	m.restored = false
	return tea.Batch(m.setStatus("Message taken back from the editor", sevInfo), m.refreshPopup())
}

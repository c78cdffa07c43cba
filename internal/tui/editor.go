package tui

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"mvdan.cc/sh/v3/shell"
)

// editedMsg carries the composer text back from the external editor.
type editedMsg struct {
	text string
	err  error
	name string // the editor's program name, for the failure text
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
// terminal while the editor runs; the editor gets the terminal itself on
// fds 0, 1 and 2 (Options.TTY), not the UI's wrapped output.
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
	_, werr := f.WriteString(editorFile(m.comp.Expanded()))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return m.setStatus("Editor: "+werr.Error(), sevWarning)
	}
	cmd := exec.Command(argv[0], append(argv[1:], path)...)
	if in := m.o.TTY.In; in != nil {
		cmd.Stdin = in
	}
	if out := m.o.TTY.Out; out != nil {
		cmd.Stdout, cmd.Stderr = out, out
	}
	name := filepath.Base(argv[0])
	return tea.ExecProcess(cmd, func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editedMsg{err: err, name: name}
		}
		b, rerr := os.ReadFile(path)
		return editedMsg{text: editorText(string(b)), err: rerr, name: name}
	})
}

// editorFile is the draft as a text file: ending in a newline, as editors
// write one (an empty draft stays empty).
func editorFile(draft string) string {
	if draft == "" || strings.HasSuffix(draft, "\n") {
		return draft
	}
	return draft + "\n"
}

// editorText is the saved file as a draft: the file's final newline is the
// line terminator editors add, so exactly one is removed; any newline
// before it is the person's and is kept.
func editorText(file string) string {
	if s, ok := strings.CutSuffix(file, "\r\n"); ok {
		return s
	}
	return strings.TrimSuffix(file, "\n")
}

// edited puts the editor's text in the composer; a failed editor keeps
// the draft as it was.
func (m *Model) edited(msg editedMsg) tea.Cmd {
	if msg.err != nil {
		return m.setStatus(editorFailure(msg.name, msg.err), sevWarning)
	}
	m.comp.SetValue(msg.text)
	m.modes.set(modeRestored, false)
	return tea.Batch(m.setStatus("Message taken back from the editor", sevInfo), m.refreshPopup())
}

// editorFailure says how the editor ended, once: "exited with status 1",
// "was killed by signal: terminated".
func editorFailure(name string, err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		how := fmt.Sprintf("exited with status %d", ee.ExitCode())
		if ee.ExitCode() < 0 {
			how = "was stopped (" + ee.String() + ")"
		}
		return fmt.Sprintf("The editor %s %s; the draft is unchanged", name, how)
	}
	return "Editor: " + err.Error() + "; the draft is unchanged"
}

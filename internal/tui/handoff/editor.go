package handoff

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/theme"
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
func (h *Handoff) editorCommand() []string {
	getenv := h.c.Getenv
	for _, k := range []string{"VISUAL", "EDITOR"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			if words, err := shell.Fields(v, getenv); err == nil && len(words) > 0 {
				return words
			}
		}
	}
	return nil
}

// Editor hands the composer text to the external editor (Ctrl+G,
// Ctrl+X Ctrl+E) and takes the saved file back. Bubble Tea releases the
// terminal while the editor runs; the editor gets the terminal itself on
// fds 0, 1 and 2 (Config.In and Out), not the UI's wrapped output.
func (h *Handoff) Editor(host Host, draft string) tea.Cmd {
	argv := h.editorCommand()
	if argv == nil {
		return host.Status("Set $VISUAL or $EDITOR to edit the message in an editor", theme.Warning)
	}
	f, err := os.CreateTemp("", "codewhale-message-*.md")
	if err != nil {
		return host.Status("Editor: "+err.Error(), theme.Warning)
	}
	path := f.Name()
	_, werr := f.WriteString(editorFile(draft))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return host.Status("Editor: "+werr.Error(), theme.Warning)
	}
	cmd := exec.Command(argv[0], append(argv[1:], path)...)
	if in := h.c.In; in != nil {
		cmd.Stdin = in
	}
	if out := h.c.Out; out != nil {
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

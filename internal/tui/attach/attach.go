// Package attach is the TUI's child for images in the composer
// (CONTRACT.md §14.11): Ctrl+V reads the clipboard's image, a paste or
// drop whose whole payload is image paths attaches them, /attach PATH
// attaches one; each becomes a chip above the composer,
// `[Image #1 1280×720 PNG 212 KB]`, and goes with the next message.
// Reading, decoding and scaling run in a command, off the UI goroutine,
// and come back to Update; a refusal is a status line and the composer
// stays as it was.
package attach

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/images"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// Host is what the child needs of the root model.
type Host interface {
	// Status shows a message on the status line.
	Status(text string, sev theme.Severity) tea.Cmd
	// Paste pastes text into the composer (the clipboard held text, not
	// an image).
	Paste(text string) tea.Cmd
}

// Config is what the child is built with.
type Config struct {
	Theme *theme.Theme
	// Workspace and Home bound the files a person may attach: the
	// workspace and its /trust roots.
	Workspace, Home string
	// Getenv reads WAYLAND_DISPLAY for the clipboard reader (required;
	// the root model defaults it).
	Getenv func(string) string
}

// Chip is one attached image.
type Chip struct {
	N     int
	Block provider.Block
}

// Label is the chip as the composer and the transcript show it.
func (c Chip) Label() string { return fmt.Sprintf("[Image #%d %s]", c.N, c.Block.Image.Size()) }

// Images is the composer's attached images and the reads in flight.
type Images struct {
	c       Config
	chips   []Chip
	next    int // the number of the last chip attached in this session
	pending int
}

// New builds the child.
func New(c Config) *Images { return &Images{c: c} }

// readMsg is one finished read: an image, clipboard text to paste, or why
// nothing was attached.
type readMsg struct {
	block *provider.Block // the image as a message block, built off the UI goroutine
	text  string
	err   error
}

// File starts reading the image at path (typed by the person) inside the
// File boundary: the workspace and its /trust roots.
func (im *Images) File(path string) tea.Cmd {
	im.pending++
	ws := tools.CanonicalPath(im.c.Workspace, im.c.Workspace)
	var trusted []string
	if im.c.Home != "" {
		trusted, _ = config.WorkspaceTrust(im.c.Home, im.c.Workspace)
	}
	return func() tea.Msg {
		p, err := images.File(context.Background(), ws, trusted, path, images.Options{})
		return read(p, filepath.Base(path), err)
	}
}

// Clipboard is Ctrl+V: the clipboard's image as a chip, or its text
// pasted when it holds no image.
func (im *Images) Clipboard() tea.Cmd {
	im.pending++
	cb := images.Clipboard{Workspace: im.c.Workspace, Getenv: im.c.Getenv}
	return func() tea.Msg {
		ctx := context.Background()
		clip, err := cb.Read(ctx)
		switch {
		case err != nil:
			return readMsg{err: err}
		case clip.Image == nil:
			return readMsg{text: clip.Text}
		}
		p, err := images.Prepare(ctx, clip.Image, images.Options{})
		return read(p, "clipboard", err)
	}
}

// read is a read's message: the block (its data URL encoded here, in the
// command, not in Update), or the error.
func read(p *images.Prepared, label string, err error) readMsg {
	if err != nil {
		return readMsg{err: err}
	}
	b := p.Block(label)
	return readMsg{block: &b}
}

// Update adds a finished read's chip, pastes clipboard text, or says why
// nothing was attached; the composer's text is left as it was. ok is
// false for any other message.
func (im *Images) Update(host Host, msg tea.Msg) (tea.Cmd, bool) {
	rm, ok := msg.(readMsg)
	if !ok {
		return nil, false
	}
	im.pending = max(im.pending-1, 0)
	switch {
	case rm.err != nil:
		return host.Status("Image not attached: "+termtext.OneLine(rm.err.Error()), theme.Warning), true
	case rm.block == nil:
		if strings.TrimSpace(rm.text) == "" {
			return host.Status("The clipboard holds no image or text", theme.Info), true
		}
		// A copied file's path (a file manager's copy) attaches it, as
		// the same text pasted by the terminal would.
		if cmd, ok := im.Pasted(rm.text); ok {
			return cmd, true
		}
		return host.Paste(rm.text), true
	}
	im.next++
	c := Chip{N: im.next, Block: *rm.block}
	im.chips = append(im.chips, c)
	return host.Status("Attached "+c.Label()+" · Backspace at the start of the composer removes it", theme.Info), true
}

// Command is /attach [PATH|clear]: a file, the clipboard's image (no
// argument), or remove every chip.
func (im *Images) Command(host Host, arg string) tea.Cmd {
	switch arg {
	case "":
		return im.Clipboard()
	case "clear":
		n := len(im.chips)
		im.chips = nil
		return host.Status(fmt.Sprintf("Removed %d image(s) from the next message", n), theme.Info)
	}
	return im.File(unquotePath(arg))
}

// DropLast is Backspace at the start of the composer: the last chip goes.
func (im *Images) DropLast(host Host) tea.Cmd {
	last := im.chips[len(im.chips)-1]
	im.chips = im.chips[:len(im.chips)-1]
	return host.Status("Removed "+last.Label(), theme.Info)
}

// Pasted attaches the image files a paste or a drop names, when its whole
// payload is such paths and each exists; ok is false for any other paste,
// which goes to the composer as text. An empty paste is a terminal that
// took Ctrl+V for its own paste with an image on the clipboard: the
// clipboard is read.
func (im *Images) Pasted(payload string) (tea.Cmd, bool) {
	if strings.TrimSpace(payload) == "" {
		return im.Clipboard(), true
	}
	paths := droppedPaths(payload)
	if len(paths) == 0 {
		return nil, false
	}
	for _, p := range paths {
		if _, err := os.Stat(tools.CanonicalPath(p, im.c.Workspace)); err != nil {
			return nil, false // not a file here: it is text
		}
	}
	cmds := make([]tea.Cmd, len(paths))
	for i, p := range paths {
		cmds[i] = im.File(p)
	}
	return tea.Batch(cmds...), true
}

// Chips are the attached images.
func (im *Images) Chips() []Chip { return im.chips }

// Len is the number of attached images.
func (im *Images) Len() int { return len(im.chips) }

// Reading reports whether a read is in flight.
func (im *Images) Reading() bool { return im.pending > 0 }

// Rows is the chip row when the layout gives it n > 0 rows.
func (im *Images) Rows(n, w int) []string {
	if n == 0 {
		return nil
	}
	return []string{im.View(w)}
}

// Wait says why a message with chips cannot go yet ("" when it can): a
// read in flight, or a running turn (busy).
func (im *Images) Wait(busy bool) string {
	switch {
	case im.Reading():
		return "Still reading an image: send once its chip shows"
	case busy:
		return "A turn is running: images go with a message sent after it ends (Esc interrupts it)"
	}
	return ""
}

// PutBack puts a cancelled message's chips back in front of the ones
// attached since.
func (im *Images) PutBack(chips []Chip) { im.chips = append(chips, im.chips...) }

// Take returns the chips' blocks for the message being sent and the lines
// the transcript shows for them, and empties the chips.
func (im *Images) Take() ([]provider.Block, []string) {
	var blocks []provider.Block
	var lines []string
	for _, c := range im.chips {
		blocks = append(blocks, c.Block)
		lines = append(lines, c.Label())
	}
	im.chips = nil
	return blocks, lines
}

// Visible reports whether the chip row is drawn.
func (im *Images) Visible() bool { return len(im.chips) > 0 || im.pending > 0 }

// View is the row above the composer naming the attached images, width w.
func (im *Images) View(w int) string {
	var parts []string
	for _, c := range im.chips {
		parts = append(parts, c.Label())
	}
	if im.pending > 0 {
		parts = append(parts, "[reading image…]")
	}
	th := im.c.Theme
	hint := " · Backspace removes · /attach clear"
	return th.Accent.Render(termtext.Truncate(strings.Join(parts, " "), max(w-len(hint), 10), "…")) + th.Dim.Render(hint)
}

// Lines are the chip lines of a stored message's images, numbered in
// order (a resumed transcript).
func Lines(msg provider.Message) []string {
	var out []string
	for i, b := range msg.Images() {
		if b.Image != nil {
			out = append(out, (Chip{N: i + 1, Block: b}).Label())
		}
	}
	return out
}

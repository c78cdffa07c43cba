package tui

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
)

// Images in the composer (CONTRACT.md §14.11): Ctrl+V reads the
// clipboard's image, a paste or drop whose whole payload is image paths
// attaches them, /attach PATH attaches one; each becomes a chip above the
// composer, `[Image #1 1280×720 PNG 212 KB]`, and goes with the next
// message. Reading, decoding and scaling run in a command, off the UI
// goroutine; a refusal is a status line and the composer stays as it was.

// chip is one attached image.
type chip struct {
	n     int
	block provider.Block
}

// label is the chip as the composer and the transcript show it.
func (c chip) label() string { return fmt.Sprintf("[Image #%d %s]", c.n, c.block.Image.Size()) }

// imageState is the composer's attached images and the reads in flight.
type imageState struct {
	chips   []chip
	next    int // the number of the last chip attached in this session
	pending int
}

// imageReadMsg is one finished read: an image, clipboard text to paste,
// or why nothing was attached.
type imageReadMsg struct {
	block *provider.Block // the image as a message block, built off the UI goroutine
	text  string
	err   error
}

// attachFile starts reading the image at path (typed by the person) inside
// the File boundary: the workspace and its /trust roots.
func (m *Model) attachFile(path string) tea.Cmd {
	m.imgs.pending++
	ws := tools.CanonicalPath(m.o.Workspace, m.o.Workspace)
	var trusted []string
	if m.o.Home != "" {
		trusted, _ = config.WorkspaceTrust(m.o.Home, m.o.Workspace)
	}
	return func() tea.Msg {
		p, err := images.File(context.Background(), ws, trusted, path, images.Options{})
		return readMsg(p, filepath.Base(path), err)
	}
}

// pasteClipboard is Ctrl+V: the clipboard's image as a chip, or its text
// pasted when it holds no image.
func (m *Model) pasteClipboard() tea.Cmd {
	m.imgs.pending++
	cb := images.Clipboard{Workspace: m.o.Workspace, Getenv: m.o.Getenv}
	if cb.Getenv == nil {
		cb.Getenv = os.Getenv
	}
	return func() tea.Msg {
		ctx := context.Background()
		clip, err := cb.Read(ctx)
		switch {
		case err != nil:
			return imageReadMsg{err: err}
		case clip.Image == nil:
			return imageReadMsg{text: clip.Text}
		}
		p, err := images.Prepare(ctx, clip.Image, images.Options{})
		return readMsg(p, "clipboard", err)
	}
}

// readMsg is a read's message: the block (its data URL encoded here, in
// the command, not in Update), or the error.
func readMsg(p *images.Prepared, label string, err error) imageReadMsg {
	if err != nil {
		return imageReadMsg{err: err}
	}
	b := p.Block(label)
	return imageReadMsg{block: &b}
}

// imageRead adds a finished read's chip, pastes clipboard text, or says
// why nothing was attached; the composer's text is left as it was.
func (m *Model) imageRead(msg imageReadMsg) tea.Cmd {
	m.imgs.pending = max(m.imgs.pending-1, 0)
	switch {
	case msg.err != nil:
		return m.setStatus("Image not attached: "+termtext.OneLine(msg.err.Error()), sevWarning)
	case msg.block == nil:
		if strings.TrimSpace(msg.text) == "" {
			return m.setStatus("The clipboard holds no image or text", sevInfo)
		}
		// A copied file's path (a file manager's copy) attaches it, as
		// the same text pasted by the terminal would.
		if cmd, ok := m.pastedImages(msg.text); ok {
			return cmd
		}
		return m.comp.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(msg.text), Paste: true})
	}
	m.imgs.next++
	c := chip{n: m.imgs.next, block: *msg.block}
	m.imgs.chips = append(m.imgs.chips, c)
	return m.setStatus("Attached "+c.label()+" · Backspace at the start of the composer removes it", sevInfo)
}

// attachCommand is /attach [PATH|clear]: a file, the clipboard's image
// (no argument), or remove every chip.
func (m *Model) attachCommand(arg string) tea.Cmd {
	switch arg {
	case "":
		return m.pasteClipboard()
	case "clear":
		n := len(m.imgs.chips)
		m.imgs.chips = nil
		return m.setStatus(fmt.Sprintf("Removed %d image(s) from the next message", n), sevInfo)
	}
	return m.attachFile(unquotePath(arg))
}

// dropChip is Backspace at the start of the composer: the last chip goes.
func (m *Model) dropChip() tea.Cmd {
	last := m.imgs.chips[len(m.imgs.chips)-1]
	m.imgs.chips = m.imgs.chips[:len(m.imgs.chips)-1]
	return m.setStatus("Removed "+last.label(), sevInfo)
}

// pastedImages attaches the image files a paste or a drop names, when its
// whole payload is such paths and each exists; ok is false for any other
// paste, which goes to the composer as text. An empty paste is a terminal
// that took Ctrl+V for its own paste with an image on the clipboard: the
// clipboard is read.
func (m *Model) pastedImages(payload string) (tea.Cmd, bool) {
	if strings.TrimSpace(payload) == "" {
		return m.pasteClipboard(), true
	}
	paths := droppedPaths(payload)
	if len(paths) == 0 {
		return nil, false
	}
	for _, p := range paths {
		if _, err := os.Stat(tools.CanonicalPath(p, m.o.Workspace)); err != nil {
			return nil, false // not a file here: it is text
		}
	}
	cmds := make([]tea.Cmd, len(paths))
	for i, p := range paths {
		cmds[i] = m.attachFile(p)
	}
	return tea.Batch(cmds...), true
}

// takeImages returns the chips' blocks for the message being sent and the
// lines the transcript shows for them, and empties the chips.
func (m *Model) takeImages() ([]provider.Block, []string) {
	var blocks []provider.Block
	var lines []string
	for _, c := range m.imgs.chips {
		blocks = append(blocks, c.block)
		lines = append(lines, c.label())
	}
	m.imgs.chips = nil
	return blocks, lines
}

// imagesWait says why a message with chips cannot go yet ("" when it
// can): a read in flight, or a running turn.
func (m *Model) imagesWait() string {
	switch {
	case m.imgs.pending > 0:
		return "Still reading an image: send once its chip shows"
	case m.turn.busy:
		return "A turn is running: images go with a message sent after it ends (Esc interrupts it)"
	}
	return ""
}

// visionRefusal is the route's NoVisionError when its model cannot take
// images, checked before the composer is emptied (the engine checks
// again); nil when it can, or when the server names the model.
func (m *Model) visionRefusal() error {
	if len(m.imgs.chips) == 0 || m.route.Model == "" {
		return nil
	}
	return m.meterTable().CheckVision(m.route.Model, m.route.Provider, provider.IsFirstParty(m.route.BaseURL))
}

// chipRow is the row above the composer naming the attached images.
func (m *Model) chipRow() string {
	var parts []string
	for _, c := range m.imgs.chips {
		parts = append(parts, c.label())
	}
	if m.imgs.pending > 0 {
		parts = append(parts, "[reading image…]")
	}
	hint := " · Backspace removes · /attach clear"
	return m.theme.Accent.Render(termtext.Truncate(strings.Join(parts, " "), max(m.w-len(hint), 10), "…")) + m.theme.Dim.Render(hint)
}

// chipsVisible reports whether the chip row is drawn.
func (m *Model) chipsVisible() bool { return len(m.imgs.chips) > 0 || m.imgs.pending > 0 }

// imageLines are the chip lines of a stored message's images, numbered in
// order (a resumed transcript).
func imageLines(msg provider.Message) []string {
	var out []string
	for i, b := range msg.Images() {
		if b.Image != nil {
			out = append(out, (chip{n: i + 1, block: b}).label())
		}
	}
	return out
}

// chipRows is the chip row when the layout gives it one.
func (m *Model) chipRows(n int) []string {
	if n == 0 {
		return nil
	}
	return []string{m.chipRow()}
}

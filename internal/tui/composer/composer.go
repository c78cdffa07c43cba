// Package composer is the TUI's multi-line input (CONTRACT.md §14.2): a bubbles
// textarea with the prompt glyph, soft wrapping and a height that follows
// the content, plus what the textarea lacks: large pastes folded into
// placeholders (so pasting a log never stalls the UI), prompt history,
// a clear-and-restore stash, and the token-under-cursor helpers the slash
// menu and the @-mention popup need.
package composer

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// Paste folding thresholds: a bracketed paste longer than either is kept
// out of the textarea and shown as a placeholder until it is sent.
const (
	foldRunes = 1000
	foldLines = 20
)

// Prompt is the first-line glyph.
const Prompt = "❯ "

// Composer is the input line.
type Composer struct {
	ta textarea.Model
	// pastes maps each placeholder to its paste for the whole session
	// (numbers never repeat), so a recalled or restored message expands.
	pastes  map[string]string
	pasteN  int
	history []string
	histPos int // == len(history) when not browsing
	stash   string

	// Drawing (layout.go): the styles and the first visible row.
	prompt, text, placeholder, cursor lipgloss.Style
	top                               int
	// blurred hides the cursor while another view has the keys (an
	// approval card the person focused), so the composer never looks like
	// it takes keys it does not get.
	blurred bool
}

// SetFocused says whether keys go to the composer: without them it is
// drawn with no cursor.
func (c *Composer) SetFocused(on bool) { c.blurred = !on }

// cursorStyle is how the cell under the cursor is drawn: reversed, or like
// the rest of the text while blurred.
func (c *Composer) cursorStyle(rest lipgloss.Style) lipgloss.Style {
	if c.blurred {
		return rest
	}
	return c.cursor
}

// New returns a focused, empty composer styled from t.
func New(t *theme.Theme) *Composer {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.MaxWidth = 0
	ta.SetPromptFunc(2, func(i int) string {
		if i == 0 {
			return Prompt
		}
		return "  "
	})
	plain := t.Style()
	st := textarea.Style{Base: plain, CursorLine: plain, CursorLineNumber: plain, EndOfBuffer: plain,
		LineNumber: plain, Placeholder: t.Dim, Prompt: t.Accent, Text: plain}
	ta.FocusedStyle, ta.BlurredStyle = st, st
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.KeyMap = keyMap()
	ta.Placeholder = "Write a task or use /."
	ta.Focus()
	ta.SetHeight(1)
	return &Composer{ta: ta, pastes: map[string]string{}, prompt: t.Accent, text: plain, placeholder: t.Dim,
		cursor: t.Style().Reverse(true)}
}

// keyMap is the textarea's map minus the keys the TUI binds globally
// (Enter sends, Ctrl+B /jobs, Ctrl+T effort, Ctrl+K palette, Ctrl+U clear,
// Ctrl+V paste, Ctrl+Home/End scroll, Alt+C copy).
func keyMap() textarea.KeyMap {
	k := textarea.DefaultKeyMap
	k.InsertNewline = key.NewBinding(key.WithKeys("ctrl+j", "alt+enter"))
	k.CharacterBackward = key.NewBinding(key.WithKeys("left"))
	k.WordForward = key.NewBinding(key.WithKeys("alt+right", "alt+f", "ctrl+right"))
	k.WordBackward = key.NewBinding(key.WithKeys("alt+left", "alt+b", "ctrl+left"))
	k.DeleteWordBackward = key.NewBinding(key.WithKeys("alt+backspace", "ctrl+w", "ctrl+backspace"))
	k.DeleteAfterCursor = key.NewBinding(key.WithDisabled())
	k.DeleteBeforeCursor = key.NewBinding(key.WithDisabled())
	k.InputBegin = key.NewBinding(key.WithKeys("alt+<"))
	k.InputEnd = key.NewBinding(key.WithKeys("alt+>"))
	// Ctrl+V is the TUI's: an image from the clipboard, else its text,
	// read with the OS's own tool (internal/images), never the textarea's
	// clipboard package, which runs whatever xclip PATH names first.
	k.Paste = key.NewBinding(key.WithDisabled())
	k.TransposeCharacterBackward = key.NewBinding(key.WithDisabled())
	k.CapitalizeWordForward = key.NewBinding(key.WithDisabled())
	k.LowercaseWordForward = key.NewBinding(key.WithDisabled())
	k.UppercaseWordForward = key.NewBinding(key.WithDisabled())
	return k
}

// SetWidth sets the total width including the prompt.
func (c *Composer) SetWidth(w int) { c.ta.SetWidth(max(w, 4)) }

// SetPlaceholder sets the empty-state hint.
func (c *Composer) SetPlaceholder(s string) { c.ta.Placeholder = s }

// Update handles a key or paste. Large pastes become placeholders;
// Ctrl+U clears into the stash and Ctrl+Z restores it while empty.
func (c *Composer) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case k.Paste:
			c.paste(string(k.Runes))
			return nil
		case k.Type == tea.KeyCtrlU:
			c.Clear()
			return nil
		case k.Type == tea.KeyCtrlZ:
			if c.Empty() && c.stash != "" {
				c.ta.SetValue(c.stash)
				c.stash = ""
			}
			return nil
		}
		c.histPos = len(c.history)
		if n := c.clusterRunes(k); n > 1 {
			// A move or delete over a multi-rune cluster (a flag, an emoji
			// sequence) takes the whole cluster.
			var cmds []tea.Cmd
			for i := 0; i < n; i++ {
				var cmd tea.Cmd
				c.ta, cmd = c.ta.Update(msg)
				cmds = append(cmds, cmd)
			}
			return tea.Batch(cmds...)
		}
	}
	var cmd tea.Cmd
	c.ta, cmd = c.ta.Update(msg)
	c.snapCursor()
	return cmd
}

// clusterRunes is how many runes key k moves over or deletes: the rune
// count of the cluster before the cursor for ← and Backspace, after it for →
// and Delete; 1 (or 0) for every other key.
func (c *Composer) clusterRunes(k tea.KeyMsg) int {
	km := c.ta.KeyMap
	back := key.Matches(k, km.CharacterBackward) || key.Matches(k, km.DeleteCharacterBackward)
	fwd := key.Matches(k, km.CharacterForward) || key.Matches(k, km.DeleteCharacterForward)
	if !back && !fwd {
		return 0
	}
	before, after, _, _ := boundary(c.currentLine(), c.cursorCol())
	if back {
		return before
	}
	return after
}

// snapCursor moves a cursor left inside a cluster (by ↑/↓, which the
// textarea does by cells) to the cluster's start.
func (c *Composer) snapCursor() {
	if _, _, inside, start := boundary(c.currentLine(), c.cursorCol()); inside {
		c.ta.SetCursor(start)
	}
}

// currentLine is the logical line the cursor is on.
func (c *Composer) currentLine() string {
	lines := strings.Split(c.ta.Value(), "\n")
	if row := c.ta.Line(); row < len(lines) {
		return lines[row]
	}
	return ""
}

// cursorCol is the cursor's rune offset in its logical line.
func (c *Composer) cursorCol() int {
	li := c.ta.LineInfo()
	return li.StartColumn + li.ColumnOffset
}

// paste inserts text, folding it into a placeholder when it is large.
func (c *Composer) paste(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	lines := strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1 // a final newline ends the last line
	if len([]rune(s)) <= foldRunes && lines <= foldLines {
		c.ta.InsertString(s)
		return
	}
	c.pasteN++
	ph := fmt.Sprintf("[Pasted text #%d: %d lines, %d chars]", c.pasteN, lines, len([]rune(s)))
	c.pastes[ph] = s
	c.ta.InsertString(ph)
}

// InsertString inserts s at the cursor.
func (c *Composer) InsertString(s string) { c.ta.InsertString(s) }

// Value is the text as shown (placeholders unexpanded).
func (c *Composer) Value() string { return c.ta.Value() }

// Empty reports whether there is no text.
func (c *Composer) Empty() bool { return c.ta.Length() == 0 }

// SetValue replaces the text; the cursor goes to the end.
func (c *Composer) SetValue(s string) {
	c.ta.SetValue(s)
	c.ta.CursorEnd()
}

// Fold is s as the composer shows it: each large paste it holds replaced
// by its placeholder (the transcript shows a sent message so, not the
// paste's hundreds of rows).
func (c *Composer) Fold(s string) string {
	for ph, p := range c.pastes {
		s = strings.ReplaceAll(s, p, ph)
	}
	return s
}

// Expanded is the text to send: placeholders replaced by their pastes.
func (c *Composer) Expanded() string {
	v := c.ta.Value()
	for ph, s := range c.pastes {
		v = strings.ReplaceAll(v, ph, s)
	}
	return v
}

// Submit returns the expanded text, records it in history and empties
// the composer.
func (c *Composer) Submit() string {
	v := c.Expanded()
	if strings.TrimSpace(c.ta.Value()) != "" {
		c.history = append(c.history, c.ta.Value())
	}
	c.ta.Reset()
	c.histPos = len(c.history)
	return v
}

// Discard empties the composer like Clear and also keeps the draft in
// history, so ↑ brings it back (Ctrl+C on a draft).
func (c *Composer) Discard() {
	c.Remember(c.ta.Value())
	c.Clear()
	c.histPos = len(c.history)
}

// Remember adds a line to history (a resumed session's prompts, a
// discarded draft), skipping blanks and a repeat of the newest entry.
func (c *Composer) Remember(line string) {
	if strings.TrimSpace(line) == "" || (len(c.history) > 0 && c.history[len(c.history)-1] == line) {
		return
	}
	c.history = append(c.history, line)
	c.histPos = len(c.history)
}

// Clear empties the composer into the stash (Ctrl+Z restores it).
func (c *Composer) Clear() {
	if !c.Empty() {
		c.stash = c.ta.Value()
	}
	c.ta.Reset()
}

// HistoryPrev recalls the previous entry when the composer is empty or
// shows an unedited history entry; it reports whether it did.
func (c *Composer) HistoryPrev() bool {
	browsing := c.histPos < len(c.history) && c.ta.Value() == c.history[c.histPos]
	if (!c.Empty() && !browsing) || c.histPos == 0 {
		return false
	}
	c.histPos--
	c.SetValue(c.history[c.histPos])
	return true
}

// HistoryNext moves forward in history while browsing.
func (c *Composer) HistoryNext() bool {
	if c.histPos >= len(c.history) || c.ta.Value() != c.history[c.histPos] {
		return false
	}
	c.histPos++
	if c.histPos == len(c.history) {
		c.ta.Reset()
	} else {
		c.SetValue(c.history[c.histPos])
	}
	return true
}

// OnFirstLine reports whether the cursor is on the first row.
func (c *Composer) OnFirstLine() bool { return c.layout().cursorRow == 0 }

// OnLastLine reports whether the cursor is on the last row.
func (c *Composer) OnLastLine() bool {
	l := c.layout()
	return l.cursorRow == len(l.rows)-1
}

// TokenBeforeCursor is the run of non-space characters ending at the
// cursor on its line.
func (c *Composer) TokenBeforeCursor() string {
	lines := strings.Split(c.ta.Value(), "\n")
	row := c.ta.Line()
	if row >= len(lines) {
		return ""
	}
	r := []rune(lines[row])
	col := min(c.cursorCol(), len(r))
	start := col
	for start > 0 && r[start-1] != ' ' && r[start-1] != '\t' {
		start--
	}
	return string(r[start:col])
}

// ReplaceTokenBeforeCursor swaps the token before the cursor for s.
func (c *Composer) ReplaceTokenBeforeCursor(s string) {
	n := len([]rune(c.TokenBeforeCursor()))
	for i := 0; i < n; i++ {
		c.ta, _ = c.ta.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	}
	c.ta.InsertString(s)
}

// Rows is the number of display rows the text needs at the current width,
// at least 1.
func (c *Composer) Rows() int { return max(len(c.layout().rows), 1) }

// layout lays the text out at the current width (layout.go).
func (c *Composer) layout() layout {
	return layoutText(c.ta.Value(), c.ta.Width(), c.ta.Line(), c.cursorCol())
}

// View renders the composer at height rows: the prompt on the first row,
// the text wrapped by grapheme cluster, the cursor as a reversed cell, and
// the window scrolled to keep the cursor in sight (it starts at the first
// row whenever the text fits, so a first line is never left hidden).
func (c *Composer) View(height int) string {
	height = max(height, 1)
	w := max(c.ta.Width(), 1)
	if c.Empty() {
		return c.placeholderView(height, w)
	}
	l := c.layout()
	c.top = min(max(c.top, 0), max(len(l.rows)-height, 0))
	if l.cursorRow < c.top {
		c.top = l.cursorRow
	}
	if l.cursorRow >= c.top+height {
		c.top = l.cursorRow - height + 1
	}
	out := make([]string, height)
	for i := range out {
		ri := c.top + i
		var b strings.Builder
		b.WriteString(c.promptFor(ri))
		if ri >= len(l.rows) {
			b.WriteString(strings.Repeat(" ", w))
			out[i] = b.String()
			continue
		}
		r := l.rows[ri]
		used := r.width
		if ri == l.cursorRow {
			used = c.writeCursorRow(&b, &l, r, l.cursorCol)
		} else {
			b.WriteString(c.text.Render(l.text(r)))
		}
		b.WriteString(strings.Repeat(" ", max(w-used, 0)))
		out[i] = b.String()
	}
	return strings.Join(out, "\n")
}

func (c *Composer) promptFor(row int) string {
	if row == 0 {
		return c.prompt.Render(Prompt)
	}
	return c.prompt.Render("  ")
}

// writeCursorRow draws row r with the cursor at cell col: the cluster there
// reversed, or a reversed space past the row's end. It returns the cells
// drawn.
func (c *Composer) writeCursorRow(b *strings.Builder, l *layout, r row, col int) int {
	cs := l.lines[r.line][r.from:r.to]
	cell, i := 0, 0
	var before strings.Builder
	for ; i < len(cs) && cell < col; i++ {
		before.WriteString(cs[i].text)
		cell += cs[i].width
	}
	b.WriteString(c.text.Render(before.String()))
	if i >= len(cs) {
		b.WriteString(c.cursorStyle(c.text).Render(" "))
		return cell + 1
	}
	b.WriteString(c.cursorStyle(c.text).Render(cs[i].text))
	var after strings.Builder
	for _, x := range cs[i+1:] {
		after.WriteString(x.text)
	}
	b.WriteString(c.text.Render(after.String()))
	return r.width
}

// placeholderView is the empty composer: the cursor on the hint's first
// cell, the hint dimmed.
func (c *Composer) placeholderView(height, w int) string {
	c.top = 0
	hint := []rune(c.ta.Placeholder)
	first, rest := " ", ""
	if len(hint) > 0 {
		first, rest = string(hint[0]), string(hint[1:])
	}
	line := c.cursorStyle(c.placeholder).Render(first) + c.placeholder.Render(rest)
	out := []string{c.promptFor(0) + line + strings.Repeat(" ", max(w-termtext.Width(first+rest), 0))}
	for i := 1; i < height; i++ {
		out = append(out, c.promptFor(i)+strings.Repeat(" ", w))
	}
	return strings.Join(out, "\n")
}

// AtStart reports whether the cursor is before the first character.
func (c *Composer) AtStart() bool { return c.ta.Line() == 0 && c.cursorCol() == 0 }

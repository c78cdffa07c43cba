// Package composer is the TUI's multi-line input (tui.md §2.3): a bubbles
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
	ta      textarea.Model
	pastes  map[string]string
	pasteN  int
	history []string
	histPos int // == len(history) when not browsing
	stash   string
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
	return &Composer{ta: ta, pastes: map[string]string{}}
}

// keyMap is the textarea's map minus the keys the TUI binds globally
// (Enter sends, Ctrl+B /jobs, Ctrl+T effort, Ctrl+K palette, Ctrl+U clear,
// Ctrl+Home/End scroll, Alt+C copy).
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
	}
	var cmd tea.Cmd
	c.ta, cmd = c.ta.Update(msg)
	return cmd
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
	c.pastes = map[string]string{}
	c.histPos = len(c.history)
	return v
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
func (c *Composer) OnFirstLine() bool { return c.ta.Line() == 0 && c.ta.LineInfo().RowOffset == 0 }

// OnLastLine reports whether the cursor is on the last row.
func (c *Composer) OnLastLine() bool {
	li := c.ta.LineInfo()
	return c.ta.Line() == c.ta.LineCount()-1 && li.RowOffset == li.Height-1
}

// TokenBeforeCursor is the run of non-space characters ending at the
// cursor on its line.
func (c *Composer) TokenBeforeCursor() string {
	lines := strings.Split(c.ta.Value(), "\n")
	row := c.ta.Line()
	if row >= len(lines) {
		return ""
	}
	li := c.ta.LineInfo()
	r := []rune(lines[row])
	col := min(li.StartColumn+li.CharOffset, len(r))
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
func (c *Composer) Rows() int {
	w := max(c.ta.Width(), 1)
	n := 0
	for _, l := range strings.Split(c.ta.Value(), "\n") {
		n += termtext.Width(l)/w + 1
	}
	return max(n, 1)
}

// View renders the composer at height rows.
func (c *Composer) View(height int) string {
	height = max(height, 1)
	if h := c.ta.Height(); h != height {
		c.ta.SetHeight(height)
		if height > h && c.Rows() <= height {
			c.rewind()
		}
	}
	return c.ta.View()
}

// rewind scrolls the textarea back to its first row, keeping the cursor.
// The textarea scrolls to follow the cursor while it is one row high and
// never scrolls back when it grows, so after Alt+Enter the first line
// stayed hidden until ↑ (issue 14). Resetting is its only way to the top.
func (c *Composer) rewind() {
	row, li := c.ta.Line(), c.ta.LineInfo()
	col := li.StartColumn + li.CharOffset
	v := c.ta.Value()
	c.ta.Reset()
	c.ta.InsertString(v)
	for c.ta.Line() > row {
		c.ta.CursorUp()
	}
	c.ta.SetCursor(col)
}

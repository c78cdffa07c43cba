package composer_test

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/codewhale/codewhale/internal/tui/composer"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

func typed(c *composer.Composer, s string) {
	for _, r := range s {
		c.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func TestLargePasteIsFoldedAndExpandedOnSubmit(t *testing.T) {
	t.Parallel()
	c := composer.New(theme.Plain())
	c.SetWidth(80)
	typed(c, "look: ")
	big := strings.Repeat("log line with some text\n", 5000)
	c.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(big), Paste: true})
	if got := c.Value(); got != "look: [Pasted text #1: 5000 lines, 120000 chars]" {
		t.Fatalf("shown value = %q", got)
	}
	if c.Rows() != 1 {
		t.Errorf("a folded paste takes one row, got %d", c.Rows())
	}
	if got := c.Submit(); got != "look: "+big {
		t.Errorf("submitted %d chars, want the paste expanded", len(got))
	}
	if !c.Empty() {
		t.Error("submit empties the composer")
	}
}

func TestSmallPasteIsInsertedAsText(t *testing.T) {
	t.Parallel()
	c := composer.New(theme.Plain())
	c.SetWidth(80)
	c.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("one\r\ntwo"), Paste: true})
	if got := c.Value(); got != "one\ntwo" {
		t.Errorf("value = %q", got)
	}
	if c.Rows() != 2 {
		t.Errorf("rows = %d", c.Rows())
	}
}

func TestNewlineKeysAndHistoryAndStash(t *testing.T) {
	t.Parallel()
	c := composer.New(theme.Plain())
	c.SetWidth(80)
	typed(c, "a")
	c.Update(tea.KeyMsg{Type: tea.KeyCtrlJ})
	typed(c, "b")
	c.Update(tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
	typed(c, "c")
	if got := c.Value(); got != "a\nb\nc" {
		t.Fatalf("Ctrl+J and Alt+Enter insert newlines: %q", got)
	}
	c.Submit()
	typed(c, "second")
	c.Submit()
	if !c.HistoryPrev() || c.Value() != "second" || !c.HistoryPrev() || c.Value() != "a\nb\nc" {
		t.Errorf("history: %q", c.Value())
	}
	if !c.HistoryNext() || c.Value() != "second" || !c.HistoryNext() || !c.Empty() {
		t.Errorf("history forward: %q", c.Value())
	}
	typed(c, "draft")
	c.Update(tea.KeyMsg{Type: tea.KeyCtrlU})
	if !c.Empty() {
		t.Fatal("Ctrl+U clears")
	}
	c.Update(tea.KeyMsg{Type: tea.KeyCtrlZ})
	if c.Value() != "draft" {
		t.Errorf("Ctrl+Z restores the stash: %q", c.Value())
	}
}

func TestTokenBeforeCursorAndReplace(t *testing.T) {
	t.Parallel()
	c := composer.New(theme.Plain())
	c.SetWidth(80)
	typed(c, "read @cmd/ro")
	if got := c.TokenBeforeCursor(); got != "@cmd/ro" {
		t.Fatalf("token = %q", got)
	}
	c.ReplaceTokenBeforeCursor("@cmd/root.go ")
	if got := c.Value(); got != "read @cmd/root.go " {
		t.Errorf("value = %q", got)
	}
}

// A new line typed into a one-row composer leaves the first line in view
// (issue 14: it stayed hidden until ↑), with the cursor where it was.
func TestNewLineKeepsTheFirstLineVisible(t *testing.T) {
	t.Parallel()
	c := composer.New(theme.Plain())
	c.SetWidth(40)
	typed(c, "first")
	_ = c.View(c.Rows())
	c.Update(tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
	typed(c, "second")
	out := c.View(c.Rows())
	if !strings.Contains(out, "❯ first") || !strings.Contains(out, "second") {
		t.Fatalf("composer after Alt+Enter:\n%s", out)
	}
	typed(c, "!")
	if got := c.Value(); got != "first\nsecond!" {
		t.Errorf("the cursor moved: %q", got)
	}
}

// A pasted block of 500 lines ending in a newline is 500 lines.
func TestPasteLineCountIgnoresTheFinalNewline(t *testing.T) {
	t.Parallel()
	c := composer.New(theme.Plain())
	c.SetWidth(80)
	c.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(strings.Repeat("x\n", 500)), Paste: true})
	if got := c.Value(); !strings.Contains(got, ": 500 lines,") {
		t.Errorf("placeholder = %q", got)
	}
}

// A flag is two regional indicators and one wide character: at the wrap
// edge it moves to the next row whole, every row fits the width, and ←,
// → and Backspace take it as one character (issue 14).
func TestFlagAtTheWrapEdgeStaysWhole(t *testing.T) {
	t.Parallel()
	const w = 12 // 10 cells of text after the prompt
	for pad := 6; pad <= 10; pad++ {
		c := composer.New(theme.Plain())
		c.SetWidth(w)
		text := strings.Repeat("a", pad) + "🇯🇵" + "b"
		typed(c, text)
		view := c.View(4)
		var rows []string
		for _, r := range strings.Split(view, "\n") {
			if got := termtext.Width(r); got > w {
				t.Errorf("pad %d: row %q is %d cells, over %d", pad, r, got, w)
			}
			rows = append(rows, strings.TrimRight(strings.TrimPrefix(strings.TrimPrefix(r, composer.Prompt), "  "), " "))
		}
		joined := strings.Join(rows, "")
		if !strings.Contains(joined, "🇯🇵") {
			t.Errorf("pad %d: the flag was split: %q", pad, rows)
		}
		for _, r := range rows {
			if strings.Count(r, "🇯")+strings.Count(r, "🇵") == 1 {
				t.Errorf("pad %d: half a flag on row %q", pad, r)
			}
		}
	}
	c := composer.New(theme.Plain())
	c.SetWidth(w)
	typed(c, "x🇯🇵y")
	c.Update(tea.KeyMsg{Type: tea.KeyLeft})
	c.Update(tea.KeyMsg{Type: tea.KeyLeft}) // over the flag, not into it
	typed(c, "|")
	if got := c.Value(); got != "x|🇯🇵y" {
		t.Errorf("← crossed the flag as %q", got)
	}
	c.Update(tea.KeyMsg{Type: tea.KeyRight})
	c.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	if got := c.Value(); got != "x|y" {
		t.Errorf("backspace after the flag left %q", got)
	}
}

// After Alt+Enter the composer shows its first line (issue 14): the window
// starts at the first row whenever the text fits.
func TestGrowingComposerShowsTheFirstLine(t *testing.T) {
	t.Parallel()
	c := composer.New(theme.Plain())
	c.SetWidth(40)
	typed(c, "first")
	_ = c.View(1)
	c.Update(tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
	typed(c, "second")
	_ = c.View(1) // one row: the cursor's
	view := c.View(c.Rows())
	if !strings.Contains(view, "first") || !strings.Contains(view, "second") {
		t.Errorf("view = %q, want both lines", view)
	}
}

// A composer without the keys (a focused approval card has them) is drawn
// without its cursor, so it never looks like it takes what is typed.
func TestBlurredComposerHasNoCursor(t *testing.T) {
	t.Parallel()
	c := composer.New(theme.New(theme.Options{Profile: termenv.TrueColor, Dark: true}))
	c.SetWidth(40)
	for _, text := range []string{"", "a draft"} {
		c.SetValue(text)
		if !strings.Contains(c.View(1), "\x1b[7m") {
			t.Errorf("%q: the focused composer draws no cursor: %q", text, c.View(1))
		}
		c.SetFocused(false)
		if strings.Contains(c.View(1), "\x1b[7m") {
			t.Errorf("%q: the blurred composer draws a cursor: %q", text, c.View(1))
		}
		c.SetFocused(true)
	}
}

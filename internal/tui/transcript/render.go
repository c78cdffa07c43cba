package transcript

import (
	"fmt"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/mdterm"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// Glyphs of the transcript.
const (
	GlyphUser      = "▎"
	GlyphAssistant = "●"
	GlyphRail      = "╎ "
	GlyphDone      = "✓"
	GlyphFailed    = "✕"
	GlyphAttention = "◆"
	GlyphQueued    = "◇" // a call waiting behind another's approval card
)

// SpinnerFrames animate running work; LowMotionFrame replaces them when
// animation is off.
var SpinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// LowMotionFrame is the static running marker.
const LowMotionFrame = "◌"

// Thinking preview bounds.
const (
	thinkingDoneLines = 10
)

// Env is what rendering depends on besides a cell's own state. Changing a
// field that affects every cell must be followed by Transcript.Invalidate.
type Env struct {
	Theme    *theme.Theme
	Markdown *mdterm.Renderer
	// Verbose shows reasoning text instead of the one-line summary.
	Verbose bool
	// Now is the clock for live durations.
	Now func() time.Time
	// Frame selects the spinner frame; LowMotion pins it.
	Frame     int
	LowMotion bool
}

// Spinner is the current running marker.
func (e *Env) Spinner() string {
	if e.LowMotion {
		return LowMotionFrame
	}
	return SpinnerFrames[e.Frame%len(SpinnerFrames)]
}

// Tick advances the spinner one frame; in low motion it stays still (live
// durations still update, since every tick redraws).
func (e *Env) Tick() {
	if e.LowMotion {
		e.Frame = 0
		return
	}
	e.Frame++
}

// render draws a cell at width w.
func (e *Env) render(c *Cell, w int) []string {
	switch c.Kind {
	case User:
		return e.renderUser(c, w)
	case Assistant:
		return e.renderAssistant(c, w)
	case Thinking:
		return e.renderThinking(c, w)
	case Tool:
		return e.renderTool(c, w)
	case Error:
		return e.renderError(c, w)
	case Notice:
		return e.renderNotice(c, w)
	default:
		return e.renderSystem(c, w)
	}
}

// prefixed wraps text to w minus the gutter and prefixes each row.
func prefixed(rows []string, first, rest string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		p := rest
		if i == 0 {
			p = first
		}
		if r == "" {
			p = strings.TrimRight(p, " ") // no trailing blanks on empty rows
		}
		out[i] = p + r
	}
	return out
}

func wrapLines(text string, w int) []string {
	var rows []string
	for _, l := range strings.Split(text, "\n") {
		rows = append(rows, termtext.WrapPlain(l, w)...)
	}
	return rows
}

func (e *Env) renderUser(c *Cell, w int) []string {
	bar := e.Theme.User.Render(GlyphUser) + " "
	rows := wrapLines(strings.TrimRight(c.Text(), "\n"), w-2)
	for i, r := range rows {
		rows[i] = bar + e.Theme.Text.Render(r)
	}
	return rows
}

func (e *Env) renderAssistant(c *Cell, w int) []string {
	body := e.assistantBody(c, w-2)
	if len(body) == 0 {
		body = []string{""}
	}
	if c.Streaming {
		body[len(body)-1] += e.Theme.Dim.Render("▍")
	}
	rows := prefixed(body, e.Theme.Assistant.Render(GlyphAssistant)+" ", "  ")
	if c.Interrupted {
		rows = append(rows, "  "+e.Theme.Warning.Render("⎿ interrupted"))
	}
	return rows
}

// assistantBody renders Markdown. While streaming, the stable head is
// rendered once per new paragraph and cached; the unfinished tail is
// rendered as Markdown too at each delta (it is one paragraph or one open
// code block, which is not highlighted until it closes).
func (e *Env) assistantBody(c *Cell, w int) []string {
	text := c.Text()
	if !c.Streaming {
		return e.Markdown.Render(text, w)
	}
	head, tail := mdterm.SplitStable(text)
	if c.head.n != len(head) || c.head.width != w {
		c.head = headCache{n: len(head), width: w}
		if head != "" {
			c.head.lines = e.Markdown.Render(head, w)
		}
	}
	rows := append([]string(nil), c.head.lines...)
	if t := strings.TrimLeft(tail, "\n"); t != "" {
		if len(rows) > 0 {
			rows = append(rows, "")
		}
		rows = append(rows, e.Markdown.RenderTail(t, w)...)
	}
	return rows
}

func (e *Env) renderThinking(c *Cell, w int) []string {
	state, dur := "done", c.Ended.Sub(c.Started)
	if c.Streaming {
		state, dur = "live", e.Now().Sub(c.Started)
	}
	label := "reasoning " + state
	if !e.Verbose && c.Streaming {
		label = "reasoning hidden"
	}
	head := "… " + label
	if c.Streaming || !c.Started.IsZero() {
		head += " · " + FormatDuration(dur) // a resumed cell has no timing to show
	}
	header := e.Theme.Reasoning.Render(termtext.Truncate(head, w, "…"))
	if !e.Verbose {
		return []string{header}
	}
	body := wrapLines(strings.TrimSpace(c.Text()), w-2)
	more := 0
	if !c.Streaming && len(body) > thinkingDoneLines {
		more = len(body) - thinkingDoneLines
		body = body[:thinkingDoneLines]
	}
	rows := []string{header}
	rail := e.Theme.Dim.Render(GlyphRail)
	for _, b := range body {
		rows = append(rows, rail+e.Theme.Reasoning.Render(b))
	}
	if more > 0 {
		rows = append(rows, rail+e.Theme.Dim.Render(fmt.Sprintf("… %d more lines · Ctrl+O to read all", more)))
	}
	return rows
}

func (e *Env) renderError(c *Cell, w int) []string {
	label, style := "Error:", e.Theme.Error
	switch c.Severity {
	case "warning":
		label, style = "Warning:", e.Theme.Warning
	case "info":
		label, style = "Info:", e.Theme.Info
	}
	rows := wrapLines(c.Text(), w-len(label)-1)
	pad := strings.Repeat(" ", len(label)+1)
	return prefixed(rows, style.Render(label)+" ", pad)
}

func (e *Env) renderSystem(c *Cell, w int) []string {
	rows := wrapLines(strings.TrimRight(c.Text(), "\n"), w)
	for i, r := range rows {
		if strings.HasPrefix(r, "Error: ") {
			rows[i] = e.Theme.Error.Render("Error:") + e.Theme.Dim.Render(r[len("Error:"):])
			continue
		}
		rows[i] = e.Theme.Dim.Render(r)
	}
	return rows
}

func (e *Env) renderNotice(c *Cell, w int) []string {
	rows := wrapLines(strings.TrimRight(c.Text(), "\n"), w-2)
	for i, r := range rows {
		style := e.Theme.Text
		if i == 0 {
			style = e.Theme.Warning
		}
		rows[i] = e.Theme.Warning.Render(GlyphAttention) + " " + style.Render(r)
		if i > 0 {
			rows[i] = "  " + style.Render(r)
		}
	}
	return rows
}

// FormatDuration renders an elapsed time as `0s`, `42s`, `1m 05s`.
func FormatDuration(d time.Duration) string {
	s := int(d / time.Second)
	if s < 60 {
		return fmt.Sprintf("%ds", max(s, 0))
	}
	return fmt.Sprintf("%dm %02ds", s/60, s%60)
}

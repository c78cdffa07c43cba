package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// colourScreen is one frame with every severity and diff colour: a failed
// shell call, an edit with its diff, an error and a warning.
func colourScreen(t *testing.T, th *theme.Theme) string {
	d := newDirect(t, 80, 24, func(o *Options) { o.Theme = th })
	d.submit("fix the build")
	edit := json.RawMessage(`{"action":"edit","path":"main.go","search":"a","replace":"b"}`)
	d.events(engine.TurnStarted{TurnID: "t1"},
		engine.ToolCallStarted{ID: "b1", Name: "Bash", Input: json.RawMessage(`{"command":"go build ./..."}`)},
		engine.ToolCallComplete{ID: "b1", Name: "Bash", Result: engine.ToolOutcome{Content: "main.go:3: undefined: x\nexit status 1"}},
		engine.ToolCallStarted{ID: "e1", Name: "File", Input: edit},
		engine.ToolCallComplete{ID: "e1", Name: "File", Input: edit, Result: engine.ToolOutcome{Content: "edited", Success: true,
			Metadata: map[string]any{"event": "file.mutation", "mutation": map[string]any{
				"diff":  "--- a/main.go\n+++ b/main.go\n@@ -1,3 +1,3 @@\n package main\n-var y = x\n+var y = 1\n",
				"files": []any{map[string]any{"path": "main.go", "outcome": "updated"}}}}}},
		engine.Error{ErrorEnvelope: engine.ErrorEnvelope{Message: "provider returned 500", Severity: "error"}},
		engine.Error{ErrorEnvelope: engine.ErrorEnvelope{Message: "retrying in 2s", Severity: "warning"}},
		engine.TurnComplete{Status: engine.TurnFailed})
	return d.m.View()
}

// Colours degrade right at every depth (issue 14): goldens per profile,
// and the error red is red in each.
func TestColourProfileGoldens(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		o    theme.Options
		red  string // SGR of the error label, "" for none
	}{
		{"truecolor", theme.Options{Profile: termenv.TrueColor, Dark: true}, "\x1b[1;38;2;224;108;117mError:"},
		{"ansi256", theme.Options{Profile: termenv.ANSI256, Dark: true}, "\x1b[1;38;5;167mError:"},
		{"ansi", theme.Options{Profile: termenv.ANSI, Dark: true}, "\x1b[1;91mError:"},
		{"no_color", theme.Options{Profile: termenv.TrueColor, NoColor: true, Dark: true}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			screen := colourScreen(t, theme.New(c.o))
			if c.red != "" && !strings.Contains(screen, c.red) {
				t.Errorf("the error label is not red (%q):\n%q", c.red, screen)
			}
			if c.red == "" && (strings.Contains(screen, "38;") || strings.Contains(screen, "\x1b[3")) {
				t.Errorf("colour under NO_COLOR:\n%q", screen)
			}
			for _, bad := range []string{"38;5;232", "38;5;16m", "\x1b[30m", "\x1b[1;30m"} {
				if strings.Contains(screen, bad) {
					t.Errorf("near-black foreground %q on a dark terminal", bad)
				}
			}
			golden.RequireEqual(t, []byte(screen))
		})
	}
}

// A long code block is drawn at once without colours, highlighted in the
// background, and drawn highlighted when that is done (the keystroke never
// waits for chroma).
// README.md "Configuration": other languages are highlighted by chroma off the UI goroutine, drawn plain until then
func TestLongCodeBlockIsHighlightedInTheBackground(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 40, func(o *Options) { o.Theme = theme.New(theme.Options{Profile: termenv.TrueColor, Dark: true}) })
	var code strings.Builder
	for i := 0; i < 400; i++ {
		code.WriteString("def f; 42; end  # comment\n")
	}
	d.submit("show code")
	// Ruby: chroma's regexp lexer, which runs off the UI goroutine (Go is
	// lexed in place up to 3,000 lines).
	d.events(engine.TurnStarted{}, engine.MessageStarted{}, engine.MessageDelta{Content: "```ruby\n" + code.String() + "```\n"},
		engine.MessageComplete{}, engine.TurnComplete{Status: engine.TurnCompleted})
	before := d.m.View()
	msg := waitHighlighted(d.m.highlighted, d.m.stop)() // blocks until the background highlighting is done
	if _, ok := msg.(highlightedMsg); !ok {
		t.Fatalf("wait returned %T", msg)
	}
	d.m.Update(msg)
	after := d.m.View()
	if strings.Count(after, "\x1b[") <= strings.Count(before, "\x1b[") {
		t.Errorf("no colours were added after highlighting:\n%q", after[len(after)-600:])
	}
}

package theme_test

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/codewhale/codewhale/internal/tui/theme"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDetectReadsTheEnvironmentOnly(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		vars    map[string]string
		profile termenv.Profile
		noColor bool
		dark    bool
	}{
		{"default", map[string]string{}, termenv.ANSI256, false, true},
		{"truecolor", map[string]string{"COLORTERM": "truecolor"}, termenv.TrueColor, false, true},
		{"NO_COLOR keeps attributes", map[string]string{"NO_COLOR": "1", "COLORTERM": "truecolor"}, termenv.TrueColor, true, true},
		{"dumb terminal", map[string]string{"TERM": "dumb"}, termenv.Ascii, false, true},
		{"light from COLORFGBG", map[string]string{"COLORFGBG": "0;15"}, termenv.ANSI256, false, false},
		{"explicit theme wins", map[string]string{"COLORFGBG": "0;15", "CODEWHALE_THEME": "dark"}, termenv.ANSI256, false, true},
	}
	for _, c := range cases {
		o := theme.Detect(env(c.vars))
		if o.Profile != c.profile || o.NoColor != c.noColor || o.Dark != c.dark {
			t.Errorf("%s: %+v", c.name, o)
		}
	}
}

func TestNoColorDropsColoursButKeepsEmphasis(t *testing.T) {
	t.Parallel()
	th := theme.New(theme.Options{Profile: termenv.TrueColor, NoColor: true, Dark: true})
	if s := th.Error.Render("x"); strings.Contains(s, "38;") {
		t.Errorf("colour under NO_COLOR: %q", s)
	}
	if s := th.Selected.Render("x"); !strings.Contains(s, "\x1b[7m") {
		t.Errorf("selection is not reversed under NO_COLOR: %q", s)
	}
	light := theme.New(theme.Options{Profile: termenv.TrueColor, Dark: false})
	dark := theme.New(theme.Options{Profile: termenv.TrueColor, Dark: true})
	if light.Text.Render("x") == dark.Text.Render("x") {
		t.Error("light and dark palettes draw text the same")
	}
}

package theme_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/lucasb-eyer/go-colorful"
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

// OSC 8 hyperlinks are on only where the terminal is known to show them, or
// when CODEWHALE_HYPERLINKS says so; never inside tmux or screen by guess.
// README.md "Configuration": OSC 8 links in known terminals, not inside tmux or screen; CODEWHALE_HYPERLINKS=1/0 forces
func TestDetectHyperlinks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		vars map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, true},
		{map[string]string{"TERM": "xterm-kitty"}, true},
		{map[string]string{"VTE_VERSION": "7600"}, true},
		{map[string]string{"VTE_VERSION": "4800"}, false},
		{map[string]string{"WT_SESSION": "x"}, true},
		{map[string]string{"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/tmux-0/default,1,0"}, false},
		{map[string]string{"TERM": "screen-256color", "VTE_VERSION": "7600"}, false},
		{map[string]string{"TMUX": "/tmp/x", "CODEWHALE_HYPERLINKS": "1"}, true},
		{map[string]string{"TERM_PROGRAM": "WezTerm", "CODEWHALE_HYPERLINKS": "off"}, false},
		{map[string]string{"TERM": "dumb", "TERM_PROGRAM": "vscode"}, false},
	}
	for _, c := range cases {
		if got := theme.Detect(env(c.vars)).Hyperlinks; got != c.want {
			t.Errorf("%v: hyperlinks %v, want %v", c.vars, got, c.want)
		}
	}
	if theme.New(theme.Options{Profile: termenv.Ascii, Hyperlinks: true}).Hyperlinks {
		t.Error("a dumb terminal got hyperlinks")
	}
}

// README.md "Configuration": NO_COLOR drops colours
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

// xterm256 is the RGB of a 256-colour index (the 6×6×6 cube and the grey
// ramp; the first 16 are the terminal's own and never used here).
func xterm256(i int) colorful.Color {
	if i >= 232 {
		v := float64(8+10*(i-232)) / 255
		return colorful.Color{R: v, G: v, B: v}
	}
	lv := []float64{0, 95, 135, 175, 215, 255}
	i -= 16
	return colorful.Color{R: lv[i/36] / 255, G: lv[i/6%6] / 255, B: lv[i%6] / 255}
}

// Every tone's 256-colour form is close to its true colour (issue 14: red
// rendered as 232, near-black), and its 16-colour form means the same.
func TestEveryToneDegradesToAColourThatMeansTheSame(t *testing.T) {
	t.Parallel()
	family := map[string][]string{"error": {"1", "9"}, "diff_del": {"1", "9"}, "success": {"2", "10"},
		"diff_add": {"2", "10"}, "warning": {"3", "11"}, "full": {"1", "9"}}
	for _, isDark := range []bool{true, false} {
		for name, c := range theme.Palette(isDark) {
			hex, err := colorful.Hex(c[0])
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			idx, err := strconv.Atoi(c[1])
			if err != nil || idx < 16 || idx > 255 {
				t.Fatalf("%s (dark=%v): 256-colour index %q", name, isDark, c[1])
			}
			if d := hex.DistanceCIEDE2000(xterm256(idx)); d > 0.1 {
				t.Errorf("%s (dark=%v): %s is %d in 256 colours, ΔE %.3f", name, isDark, c[0], idx, d)
			}
			if want, ok := family[name]; ok && c[2] != want[0] && c[2] != want[1] {
				t.Errorf("%s (dark=%v): 16-colour %q, want one of %v", name, isDark, c[2], want)
			}
			if c[2] == "0" || (isDark && c[2] == "16") {
				t.Errorf("%s (dark=%v): black on a 16-colour terminal", name, isDark)
			}
		}
	}
}

func TestErrorRedAtEveryDepth(t *testing.T) {
	t.Parallel()
	cases := []struct {
		o    theme.Options
		want string
	}{
		{theme.Options{Profile: termenv.TrueColor, Dark: true}, "38;2;224;108;117"},
		{theme.Options{Profile: termenv.ANSI256, Dark: true}, "38;5;167"},
		{theme.Options{Profile: termenv.ANSI, Dark: true}, "91"},
		{theme.Options{Profile: termenv.ANSI, Dark: false}, "31"},
	}
	for _, c := range cases {
		th := theme.New(c.o)
		for name, s := range map[string]string{"error": th.Error.Render("x"), "diff_del": th.DiffDel.Render("x")} {
			if name == "diff_del" && c.o.Profile == termenv.ANSI {
				continue // removed lines use plain red (1)
			}
			if !strings.Contains(s, c.want) {
				t.Errorf("%+v %s = %q, want %s", c.o, name, s, c.want)
			}
		}
	}
}

// Package theme is the table of styles of the UI's chrome (CONTRACT.md §14.1):
// text, dim and accent tones, one colour per mode and per permission
// posture, severities, diff lines and the reasoning tint, for dark and
// light terminals, with colour switched off under NO_COLOR. Markdown bodies
// are the exception: internal/mdterm colours headings, code and links from
// its own small palette, because it renders without lipgloss. Styles come from a
// private lipgloss renderer whose profile is set explicitly, so nothing
// queries the terminal at start-up.
package theme

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/codewhale/codewhale/internal/posture"
)

// Options select a palette.
type Options struct {
	// Profile is the colour depth; termenv.Ascii draws no styling at all
	// (dumb terminals).
	Profile termenv.Profile
	// NoColor drops colours but keeps bold, reverse and underline, so
	// selections and matches stay visible (NO_COLOR).
	NoColor bool
	Dark    bool
	// Hyperlinks draws Markdown links as OSC 8 hyperlinks (the label,
	// clickable) instead of "label (url)".
	Hyperlinks bool
}

// Detect reads the environment: NO_COLOR (any value) switches colour off;
// CODEWHALE_THEME=light|dark, else COLORFGBG, chooses the palette (dark by
// default); the colour depth comes from TERM and COLORTERM. It never writes
// to or reads from the terminal.
func Detect(getenv func(string) string) Options {
	if getenv == nil {
		getenv = os.Getenv
	}
	o := Options{Profile: termenv.ANSI256, Dark: true}
	switch ct := strings.ToLower(getenv("COLORTERM")); {
	case ct == "truecolor" || ct == "24bit":
		o.Profile = termenv.TrueColor
	case getenv("TERM") == "dumb":
		o.Profile = termenv.Ascii
	case strings.Contains(getenv("TERM"), "256color"):
		o.Profile = termenv.ANSI256
	case getenv("TERM") == "linux":
		o.Profile = termenv.ANSI
	}
	if _, set := lookup(getenv, "NO_COLOR"); set {
		o.NoColor = true
	}
	switch strings.ToLower(getenv("CODEWHALE_THEME")) {
	case "light":
		o.Dark = false
	case "dark":
		o.Dark = true
	default:
		if fgbg := getenv("COLORFGBG"); fgbg != "" {
			parts := strings.Split(fgbg, ";")
			switch parts[len(parts)-1] {
			case "7", "15":
				o.Dark = false
			}
		}
	}
	o.Hyperlinks = hyperlinks(getenv)
	return o
}

// hyperlinks reports whether the terminal shows OSC 8 hyperlinks.
// CODEWHALE_HYPERLINKS=1|0 decides; otherwise only terminals known to
// support them say yes. Inside tmux or screen it is no: whether they pass
// OSC 8 on depends on their version and the terminal outside, which a
// program cannot see, and a terminal without support may print the URL
// bytes or nothing at all.
func hyperlinks(getenv func(string) string) bool {
	switch strings.ToLower(getenv("CODEWHALE_HYPERLINKS")) {
	case "1", "on", "true", "yes":
		return true
	case "0", "off", "false", "no":
		return false
	}
	term := getenv("TERM")
	switch {
	case term == "dumb" || getenv("TMUX") != "" || strings.HasPrefix(term, "screen") || strings.HasPrefix(term, "tmux"):
		return false
	case getenv("KITTY_WINDOW_ID") != "" || term == "xterm-kitty" || strings.HasPrefix(term, "foot") ||
		getenv("WT_SESSION") != "" || getenv("WEZTERM_EXECUTABLE") != "":
		return true
	}
	switch getenv("TERM_PROGRAM") {
	case "iTerm.app", "WezTerm", "vscode", "ghostty", "Hyper", "WarpTerminal", "rio":
		return true
	}
	if v, err := strconv.Atoi(getenv("VTE_VERSION")); err == nil && v >= 5000 { // GNOME Terminal, Tilix, …
		return true
	}
	if v, err := strconv.Atoi(getenv("KONSOLE_VERSION")); err == nil && v >= 201200 {
		return true
	}
	return false
}

// lookup treats a variable as set when it is non-empty (NO_COLOR's rule).
func lookup(getenv func(string) string, k string) (string, bool) {
	v := getenv(k)
	return v, v != ""
}

// Theme is the style table.
type Theme struct {
	Color      bool
	Dark       bool
	Profile    termenv.Profile
	Hyperlinks bool // Markdown links are OSC 8 hyperlinks (Options.Hyperlinks)

	Text, Dim, Muted, Bold, Accent, Brand lipgloss.Style
	User, Assistant, Reasoning, Rule      lipgloss.Style
	Error, Warning, Info, Success         lipgloss.Style
	DiffAdd, DiffDel, DiffHunk, DiffMeta  lipgloss.Style
	Selected, Match, CurrentMatch         lipgloss.Style
	Mode                                  map[posture.Mode]lipgloss.Style
	Posture                               map[posture.Posture]lipgloss.Style
	ReadOnly                              lipgloss.Style

	// Hex colours for the composer edge, by posture.
	edge map[posture.Posture]lipgloss.TerminalColor
	r    *lipgloss.Renderer
}

// tone is one palette colour at every colour depth. The 256- and 16-colour
// forms are chosen here rather than converted: termenv's conversion maps
// #E06C75 (error red) to 232, near-black, and to ANSI black on 16-colour
// terminals. A 16-colour "" keeps the terminal's default foreground.
type tone struct{ hex, x256, x16 string }

func (t tone) color() lipgloss.TerminalColor {
	return lipgloss.CompleteColor{TrueColor: t.hex, ANSI256: t.x256, ANSI: t.x16}
}

type palette struct {
	text, dim, muted, accent, brand, user, reasoning, rule tone
	errc, warn, info, ok, add, del, hunk                   tone
	sel, match, curHit                                     tone // backgrounds
	plan, act, operate, ask, auto, full, never             tone
}

// The 256-colour indexes are the nearest cube or grey-ramp entries in
// CIELAB (theme_test checks every one against its hex); the 16-colour ones
// are picked by meaning.
var dark = palette{
	text: tone{"#D8DEE9", "253", ""}, dim: tone{"#7A8494", "244", "8"}, muted: tone{"#5C6370", "241", "8"},
	accent: tone{"#61AFEF", "75", "12"}, brand: tone{"#56B6C2", "73", "6"}, user: tone{"#C678DD", "177", "13"},
	reasoning: tone{"#8A93A6", "246", "8"}, rule: tone{"#3E4451", "238", "8"},
	errc: tone{"#E06C75", "167", "9"}, warn: tone{"#E5C07B", "179", "11"}, info: tone{"#7A8494", "244", "8"},
	ok: tone{"#98C379", "114", "10"}, add: tone{"#98C379", "114", "2"}, del: tone{"#E06C75", "167", "1"}, hunk: tone{"#56B6C2", "73", "6"},
	sel: tone{"#2C313A", "236", ""}, match: tone{"#3E4451", "238", ""}, curHit: tone{"#E5C07B", "179", ""},
	plan: tone{"#61AFEF", "75", "12"}, act: tone{"#98C379", "114", "10"}, operate: tone{"#C678DD", "177", "13"},
	ask: tone{"#E5A84B", "215", "3"}, auto: tone{"#D7BA3A", "178", "11"}, full: tone{"#F07167", "203", "9"}, never: tone{"#7A8494", "244", "8"},
}

var light = palette{
	text: tone{"#383A42", "237", ""}, dim: tone{"#7F848E", "102", "8"}, muted: tone{"#A0A1A7", "247", "8"},
	accent: tone{"#4078F2", "69", "4"}, brand: tone{"#0184BC", "31", "6"}, user: tone{"#A626A4", "90", "5"},
	reasoning: tone{"#7F848E", "102", "8"}, rule: tone{"#D0D0D0", "252", "7"},
	errc: tone{"#E45649", "203", "1"}, warn: tone{"#C18401", "172", "3"}, info: tone{"#7F848E", "102", "8"},
	ok: tone{"#50A14F", "71", "2"}, add: tone{"#50A14F", "71", "2"}, del: tone{"#E45649", "203", "1"}, hunk: tone{"#0184BC", "31", "6"},
	sel: tone{"#E5E5E6", "254", ""}, match: tone{"#F0E6C8", "187", ""}, curHit: tone{"#C18401", "172", ""},
	plan: tone{"#4078F2", "69", "4"}, act: tone{"#50A14F", "71", "2"}, operate: tone{"#A626A4", "90", "5"},
	ask: tone{"#B7791F", "130", "3"}, auto: tone{"#9C8A00", "100", "3"}, full: tone{"#D64545", "167", "1"}, never: tone{"#7F848E", "102", "8"},
}

// Palette lists the theme's colours by name, for tests that check every
// depth of every tone.
func Palette(isDark bool) map[string][3]string {
	p := light
	if isDark {
		p = dark
	}
	out := map[string][3]string{}
	for name, t := range map[string]tone{"text": p.text, "dim": p.dim, "muted": p.muted, "accent": p.accent,
		"brand": p.brand, "user": p.user, "reasoning": p.reasoning, "rule": p.rule, "error": p.errc, "warning": p.warn,
		"info": p.info, "success": p.ok, "diff_add": p.add, "diff_del": p.del, "hunk": p.hunk, "selection": p.sel,
		"match": p.match, "current_match": p.curHit, "plan": p.plan, "act": p.act, "operate": p.operate, "ask": p.ask,
		"auto": p.auto, "full": p.full, "never": p.never} {
		out[name] = [3]string{t.hex, t.x256, t.x16}
	}
	return out
}

// New builds the style table for o.
func New(o Options) *Theme {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(o.Profile)
	r.SetHasDarkBackground(o.Dark)
	p := dark
	if !o.Dark {
		p = light
	}
	color := o.Profile != termenv.Ascii && !o.NoColor
	fg := func(c tone) lipgloss.Style {
		if !color {
			return r.NewStyle()
		}
		return r.NewStyle().Foreground(c.color())
	}
	t := &Theme{Color: color, Dark: o.Dark, Profile: o.Profile, Hyperlinks: o.Hyperlinks && o.Profile != termenv.Ascii, r: r,
		Text: fg(p.text), Dim: fg(p.dim), Muted: fg(p.muted), Bold: r.NewStyle().Bold(true),
		Accent: fg(p.accent), Brand: fg(p.brand).Bold(true), User: fg(p.user).Bold(true), Assistant: fg(p.accent),
		Reasoning: fg(p.reasoning).Italic(true), Rule: fg(p.rule),
		Error: fg(p.errc).Bold(true), Warning: fg(p.warn).Bold(true), Info: fg(p.info), Success: fg(p.ok),
		DiffAdd: fg(p.add), DiffDel: fg(p.del), DiffHunk: fg(p.hunk), DiffMeta: fg(p.dim).Bold(true),
		Selected: r.NewStyle().Background(p.sel.color()).Bold(true), Match: r.NewStyle().Background(p.match.color()),
		CurrentMatch: r.NewStyle().Background(p.curHit.color()).Foreground(lipgloss.CompleteColor{TrueColor: "#000000", ANSI256: "16", ANSI: "0"}),
		ReadOnly:     fg(p.plan).Bold(true),
	}
	if !t.Color || o.Profile == termenv.ANSI {
		// Without colour, and on 16-colour terminals whose background
		// colours are unknown, emphasis carries selections and matches.
		t.Selected = r.NewStyle().Reverse(true)
		t.Match = r.NewStyle().Underline(true)
		t.CurrentMatch = r.NewStyle().Reverse(true)
	}
	t.Mode = map[posture.Mode]lipgloss.Style{posture.Plan: fg(p.plan).Bold(true), posture.Act: fg(p.act).Bold(true),
		posture.Operate: fg(p.operate).Bold(true)}
	t.Posture = map[posture.Posture]lipgloss.Style{posture.Ask: fg(p.ask).Bold(true), posture.AutoReview: fg(p.auto).Bold(true),
		posture.FullAccess: fg(p.full).Bold(true), posture.Never: fg(p.never).Bold(true)}
	t.edge = map[posture.Posture]lipgloss.TerminalColor{posture.Ask: p.ask.color(), posture.AutoReview: p.auto.color(),
		posture.FullAccess: p.full.color(), posture.Never: p.never.color()}
	if !color {
		t.edge = map[posture.Posture]lipgloss.TerminalColor{}
	}
	return t
}

// Edge is the composer's top-edge style for a posture.
func (t *Theme) Edge(p posture.Posture) lipgloss.Style {
	c, ok := t.edge[p]
	if !ok {
		return t.r.NewStyle()
	}
	return t.r.NewStyle().Foreground(c)
}

// Style returns a fresh style from the theme's renderer.
func (t *Theme) Style() lipgloss.Style { return t.r.NewStyle() }

// Plain is a colourless theme, for tests and golden files.
func Plain() *Theme { return New(Options{Profile: termenv.Ascii, Dark: true}) }

// DiffLine colours one unified-diff line: additions green, removals red,
// hunk headers in the accent, file headers bold and dim, context dim.
func (t *Theme) DiffLine(l string) string {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "):
		return t.DiffMeta.Render(l)
	case strings.HasPrefix(l, "+"):
		return t.DiffAdd.Render(l)
	case strings.HasPrefix(l, "-"):
		return t.DiffDel.Render(l)
	case strings.HasPrefix(l, "@@"):
		return t.DiffHunk.Render(l)
	}
	return t.Dim.Render(l)
}

// Severity is how a status-line message is shown (and how long it stays).
type Severity int

// The severities.
const (
	Info Severity = iota
	Success
	Warning
	Error
)

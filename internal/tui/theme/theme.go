// Package theme is the UI's one table of styles (tui.md §1.9): text, dim
// and accent tones, one colour per mode and per permission posture,
// severities, diff lines and the reasoning tint, for dark and light
// terminals, with colour switched off under NO_COLOR. Styles come from a
// private lipgloss renderer whose profile is set explicitly, so nothing
// queries the terminal at start-up.
package theme

import (
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/codewhale/codewhale/internal/policy"
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
	return o
}

// lookup treats a variable as set when it is non-empty (NO_COLOR's rule).
func lookup(getenv func(string) string, k string) (string, bool) {
	v := getenv(k)
	return v, v != ""
}

// Theme is the style table.
type Theme struct {
	Color   bool
	Dark    bool
	Profile termenv.Profile

	Text, Dim, Muted, Bold, Accent, Brand lipgloss.Style
	User, Assistant, Reasoning, Rule      lipgloss.Style
	Error, Warning, Info, Success         lipgloss.Style
	DiffAdd, DiffDel, DiffHunk, DiffMeta  lipgloss.Style
	Selected, Match, CurrentMatch         lipgloss.Style
	Mode                                  map[policy.Mode]lipgloss.Style
	Posture                               map[policy.Posture]lipgloss.Style
	ReadOnly                              lipgloss.Style

	// Hex colours for the composer edge, by posture.
	edge map[policy.Posture]lipgloss.Color
	r    *lipgloss.Renderer
}

type palette struct {
	text, dim, muted, accent, brand, user, reasoning, rule   string
	errc, warn, info, ok, add, del, hunk, sel, match, curHit string
	plan, act, operate, ask, auto, full, never               string
}

var dark = palette{
	text: "#D8DEE9", dim: "#7A8494", muted: "#5C6370", accent: "#61AFEF", brand: "#56B6C2", user: "#C678DD",
	reasoning: "#8A93A6", rule: "#3E4451", errc: "#E06C75", warn: "#E5C07B", info: "#7A8494", ok: "#98C379",
	add: "#98C379", del: "#E06C75", hunk: "#56B6C2", sel: "#2C313A", match: "#3E4451", curHit: "#E5C07B",
	plan: "#61AFEF", act: "#98C379", operate: "#C678DD", ask: "#E5A84B", auto: "#D7BA3A", full: "#F07167", never: "#7A8494",
}

var light = palette{
	text: "#383A42", dim: "#7F848E", muted: "#A0A1A7", accent: "#4078F2", brand: "#0184BC", user: "#A626A4",
	reasoning: "#7F848E", rule: "#D0D0D0", errc: "#E45649", warn: "#C18401", info: "#7F848E", ok: "#50A14F",
	add: "#50A14F", del: "#E45649", hunk: "#0184BC", sel: "#E5E5E6", match: "#F0E6C8", curHit: "#C18401",
	plan: "#4078F2", act: "#50A14F", operate: "#A626A4", ask: "#B7791F", auto: "#9C8A00", full: "#D64545", never: "#7F848E",
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
	fg := func(c string) lipgloss.Style {
		if !color {
			return r.NewStyle()
		}
		return r.NewStyle().Foreground(lipgloss.Color(c))
	}
	t := &Theme{Color: color, Dark: o.Dark, Profile: o.Profile, r: r,
		Text: fg(p.text), Dim: fg(p.dim), Muted: fg(p.muted), Bold: r.NewStyle().Bold(true),
		Accent: fg(p.accent), Brand: fg(p.brand).Bold(true), User: fg(p.user).Bold(true), Assistant: fg(p.accent),
		Reasoning: fg(p.reasoning).Italic(true), Rule: fg(p.rule),
		Error: fg(p.errc).Bold(true), Warning: fg(p.warn).Bold(true), Info: fg(p.info), Success: fg(p.ok),
		DiffAdd: fg(p.add), DiffDel: fg(p.del), DiffHunk: fg(p.hunk), DiffMeta: fg(p.dim).Bold(true),
		Selected: r.NewStyle().Background(lipgloss.Color(p.sel)).Bold(true), Match: r.NewStyle().Background(lipgloss.Color(p.match)),
		CurrentMatch: r.NewStyle().Background(lipgloss.Color(p.curHit)).Foreground(lipgloss.Color("#000000")),
		ReadOnly:     fg(p.plan).Bold(true),
	}
	if !t.Color {
		// Without colour, emphasis carries the meaning.
		t.Selected = r.NewStyle().Reverse(true)
		t.Match = r.NewStyle().Underline(true)
		t.CurrentMatch = r.NewStyle().Reverse(true)
	}
	t.Mode = map[policy.Mode]lipgloss.Style{policy.Plan: fg(p.plan).Bold(true), policy.Act: fg(p.act).Bold(true),
		policy.Operate: fg(p.operate).Bold(true)}
	t.Posture = map[policy.Posture]lipgloss.Style{policy.Ask: fg(p.ask).Bold(true), policy.AutoReview: fg(p.auto).Bold(true),
		policy.FullAccess: fg(p.full).Bold(true), policy.Never: fg(p.never).Bold(true)}
	t.edge = map[policy.Posture]lipgloss.Color{policy.Ask: lipgloss.Color(p.ask), policy.AutoReview: lipgloss.Color(p.auto),
		policy.FullAccess: lipgloss.Color(p.full), policy.Never: lipgloss.Color(p.never)}
	if !color {
		t.edge = map[policy.Posture]lipgloss.Color{}
	}
	return t
}

// Edge is the composer's top-edge style for a posture.
func (t *Theme) Edge(p policy.Posture) lipgloss.Style {
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

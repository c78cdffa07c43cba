package tui

import (
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// Notify configures terminal notifications ([notifications]).
type Notify struct {
	When   string // off | auto (only while the terminal is not focused) | always
	Method string // bel | osc9 | osc777
}

// notifier tells the terminal that something needs the user: a turn
// ended or an approval waits.
type notifier struct {
	Notify
	out io.Writer // the terminal (nil: none)
	mux string    // "tmux", "screen" or ""
}

// send sends text. In "auto" it does so only after the terminal reported
// losing focus (blurred; focus reporting): a terminal that never reports
// counts as focused, so nobody looking at the screen is pinged. The text
// is sanitised and goes to the terminal, never into the transcript.
func (n notifier) send(text string, blurred bool) tea.Cmd {
	out := n.out
	switch {
	case out == nil || n.When == "off" || n.When == "":
		return nil
	case n.When == "auto" && !blurred:
		return nil
	}
	seq := notifySeq(n.Method, n.mux, text)
	return func() tea.Msg {
		_, _ = io.WriteString(out, seq)
		return nil
	}
}

// notifySeq is what goes to the terminal for a notification. A
// multiplexer drops an OSC it does not know, so inside tmux or screen the
// OSC goes wrapped in the multiplexer's passthrough (tmux forwards it when
// allow-passthrough is on) and a BEL follows it, which tmux and screen
// always honour: the window's bell flag, and the outer terminal's bell.
func notifySeq(method, mux, text string) string {
	text = strings.ReplaceAll(termtext.OneLine(termtext.Sanitize(text)), ";", ",")
	var osc string
	switch method {
	case "osc9":
		osc = "\x1b]9;" + text + "\a"
	case "osc777":
		osc = "\x1b]777;notify;codewhale;" + text + "\a"
	default:
		return "\a"
	}
	switch mux {
	case "tmux":
		return "\x1bPtmux;" + strings.ReplaceAll(osc, "\x1b", "\x1b\x1b") + "\x1b\\" + "\a"
	case "screen":
		return "\x1bP" + osc + "\x1b\\" + "\a"
	}
	return osc
}

package handoff

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/theme"
)

// copiedMsg reports how a copy went.
type copiedMsg struct {
	label string
	how   copyRoute
	err   error
}

type copyRoute int

const (
	viaOSC52  copyRoute = iota // sent; terminals never confirm OSC 52
	viaTmux                    // tmux load-buffer: the tmux buffer, and the clipboard when tmux can set it
	viaScreen                  // screen passthrough of OSC 52
)

// Copy puts text on the clipboard. Inside tmux it goes through tmux
// itself (`load-buffer -w`), which works in a default tmux: an
// application's OSC 52 is dropped there unless set-clipboard is on, and a
// passthrough-wrapped one unless allow-passthrough is on. Elsewhere it is
// a plain OSC 52 (screen needs its own passthrough). Only tmux can say the
// copy arrived; the toast says so honestly.
func (h *Handoff) Copy(host Host, text, label string) tea.Cmd {
	if h.c.Clipboard == nil && h.c.Multiplexer != "tmux" {
		return host.Status("Clipboard unavailable: no terminal to send OSC 52 to", theme.Warning)
	}
	out, mux := h.c.Clipboard, h.c.Multiplexer
	return func() tea.Msg {
		if mux == "tmux" {
			if err := tmuxLoadBuffer(text); err == nil {
				return copiedMsg{label: label, how: viaTmux}
			}
		}
		if out == nil {
			return copiedMsg{label: label, err: fmt.Errorf("no terminal to send OSC 52 to")}
		}
		seq, how := osc52.New(text), viaOSC52
		if mux == "screen" {
			seq, how = seq.Screen(), viaScreen
		}
		_, err := seq.WriteTo(out)
		return copiedMsg{label: label, how: how, err: err}
	}
}

// tmuxLoadBuffer stores text in a new tmux buffer and asks tmux to set the
// outer terminal's clipboard too (-w, tmux 3.2+; retried without it on an
// older tmux).
func tmuxLoadBuffer(text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	run := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "tmux", args...)
		cmd.Stdin = strings.NewReader(text)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	if err := run("load-buffer", "-w", "-"); err == nil {
		return nil
	}
	return run("load-buffer", "-")
}

// copied shows the toast for a finished copy.
func copied(host Host, msg copiedMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		return host.Status("Copy failed: "+msg.err.Error(), theme.Warning)
	case msg.how == viaTmux:
		return host.Status("Copied "+msg.label+" to the tmux buffer (and the clipboard, if the terminal accepts OSC 52)", theme.Success)
	}
	return host.Status("Sent "+msg.label+" to the clipboard by OSC 52 (the terminal cannot confirm it arrived)", theme.Info)
}

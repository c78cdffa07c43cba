package tui

import (
	"strings"

	"github.com/codewhale/codewhale/internal/tui/views"
)

// binding is one row of the key table. keymap is the one definition of
// the everyday keys: the F1 overlay shows it (Text) and the README's "TUI
// keys" table is generated from it (Text, then Detail); TestREADMEKeyTable
// holds the README to it.
type binding struct {
	group  string // the F1 section: Modes, Navigation, …
	keys   string // as the person presses them
	text   string // what they do, short
	detail string // more for the README ("" = none)
}

var keymap = []binding{
	{"Actions", "Ctrl+C", "clear the draft (↑ brings it back), else interrupt the turn, else press twice within 2 s to quit", ""},
	{"Actions", "Esc", "close a popup, else interrupt the turn, else clear the draft",
		"a message interrupted before any reply goes back into the composer, marked `↺ interrupted message`, and leaves the conversation, so Enter sends it once"},
	{"Actions", "Ctrl+D", "quit, on an empty composer with no turn running", "with a draft it deletes forward; during a turn it only says how to interrupt"},
	{"Actions", "Ctrl+O", "reasoning in a pager", ""},
	{"Actions", "Alt+V", "latest tool call details", "its full input and output"},
	{"Actions", "Ctrl+B", "move a running foreground command to /jobs", "its last lines show live in its cell until then"},
	{"Actions", "!command, Alt+X", "run a shell command yourself / leave its output out of the next message", "see \"Running a command yourself\""},
	{"Actions", "Ctrl+L", "compact the context", ""},
	{"Actions", "Ctrl+K", "command menu", ""},
	{"Input editing", "Enter", "send; while a turn runs, queue", "on an empty composer with queued messages: steer the running turn with the oldest"},
	{"Input editing", "Ctrl+Enter", "steer the running turn (terminals that report it)", ""},
	{"Input editing", "Shift+Enter, Alt+Enter, Ctrl+J", "new line", "Shift+Enter when the terminal reports it"},
	{"Input editing", "↑ / ↓", "history; ↑ on empty pulls back a queued message", ""},
	{"Input editing", "Ctrl+U / Ctrl+Z", "clear the draft / restore it", ""},
	{"Input editing", "/ and @", "command menu and file mentions (Tab completes)", ""},
	{"Input editing", "Ctrl+G, Ctrl+X Ctrl+E", "edit the message in $VISUAL / $EDITOR", "the editor gets the terminal; the saved text comes back into the composer"},
	{"Modes", "Tab (empty composer)", "cycle Plan → Act → Operate", ""},
	{"Modes", "Shift+Tab", "cycle Ask → Auto-Review → Full Access", ""},
	{"Modes", "Alt+P / Alt+A / Alt+Y", "jump to Plan / Act / Operate", ""},
	{"Modes", "Ctrl+T", "cycle reasoning effort auto → off → high → max → auto", "the header shows `effort <tier>`"},
	{"Modes", "Tab on an approval card", "give the card the keys, and back to the composer", "a card that opened while you typed takes none until then"},
	{"Navigation", "PgUp / PgDn", "scroll the transcript a page", "scrolling up pauses following and shows \"new output below\"; back at the bottom it resumes; the mouse wheel scrolls too"},
	{"Navigation", "Shift+↑/↓, Alt+↑/↓", "scroll three lines", ""},
	{"Navigation", "Ctrl+Home / Ctrl+End", "top / bottom (Ctrl+End re-pins to new output; bare End belongs to the composer)", ""},
	{"Navigation", "Alt+G / Alt+Shift+G", "top / bottom (empty composer)", ""},
	{"Sessions", "Ctrl+R", "session picker (d delete, a archive)", "`/` filter, `d` then `y` delete, `a` archive, `Enter` resume; `/sessions archived` lists archived ones"},
	{"Sessions", "Esc Esc (empty composer)", "edit an earlier message in a fork of the conversation", "as `/edit`; the one you pick goes back in the composer in a new session forked from before it"},
	{"Clipboard", "Ctrl+V", "paste the clipboard's image as a chip (its text when it holds none); /attach with no path does the same",
		"read with `wl-paste`/`xclip`, `pngpaste`/`osascript`, PowerShell; `/attach path` attaches a PNG/JPEG/GIF/WebP file; a paste or drop of image paths attaches them too; images go only to a model that can see"},
	{"Clipboard", "Backspace at the start", "remove the last image chip (/attach clear removes all)", ""},
	{"Clipboard", "Alt+S", "selection mode: mouse capture off, so the terminal selects and copies any text", "`Alt+S` again scrolls with the wheel"},
	{"Clipboard", "Alt+C / Alt+K", "copy the last reply / its last code block (tmux buffer inside tmux, else OSC 52)", "inside tmux through `tmux load-buffer -w`; elsewhere a plain OSC 52, which works over SSH and which a terminal cannot confirm"},
	{"Help", "F1", "this help", ""},
}

// keyHelp is the keymap as the F1 overlay's rows.
func keyHelp() []views.HelpEntry {
	out := make([]views.HelpEntry, len(keymap))
	for i, b := range keymap {
		out[i] = views.HelpEntry{Section: "Keybindings · " + b.group, Key: b.keys, Text: b.text}
	}
	return out
}

// keyTable is the keymap as the README's Markdown table.
func keyTable() string {
	var b strings.Builder
	b.WriteString("| Keys | Action |\n|---|---|\n")
	for _, k := range keymap {
		text := k.text
		if k.detail != "" {
			text += "; " + k.detail
		}
		b.WriteString("| `" + k.keys + "` | " + strings.ReplaceAll(text, "|", `\|`) + " |\n")
	}
	return b.String()
}

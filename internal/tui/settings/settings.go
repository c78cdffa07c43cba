// Package settings is the TUI's child for /settings and /config: the
// settings in force (with the session's live model and reasoning effort)
// and what the config file says; /config changes the model and the effort
// for this session through Host and writes a key with --save.
package settings

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// Host is what the child needs of the root model.
type Host interface {
	// System and SystemError add a System cell to the transcript.
	System(text string)
	SystemError(text string)
	// Model and Effort are the live model and reasoning effort ("auto"
	// for the provider's default).
	Model() string
	Effort() string
	// SetModel and SetEffort change them for the next request, as /model
	// and /effort do.
	SetModel(name string) tea.Cmd
	SetEffort(tier string) tea.Cmd
}

// Settings is the child.
type Settings struct {
	path     string           // the user config file --save writes ("" = none)
	settings []config.Setting // the effective settings at start
}

// New builds the child over the config file at path ("" = none) and the
// effective settings.
func New(path string, settings []config.Setting) *Settings {
	return &Settings{path: path, settings: settings}
}

// Show is /settings [text]: the settings in force and what the config
// file says.
func (st *Settings) Show(host Host, arg string) tea.Cmd {
	if a := strings.TrimSpace(arg); a != "" && a != "text" {
		host.SystemError("Usage: /settings [text]")
		return nil
	}
	host.System(st.text(host))
	return nil
}

func (st *Settings) text(host Host) string {
	var b strings.Builder
	path := st.path
	if path == "" {
		path = "(no config file in this run)"
	}
	fmt.Fprintf(&b, "Settings (config file: %s)\n", path)
	w := 0
	for _, s := range st.settings {
		w = max(w, termtext.Width(s.Key))
	}
	for _, s := range st.live(host) {
		line := fmt.Sprintf("  %s  %s", termtext.PadRight(s.Key, w), s.Value)
		if s.InFile != "" && s.InFile != s.Value {
			line += "   (file: " + s.InFile + ")"
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("Change one with /config <key> <value> [--save]; editable: " + strings.Join(config.EditableKeys(), ", ") + ".")
	return b.String()
}

// live are the configured settings with this session's live values.
func (st *Settings) live(host Host) []config.Setting {
	out := append([]config.Setting(nil), st.settings...)
	for i := range out {
		switch out[i].Key {
		case "model":
			out[i].Value = host.Model()
		case "reasoning_effort":
			out[i].Value = host.Effort()
		}
	}
	return out
}

// Config is /config [<key> [<value>] [--save]]: show the settings,
// one setting, or change one. The model and reasoning effort change for
// this session at once; --save writes the key to the user config file,
// which the other keys need, taking effect at the next start.
func (st *Settings) Config(host Host, arg string) tea.Cmd {
	fields := strings.Fields(arg)
	save := len(fields) > 0 && fields[len(fields)-1] == "--save"
	if save {
		fields = fields[:len(fields)-1]
	}
	switch len(fields) {
	case 0:
		host.System(st.text(host))
		return nil
	case 1:
		for _, s := range st.live(host) {
			if s.Key == fields[0] {
				host.System(fmt.Sprintf("%s = %s", s.Key, s.Value))
				return nil
			}
		}
		host.SystemError("Unknown setting " + fields[0] + "; /settings lists them")
		return nil
	}
	key, value := fields[0], strings.Join(fields[1:], " ")
	if _, ok := config.Editable(key); !ok {
		host.SystemError(key + " cannot be changed here; editable: " + strings.Join(config.EditableKeys(), ", "))
		return nil
	}
	var cmd tea.Cmd
	live := key == "model" || key == "reasoning_effort"
	switch key {
	case "model":
		cmd = host.SetModel(value)
	case "reasoning_effort":
		cmd = host.SetEffort(value)
	}
	if !save {
		if !live {
			host.SystemError(key + " applies at the next start: add --save to write it to " + st.pathText())
		}
		return cmd
	}
	if st.path == "" {
		host.SystemError("No config file in this run; nothing saved")
		return cmd
	}
	if err := config.SetKey(st.path, key, value); err != nil {
		host.SystemError(err.Error())
		return cmd
	}
	note := " (applies at the next start)"
	if live {
		note = ""
	}
	host.System(fmt.Sprintf("Saved %s = %s to %s%s.", key, value, st.path, note))
	return cmd
}

func (st *Settings) pathText() string {
	if st.path == "" {
		return "the config file"
	}
	return st.path
}

package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// settingsCommand is /settings [text]: the settings in force and what the
// config file says.
func (m *Model) settingsCommand(arg string) tea.Cmd {
	if a := strings.TrimSpace(arg); a != "" && a != "text" {
		m.systemError("Usage: /settings [text]")
		return nil
	}
	m.system(m.settingsText())
	return nil
}

func (m *Model) settingsText() string {
	var b strings.Builder
	path := m.o.ConfigPath
	if path == "" {
		path = "(no config file in this run)"
	}
	fmt.Fprintf(&b, "Settings (config file: %s)\n", path)
	w := 0
	for _, s := range m.o.Settings {
		w = max(w, termtext.Width(s.Key))
	}
	for _, s := range m.settings() {
		line := fmt.Sprintf("  %s  %s", termtext.PadRight(s.Key, w), s.Value)
		if s.InFile != "" && s.InFile != s.Value {
			line += "   (file: " + s.InFile + ")"
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("Change one with /config <key> <value> [--save]; editable: " + strings.Join(config.EditableKeys(), ", ") + ".")
	return b.String()
}

// settings are the configured settings with this session's live values.
func (m *Model) settings() []config.Setting {
	out := append([]config.Setting(nil), m.o.Settings...)
	for i := range out {
		switch out[i].Key {
		case "model":
			out[i].Value = m.route.Model
		case "reasoning_effort":
			out[i].Value = m.effortLabel()
		}
	}
	return out
}

// configCommand is /config [<key> [<value>] [--save]]: show the settings,
// one setting, or change one. The model and reasoning effort change for
// this session at once; --save writes the key to the user config file,
// which the other keys need, taking effect at the next start.
func (m *Model) configCommand(arg string) tea.Cmd {
	fields := strings.Fields(arg)
	save := len(fields) > 0 && fields[len(fields)-1] == "--save"
	if save {
		fields = fields[:len(fields)-1]
	}
	switch len(fields) {
	case 0:
		m.system(m.settingsText())
		return nil
	case 1:
		for _, s := range m.settings() {
			if s.Key == fields[0] {
				m.system(fmt.Sprintf("%s = %s", s.Key, s.Value))
				return nil
			}
		}
		m.systemError("Unknown setting " + fields[0] + "; /settings lists them")
		return nil
	}
	key, value := fields[0], strings.Join(fields[1:], " ")
	if _, ok := config.Editable(key); !ok {
		m.systemError(key + " cannot be changed here; editable: " + strings.Join(config.EditableKeys(), ", "))
		return nil
	}
	var cmd tea.Cmd
	live := key == "model" || key == "reasoning_effort"
	switch key {
	case "model":
		cmd = m.routes.SetModel(m.hhost, value)
	case "reasoning_effort":
		cmd = m.effortCommand(value)
	}
	if !save {
		if !live {
			m.systemError(key + " applies at the next start: add --save to write it to " + m.configPath())
		}
		return cmd
	}
	if m.o.ConfigPath == "" {
		m.systemError("No config file in this run; nothing saved")
		return cmd
	}
	if err := config.SetKey(m.o.ConfigPath, key, value); err != nil {
		m.systemError(err.Error())
		return cmd
	}
	note := " (applies at the next start)"
	if live {
		note = ""
	}
	m.system(fmt.Sprintf("Saved %s = %s to %s%s.", key, value, m.o.ConfigPath, note))
	return cmd
}

func (m *Model) configPath() string {
	if m.o.ConfigPath == "" {
		return "the config file"
	}
	return m.o.ConfigPath
}

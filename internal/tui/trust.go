package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
)

// trustCommand is /trust [on|off|add <path>|remove <path>|list]: the
// per-workspace trusted roots File tools may reach besides the workspace
// (recorded in $CODEWHALE_HOME/workspace-trust.json), and trust mode, which
// adds the configured trusted_paths. Changes apply from the next tool call.
func (m *Model) trustCommand(arg string) tea.Cmd {
	verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	rest = strings.TrimSpace(rest)
	switch verb {
	case "", "list":
		m.system(m.trustReport())
	case "on", "off":
		on := verb == "on"
		m.trustOn = on
		m.o.Engine.Submit(engine.SetTrust{Mode: &on})
		m.system("Trust mode " + verb + ": " + map[bool]string{true: "File tools also reach the configured trusted_paths.",
			false: "File tools reach the workspace and this workspace's trusted roots only."}[on])
	case "add", "remove":
		if rest == "" || m.o.Home == "" {
			m.systemError("Usage: /trust " + verb + " <path>")
			return nil
		}
		edit := config.AddWorkspaceTrust
		if verb == "remove" {
			edit = config.RemoveWorkspaceTrust
		}
		roots, err := edit(m.o.Home, m.o.Workspace, rest)
		if err != nil {
			m.systemError("/trust " + verb + ": " + err.Error())
			return nil
		}
		m.o.Engine.Submit(engine.SetTrust{Roots: append([]string{}, roots...)})
		m.system(fmt.Sprintf("Trusted roots of this workspace: %s. File tools reach them from the next call.", listOr(roots, "none")))
	default:
		m.systemError("Usage: /trust [on|off|add <path>|remove <path>|list]")
	}
	return nil
}

func (m *Model) trustReport() string {
	var roots []string
	if m.o.Home != "" {
		roots, _ = config.WorkspaceTrust(m.o.Home, m.o.Workspace)
	}
	mode := "off"
	switch {
	case m.posture == posture.FullAccess:
		mode = "on (Full Access)"
	case m.trustOn:
		mode = "on"
	}
	return fmt.Sprintf("Trust mode: %s. Trusted roots of this workspace: %s.\n"+
		"File tools never leave the workspace except into those roots (and, in trust mode, the configured "+
		"trusted_paths). /trust add <path> and /trust remove <path> edit the list.", mode, listOr(roots, "none"))
}

func listOr(xs []string, none string) string {
	if len(xs) == 0 {
		return none
	}
	return strings.Join(xs, ", ")
}

package services

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
)

// Trust is /trust [on|off|add <path>|remove <path>|list]: the
// per-workspace trusted roots File tools may reach besides the workspace
// (recorded in $CODEWHALE_HOME/workspace-trust.json), and trust mode, which
// adds the configured trusted_paths. Changes apply from the next tool call.
func (sv *Services) Trust(host Host, arg string) tea.Cmd {
	verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	rest = strings.TrimSpace(rest)
	switch verb {
	case "", "list":
		host.System(sv.trustReport(host))
	case "on", "off":
		on := verb == "on"
		sv.trustOn = on
		sv.c.Submit(engine.SetTrust{Mode: &on})
		host.System("Trust mode " + verb + ": " + map[bool]string{true: "File tools also reach the configured trusted_paths.",
			false: "File tools reach the workspace and this workspace's trusted roots only."}[on])
	case "add", "remove":
		if rest == "" || sv.c.Home == "" {
			host.SystemError("Usage: /trust " + verb + " <path>")
			return nil
		}
		edit := config.AddWorkspaceTrust
		if verb == "remove" {
			edit = config.RemoveWorkspaceTrust
		}
		roots, err := edit(sv.c.Home, sv.c.Workspace, rest)
		if err != nil {
			host.SystemError("/trust " + verb + ": " + err.Error())
			return nil
		}
		sv.c.Submit(engine.SetTrust{Roots: append([]string{}, roots...)})
		host.System(fmt.Sprintf("Trusted roots of this workspace: %s. File tools reach them from the next call.", listOr(roots, "none")))
	default:
		host.SystemError("Usage: /trust [on|off|add <path>|remove <path>|list]")
	}
	return nil
}

func (sv *Services) trustReport(host Host) string {
	var roots []string
	if sv.c.Home != "" {
		roots, _ = config.WorkspaceTrust(sv.c.Home, sv.c.Workspace)
	}
	mode := "off"
	switch {
	case host.FullAccess():
		mode = "on (Full Access)"
	case sv.trustOn:
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

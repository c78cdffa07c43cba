package services

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/permissions"
)

// permissionsCommand is /permissions [list|explain <n>|remove <n>]: the
// saved permission rules (internal/permissions), what each does, and
// removing one from the global file.
func (sv *Services) Permissions(host Host, arg string) tea.Cmd {
	s := sv.c.Permissions
	if s == nil {
		host.System("Permission rules are not available in this session.")
		return nil
	}
	verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	n, err := strconv.Atoi(strings.TrimSpace(rest))
	rules := s.Rules()
	switch {
	case verb == "" || verb == "list":
		host.System(permissionList(rules, s.Ignored()))
	case (verb == "explain" || verb == "remove") && (err != nil || n < 1 || n > len(rules)):
		host.System(fmt.Sprintf("Usage: /permissions %s <n>, with n from 1 to %d (see /permissions list).", verb, len(rules)))
	case verb == "explain":
		host.System(explainRule(n, rules[n-1]))
	case verb == "remove":
		r, err := s.Remove(n)
		if err != nil {
			host.System("Error: " + err.Error())
			return nil
		}
		host.System(fmt.Sprintf("Removed rule %d: %s", n, r.String()))
	default:
		host.System("Usage: /permissions [list|explain <n>|remove <n>]")
	}
	return nil
}

func permissionList(rules []permissions.Rule, ignored []string) string {
	var b strings.Builder
	if len(rules) == 0 {
		b.WriteString("No permission rules. \"Always allow this\" on an approval card saves one to " +
			"$CODEWHALE_HOME/permissions.toml; a project adds ask/deny rules in .codewhale/permissions.toml.\n")
	}
	for i, r := range rules {
		fmt.Fprintf(&b, "%d. %s  (%s)\n", i+1, r.String(), r.Source())
	}
	for _, ig := range ignored {
		b.WriteString("ignored: " + ig + "\n")
	}
	b.WriteString("Order: hard block > deny > protected path > ask > allow > posture default.")
	return b.String()
}

func explainRule(n int, r permissions.Rule) string {
	var what string
	switch r.Action {
	case "deny":
		what = "refuses matching calls in every posture, Full Access included"
	case "ask":
		what = "holds matching calls for a person: Ask shows the card (no session grant), Auto-Review and headless " +
			"runs refuse them, Full Access blocks them"
	default:
		what = "lets matching calls run without an ordinary approval (never a hard block, a deny, a protected " +
			"path or an ask rule)"
	}
	var scope []string
	if r.Tool != "" {
		scope = append(scope, "tool "+r.Tool)
	}
	if r.ToolAction != "" {
		scope = append(scope, "action "+r.ToolAction)
	}
	if r.Command != "" {
		c := "commands starting with `" + r.Command + "`"
		if r.CommandExact {
			c = "exactly the command `" + r.Command + "`"
		}
		scope = append(scope, c+" (each simple command, parsed; an allow must cover every one)")
	}
	if r.Pattern != "" {
		scope = append(scope, "commands matching `"+r.Pattern+"`")
	}
	if r.Path != "" {
		scope = append(scope, "paths matching "+r.Path)
	}
	if r.Workspace != "" {
		scope = append(scope, "only in "+r.Workspace)
	}
	return fmt.Sprintf("Rule %d (%s) %s.\nIt matches %s.", n, r.Source(), what, strings.Join(scope, ", "))
}

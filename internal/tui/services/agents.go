package services

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// agentsCommand is /agents [list|show <name>|validate|trust]: the sub-agent
// types people defined (CONTRACT.md §6.5) with their sources, tools, models
// and trust, the files that did not load and why, and the session's
// children with their launch pace.
func (sv *Services) Agents(host Host, arg string) tea.Cmd {
	if sv.c.Project == nil {
		host.System("No project context in this session, so no defined sub-agent types.")
		return nil
	}
	verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	switch strings.ToLower(verb) {
	case "", "list":
		host.System(agentsReport(sv.c.Project.State(), sv.c.Agents))
	case "show":
		sv.showAgentType(host, strings.TrimSpace(rest))
	case "validate", "reload":
		sv.c.Project.Refresh()
		host.System(agentProblems(sv.c.Project.State()))
	case "trust":
		msg, err := sv.c.Project.TrustAgents()
		if err != nil {
			host.SystemError("/agents trust: " + err.Error())
			return nil
		}
		host.System(msg)
	default:
		host.SystemError("Usage: /agents [list|show <name>|validate|trust]")
	}
	return nil
}

// agentsReport is the /agents list.
func agentsReport(st *projectctx.State, mgr *agent.Manager) string {
	var b strings.Builder
	if len(st.Agents) == 0 {
		b.WriteString("No sub-agent types are defined. A type is a Markdown file (frontmatter name, description, tools, model, " +
			"reasoning_effort, mode; the body is its instructions) in .codewhale/agents/, .claude/agents/ or $CODEWHALE_HOME/agents/.")
	} else {
		fmt.Fprintf(&b, "Sub-agent types (%d defined; the agent tool's type takes each name, beside the built-in roles):", len(st.Agents))
	}
	for _, a := range st.Agents {
		fmt.Fprintf(&b, "\n  %s — %s\n    %s · %s", a.Name, a.Description, agentFacts(a), a.Source)
		if a.Project && !a.Trusted {
			b.WriteString(" · not trusted: review it, then /agents trust")
		}
	}
	if n := len(st.Agents) - agent.MaxDefinedTypes; n > 0 {
		fmt.Fprintf(&b, "\n  (%d more are defined than the %d one session offers; they are not offered)", n, agent.MaxDefinedTypes)
	}
	if len(st.AgentProblems) > 0 {
		b.WriteString("\n" + agentProblems(st))
	}
	if mgr != nil {
		running, queued := mgr.Counts()
		fmt.Fprintf(&b, "\nThis session: %d sub-agent(s) running, %d queued. %s", running, queued, mgr.Admission().State().Line())
	}
	return b.String()
}

// agentFacts is a definition's tools, model, effort and mode in one line.
func agentFacts(a projectctx.Agent) string {
	tools := "every tool of its mode"
	if a.Tools != nil {
		tools = "tools " + orNone(a.Tools)
		if a.FileReadOnly {
			tools = strings.Replace(tools, "File", "File (reads only)", 1)
		}
	}
	model := a.Model
	if model == "" {
		model = "[agents] default_model or the session's"
	}
	parts := []string{tools, "model " + model}
	if a.ReasoningEffort != "" {
		parts = append(parts, "effort "+a.ReasoningEffort)
	}
	if a.Mode != nil {
		parts = append(parts, "mode "+a.Mode.String())
	}
	return strings.Join(parts, " · ")
}

// agentProblems is /agents validate: every definition that did not load.
func agentProblems(st *projectctx.State) string {
	if len(st.AgentProblems) == 0 {
		return fmt.Sprintf("All %d sub-agent definition(s) load.", len(st.Agents))
	}
	return fmt.Sprintf("Not loaded (%d):\n  %s", len(st.AgentProblems), strings.Join(st.AgentProblems, "\n  "))
}

// showAgentType opens one definition, instructions included, in a pager.
func (sv *Services) showAgentType(host Host, name string) {
	st := sv.c.Project.State()
	a, ok := st.Agent(name)
	if !ok {
		var names []string
		for _, d := range st.Agents {
			names = append(names, d.Name)
		}
		host.SystemError(fmt.Sprintf("No sub-agent type named %q. Types: %s", name, orNone(names)))
		return
	}
	trust := "yes (your own)"
	if a.Project {
		trust = map[bool]string{true: "yes (/agents trust recorded this content)", false: "no: review it, then /agents trust"}[a.Trusted]
	}
	body := fmt.Sprintf("%s — %s\nFile: %s (%s)\n%s\nTrusted: %s\n", a.Name, a.Description, a.Path, a.Source, agentFacts(*a), trust)
	for _, n := range a.Notes {
		body += "Note: " + n + "\n"
	}
	p := views.NewPager(sv.c.Theme, "/agents show "+a.Name, body+"\n"+a.Instructions)
	p.Margin, p.MinWidth = 4, 60
	host.Push(p)
}

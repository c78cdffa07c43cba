package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/doctor"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/toolset"
)

// waitAgentsFor parses --wait-agents: how long exec waits at the end for
// sub-agents still running before it cancels them. "wait" waits until they
// finish (each is bounded by its own wall time).
func waitAgentsFor(v string) (time.Duration, error) {
	switch v = strings.TrimSpace(v); v {
	case "", "cancel":
		return 0, nil
	case "wait":
		return 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("--wait-agents %q: use cancel, wait, or a duration such as 5m", v)
	}
	return d, nil
}

// cancelledReceipt says which sub-agents exec cancelled as it ended.
func (p *execPrinter) cancelledReceipt(cs []agent.Cancelled) {
	if len(cs) == 0 || p.streamJSON() || p.o.json {
		return
	}
	p.newline()
	fmt.Fprintf(p.ios.Err, "%d sub-agent(s) had not finished when the turn ended and were cancelled (--wait-agents waits for them):\n", len(cs))
	for i, c := range cs {
		if i == 20 {
			fmt.Fprintf(p.ios.Err, "  … and %d more\n", len(cs)-i)
			break
		}
		fmt.Fprintf(p.ios.Err, "  %s  %s, was %s: %s\n", c.ID, c.Role, c.Was, c.Prompt)
	}
}

// cancelledList is the receipt for JSON output; never null.
func cancelledList(cs []agent.Cancelled) []agent.Cancelled {
	if cs == nil {
		return []agent.Cancelled{}
	}
	return cs
}

// admission reports a change of the sub-agent launch pace (CONTRACT.md
// §6.5 and CONTRACT.md §13.3): a stream-json "admission" line, or a line on stderr. It is
// called from the child whose 429 (or recovery) changed it.
func (p *execPrinter) admission(s agent.AdmissionState) {
	if p.streamJSON() {
		p.line("admission", "event", s.Event, "launches_per_sec", s.Rate, "max_launches_per_sec", s.Ceiling,
			"throttled", s.Throttled, "rate_limited", s.RateLimited, "waiting", s.Waiting)
		return
	}
	if !p.o.json {
		p.mu.Lock()
		fmt.Fprintln(p.ios.Err, s.Line())
		p.mu.Unlock()
	}
}

// subagentsReport is the metadata's summary of the run's children: the
// launch pace as it ended and their usage by model; nil when none ran.
func subagentsReport(m *agent.Manager) map[string]any {
	byModel := m.UsageByModel()
	st := m.Admission().State()
	if len(byModel) == 0 && st.RateLimited == 0 {
		return nil
	}
	usage := map[string]any{}
	for model, u := range byModel {
		usage[model] = map[string]any{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens}
	}
	return map[string]any{"admission": st, "usage_by_model": usage}
}

// agentsReport is doctor's view of the sub-agent definitions, loaded as a
// session loads them.
func agentsReport(cfg *config.Config) doctor.AgentsReport {
	st := projectctx.Load(projectctx.Options{Home: cfg.Home, Workspace: cfg.Workspace, KnownTool: toolset.KnownTool}).State()
	rep := doctor.AgentsReport{Defined: len(st.Agents), Problems: st.AgentProblems}
	for _, a := range st.Agents {
		if a.Project && !a.Trusted {
			rep.Untrusted = append(rep.Untrusted, a.Name)
		}
	}
	return rep
}

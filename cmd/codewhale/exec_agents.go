package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/tools/agent"
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

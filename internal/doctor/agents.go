package doctor

import (
	"fmt"
	"strings"
)

// AgentsReport is what loading the sub-agent definitions found
// (CONTRACT.md §6.5).
type AgentsReport struct {
	Defined   int
	Untrusted []string // project definitions waiting for /agents trust
	Problems  []string // definitions not loaded, one line each
}

// agentsCheck reports the definitions: each one that did not load is a
// warning to fix (codewhale runs without it), an untrusted one a note.
func agentsCheck(r *Report, o Options) {
	if o.Agents == nil {
		return
	}
	a := o.Agents()
	c := Check{Name: "agents", Status: OK, Detail: fmt.Sprintf("%d sub-agent type(s) defined", a.Defined),
		Data: map[string]any{"defined": a.Defined, "untrusted": len(a.Untrusted), "problems": len(a.Problems)}}
	if len(a.Untrusted) > 0 {
		c.Detail += fmt.Sprintf("; %d not trusted yet (%s): review them, then /agents trust", len(a.Untrusted), strings.Join(a.Untrusted, ", "))
	}
	if len(a.Problems) > 0 {
		c.Status = Warn
		c.Detail += fmt.Sprintf("; %d not loaded:\n    %s", len(a.Problems), strings.Join(a.Problems, "\n    "))
		c.Fix = "fix or remove those files (/agents validate re-reads them)"
	}
	r.add(c)
}

package prompt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/posture"
)

// view is what the section templates see: the Env and the questions they
// ask of it, plus the rows they cover as they render.
type view struct {
	Env
	rows map[string]bool
}

// Cover marks row id as given by the text that follows it; it renders
// nothing. An unknown id fails the render (a test catches it).
func (v *view) Cover(id string) (string, error) {
	if !slices.ContainsFunc(Rows, func(r Row) bool { return r.ID == id }) {
		return "", fmt.Errorf("unknown row %q", id)
	}
	v.rows[id] = true
	return "", nil
}

// Has reports whether the catalog offers the tool named name on this turn
// (eager or deferred).
func (v *view) Has(name string) bool {
	return slices.ContainsFunc(v.Tools, func(t Tool) bool { return t.Name == name })
}

// Plan, Operate and Writes are the mode's questions; Writes is whether the
// File tool can change files this turn.
func (v *view) Plan() bool    { return v.Mode == posture.Plan }
func (v *view) Operate() bool { return v.Mode == posture.Operate }
func (v *view) Writes() bool  { return v.Mode != posture.Plan && v.Has("File") }

// Shell: the turn runs commands (Bash or Run).
func (v *view) Shell() bool { return v.Has("Bash") || v.Has("Run") }

// Ordinary is what happens to a call that needs ordinary approval:
// "ask", "auto" or "refused".
func (v *view) Ordinary() string {
	switch v.Approval.Required {
	case posture.Prompt:
		return "ask"
	case posture.AutoApprove:
		return "auto"
	}
	return "refused"
}

// ExplicitRefused: calls that need explicit approval are refused.
func (v *view) ExplicitRefused() bool { return refused(v.Approval.Explicit) }

// EditsRun: suggested edits run although other approvals are refused
// (Auto-Review).
func (v *view) EditsRun() bool {
	return v.Approval.Suggest == posture.AutoApprove && v.Approval.Required != posture.AutoApprove
}

// Deferred is the built-in deferred tools, bounded.
func (v *view) Deferred() []Tool {
	var out []Tool
	for _, t := range v.Tools {
		if t.Deferred && !t.MCP && len(out) < maxDeferred {
			out = append(out, t)
		}
	}
	return out
}

// DeferredLeft is how many built-in deferred tools Deferred left out.
func (v *view) DeferredLeft() int {
	n := 0
	for _, t := range v.Tools {
		if t.Deferred && !t.MCP {
			n++
		}
	}
	return max(0, n-maxDeferred)
}

// MCPNames is the deferred MCP tools by name, bounded, with the count of
// those left out; "" when there are none.
func (v *view) MCPNames() string {
	var names []string
	for _, t := range v.Tools {
		if t.Deferred && t.MCP {
			names = append(names, t.Name)
		}
	}
	if len(names) > maxMCPNames {
		return strings.Join(names[:maxMCPNames], ", ") + fmt.Sprintf(" and %d more", len(names)-maxMCPNames)
	}
	return strings.Join(names, ", ")
}

// Interactive: a person answers questions and prompts.
func (v *view) Interactive() bool { return !v.Headless && v.SubAgent == "" }

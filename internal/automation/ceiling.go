package automation

import (
	"strings"

	"github.com/codewhale/codewhale/internal/posture"
)

// Ceiling is the most authority the automation's runs get: what the
// session that created it, or last changed it, had — never more.
type Ceiling struct {
	Posture     string `json:"posture"` // never, ask, auto, full_access
	AutoApprove bool   `json:"auto_approve"`
	AllowShell  bool   `json:"allow_shell"`
	TrustMode   bool   `json:"trust_mode"`
}

// PolicyPosture is the posture c names (anything unknown is Ask).
func (c Ceiling) PolicyPosture() posture.Posture {
	switch c.Posture {
	case "full_access":
		return posture.FullAccess
	case "auto":
		return posture.AutoReview
	case "never":
		return posture.Never
	}
	return posture.Ask
}

// Meet is the most authority both c and o allow: the lower posture, and
// each flag only where both have it. An update, a resume or a run a session
// starts gets the stored ceiling met with the session's: authority never
// outlives the session that granted it (CONTRACT.md §6.12).
func (c Ceiling) Meet(o Ceiling) Ceiling {
	out := Ceiling{Posture: c.Posture, AutoApprove: c.AutoApprove && o.AutoApprove, AllowShell: c.AllowShell && o.AllowShell,
		TrustMode: c.TrustMode && o.TrustMode}
	if o.PolicyPosture().NoMoreThan(c.PolicyPosture()) {
		out.Posture = o.Posture
	}
	if out.Posture == "" {
		out.Posture = "ask"
	}
	return out
}

// Exceeds reports whether c grants something o does not.
func (c Ceiling) Exceeds(o Ceiling) bool { return c.Meet(o) != c.Meet(c) }

// Describe says in words what a run under c may do, for an approval card
// and the start-up list of runs.
func (c Ceiling) Describe() string {
	var s string
	switch c.PolicyPosture() {
	case posture.FullAccess:
		s = "Full Access — its tool calls run without asking anyone"
	case posture.AutoReview:
		s = "Auto-Review — what needs approval is held"
	case posture.Never:
		s = "never — every call that needs approval is refused"
	default:
		s = "Ask — it runs headless, so what needs approval is refused"
		if c.AutoApprove {
			s = "Ask with auto-approve — ordinary approvals are given, explicit ones refused"
		}
	}
	var flags []string
	if c.AllowShell {
		flags = append(flags, "shell commands")
	}
	if c.TrustMode {
		flags = append(flags, "files outside the workspace")
	}
	if len(flags) > 0 {
		s += "; may use " + strings.Join(flags, " and ")
	}
	return s
}

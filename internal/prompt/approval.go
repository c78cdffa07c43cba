package prompt

import (
	"strings"

	"github.com/codewhale/codewhale/internal/posture"
)

// Approval is what the approval policy does on a turn to a call, by how
// strongly the call needs a person's approval: posture.Decide over the
// posture and host the engine's approval step passes it. The system prompt
// and the <turn_meta> posture line both read it, so neither can say more
// or less than the policy does.
type Approval struct {
	Posture                           posture.Posture
	Host                              posture.Host
	Suggest, Required, Explicit, Hold posture.Disposition
}

// ApprovalOf is the Approval of posture p on host h.
func ApprovalOf(p posture.Posture, h posture.Host) Approval {
	return Approval{Posture: p, Host: h,
		Suggest:  posture.Decide(p, posture.NeedSuggest, h),
		Required: posture.Decide(p, posture.NeedRequired, h),
		Explicit: posture.Decide(p, posture.NeedExplicit, h),
		Hold:     posture.Decide(p, posture.NeedHold, h)}
}

// For is the disposition of a call with need n.
func (a Approval) For(n posture.Need) posture.Disposition {
	switch n {
	case posture.NeedSuggest:
		return a.Suggest
	case posture.NeedRequired:
		return a.Required
	case posture.NeedExplicit:
		return a.Explicit
	}
	return a.Hold
}

func (a Approval) same(b Approval) bool {
	return a.Suggest == b.Suggest && a.Required == b.Required && a.Explicit == b.Explicit && a.Hold == b.Hold
}

// Label is the posture as it is in force, for <turn_meta>: the posture's
// name, what the host changes about it (auto-approval, no one to ask), and
// what happens to each kind of call that needs approval. For example
// "Ask with auto-approval, headless — calls needing approval: allowed
// without asking; calls needing explicit approval, hard holds: refused (no
// one can answer a prompt in this run)".
func (a Approval) Label() string {
	name := a.Posture.String()
	if h := a.Host; h.AutoApprove && !a.same(ApprovalOf(a.Posture, posture.Host{Interactive: h.Interactive})) {
		name += " with auto-approval"
	}
	if h := a.Host; !h.Interactive && !a.same(ApprovalOf(a.Posture, posture.Host{Interactive: true, AutoApprove: h.AutoApprove})) {
		name += ", headless"
	}
	type level struct {
		who string
		d   posture.Disposition
	}
	levels := []level{{"suggested edits", a.Suggest}, {"calls needing approval", a.Required},
		{"calls needing explicit approval", a.Explicit}, {"hard holds", a.Hold}}
	if a.Suggest == a.Required {
		levels = levels[1:] // suggested edits are calls needing approval
	}
	var groups []string
	for i := 0; i < len(levels); {
		j := i + 1
		for j < len(levels) && levels[j].d == levels[i].d {
			j++
		}
		var who []string
		for _, l := range levels[i:j] {
			who = append(who, l.who)
		}
		w := strings.Join(who, ", ")
		if i == 0 && j == len(levels) {
			w = "every call needing approval"
		}
		groups = append(groups, w+": "+outcome(levels[i].d))
		i = j
	}
	return name + " — " + strings.Join(groups, "; ")
}

func outcome(d posture.Disposition) string {
	switch d {
	case posture.AutoApprove:
		return "allowed without asking"
	case posture.Prompt:
		return "the user is asked"
	case posture.HeldAutoReview:
		return "refused without asking (Auto-Review)"
	case posture.BlockedFullAccess:
		return "refused (Full Access opens no prompts)"
	case posture.DeniedNever:
		return "refused (approval_policy = never)"
	default:
		return "refused (no one can answer a prompt in this run)"
	}
}

// refused reports whether d refuses the call.
func refused(d posture.Disposition) bool { return d != posture.AutoApprove && d != posture.Prompt }

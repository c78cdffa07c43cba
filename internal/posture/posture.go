// Package posture holds the two independent controls a session has: the mode
// (Plan, Act, Operate) and the permission posture (Ask, Auto-Review, Full
// Access, Never), and the decision of what happens to a tool call that needs
// approval under a posture (CONTRACT.md §12.6).
package posture

import (
	"fmt"
	"strings"
)

// Mode is the session mode. Plan is read-only and is never widened by a
// posture.
type Mode int

const (
	Act Mode = iota
	Plan
	Operate
)

// Modes lists the modes in Tab-cycling order.
var Modes = []Mode{Plan, Act, Operate}

func (m Mode) String() string {
	switch m {
	case Plan:
		return "plan"
	case Operate:
		return "operate"
	default:
		return "act"
	}
}

// Title is the capitalised name used in messages ("Switched to Plan mode.").
func (m Mode) Title() string {
	s := m.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

// Next is the mode after m in the Plan → Act → Operate → Plan cycle.
func (m Mode) Next() Mode {
	switch m {
	case Plan:
		return Act
	case Act:
		return Operate
	default:
		return Plan
	}
}

// ParseMode accepts act|agent|plan|operate and 1|2|3 (1 = Act, 2 = Plan,
// 3 = Operate).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "act", "agent", "1":
		return Act, nil
	case "plan", "2":
		return Plan, nil
	case "operate", "3":
		return Operate, nil
	}
	return Act, fmt.Errorf("unknown mode %q (expected plan, act or operate)", s)
}

// Posture is the permission posture.
type Posture int

const (
	Ask Posture = iota
	AutoReview
	FullAccess
	Never
)

// All lists the postures Shift+Tab cycles through (Never is config-only).
var All = []Posture{Ask, AutoReview, FullAccess}

func (p Posture) String() string {
	switch p {
	case AutoReview:
		return "Auto-Review"
	case FullAccess:
		return "Full Access"
	case Never:
		return "Never"
	default:
		return "Ask"
	}
}

// Value is the approval_policy spelling of p (Parse's inverse).
func (p Posture) Value() string {
	switch p {
	case AutoReview:
		return "auto"
	case FullAccess:
		return "bypass"
	case Never:
		return "never"
	default:
		return "suggest"
	}
}

// Chip is the short label the status bar shows.
func (p Posture) Chip() string {
	switch p {
	case AutoReview:
		return "auto"
	case FullAccess:
		return "Full Access"
	case Never:
		return "never"
	default:
		return "ask"
	}
}

// NoMoreThan reports whether p grants no more than q: never < Ask <
// Auto-Review < Full Access. It is the one ordering of postures — a project
// file may only tighten one, and work a session stores (an automation, a
// task) never keeps more than the session that last changed it.
func (p Posture) NoMoreThan(q Posture) bool { return p.rank() <= q.rank() }

func (p Posture) rank() int {
	switch p {
	case Never:
		return 0
	case AutoReview:
		return 2
	case FullAccess:
		return 3
	}
	return 1
}

// Authority is what a turn may do beyond its mode: its posture, whether it
// may run shell commands and whether trust mode widens its file boundary.
// A sub-agent's is bounded by its parent's as the parent's is now
// (CONTRACT.md §6.5).
type Authority struct {
	Posture    Posture
	AllowShell bool
	Trust      bool
}

// Meet is the most authority both a and b allow: the lower posture, and
// each flag only where both have it.
func (a Authority) Meet(b Authority) Authority {
	if b.Posture.NoMoreThan(a.Posture) {
		a.Posture = b.Posture
	}
	a.AllowShell = a.AllowShell && b.AllowShell
	a.Trust = a.Trust && b.Trust
	return a
}

// Next is the posture after p in the Ask → Auto-Review → Full Access cycle.
func (p Posture) Next() Posture {
	switch p {
	case Ask:
		return AutoReview
	case AutoReview:
		return FullAccess
	default:
		return Ask
	}
}

// Values are the approval_policy spellings Parse accepts,
// in the order its error lists them.
const Values = "suggest, on-request, untrusted, auto, bypass, never"

// Parse accepts exactly the documented approval_policy values:
// suggest (and the spellings on-request, untrusted) for Ask, auto for
// Auto-Review, bypass for Full Access and never; "" is the default, Ask.
// Anything else ("yolo", "BYPASS", "full") is an error naming the allowed
// values, so a typo never silently widens or narrows the posture.
func Parse(s string) (Posture, error) {
	switch s {
	case "suggest", "on-request", "untrusted", "":
		return Ask, nil
	case "auto":
		return AutoReview, nil
	case "bypass":
		return FullAccess, nil
	case "never":
		return Never, nil
	}
	return Ask, fmt.Errorf("unknown approval_policy %q (allowed: %s)", s, Values)
}

// Need is how strongly a call needs a person's approval.
type Need int

const (
	// NeedSuggest is an ordinary suggested write: Auto-Review's fallback
	// allows it.
	NeedSuggest Need = iota
	// NeedRequired is ordinary approval.
	NeedRequired
	// NeedExplicit needs a person's yes for this one call in every posture
	// but Full Access, which allows it. exec --auto does not approve it.
	NeedExplicit
	// NeedHold is non-bypassable: a person's yes, and Full Access, which
	// opens no prompts, blocks it (a permission rule's ask, a
	// tool_call_before hook's ask).
	NeedHold
)

// Host says who can answer a prompt.
type Host struct {
	Interactive bool // a person answers prompts (the TUI)
	AutoApprove bool // exec --auto: approve the ordinary prompts the posture would show
}

// Disposition is what happens to a call that needs approval.
type Disposition int

const (
	Prompt Disposition = iota
	AutoApprove
	// HeldAutoReview: Auto-Review denies without pausing.
	HeldAutoReview
	// BlockedFullAccess: a non-bypassable hold under Full Access.
	BlockedFullAccess
	// DeniedNever: the Never posture denies every call that needs approval.
	DeniedNever
	// DeniedHeadless: a prompt with no one to answer it.
	DeniedHeadless
)

// Decide returns the disposition of a call with need n under posture p on
// host h (CONTRACT.md §12.6). --auto approves what the posture would prompt
// for, never more: it widens neither a Never nor an Auto-Review hold, nor
// an explicit approval, and it does not bypass a hold.
func Decide(p Posture, n Need, h Host) Disposition {
	switch p {
	case FullAccess:
		if n == NeedHold {
			return BlockedFullAccess
		}
		return AutoApprove
	case AutoReview:
		if n == NeedSuggest {
			return AutoApprove
		}
		return HeldAutoReview
	case Never:
		return DeniedNever
	}
	switch {
	case h.AutoApprove && n <= NeedRequired:
		return AutoApprove
	case h.Interactive:
		return Prompt
	}
	return DeniedHeadless
}

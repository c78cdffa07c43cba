// Package policy holds the two independent controls a session has: the mode
// (Plan, Act, Operate) and the permission posture (Ask, Auto-Review, Full
// Access, Never), and the decision of what happens to a tool call that needs
// approval under a posture (engine.md §5.6).
package policy

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

// Postures lists the postures Shift+Tab cycles through (Never is config-only).
var Postures = []Posture{Ask, AutoReview, FullAccess}

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

// ParsePosture accepts the config values (suggest|auto|bypass|never, and the
// approval_policy spellings on-request|untrusted) and the display names.
func ParsePosture(s string) (Posture, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "suggest", "ask", "on-request", "untrusted", "":
		return Ask, nil
	case "auto", "auto-review", "auto_review":
		return AutoReview, nil
	case "bypass", "full", "full-access", "full access", "yolo":
		return FullAccess, nil
	case "never":
		return Never, nil
	}
	return Ask, fmt.Errorf("unknown approval posture %q (expected suggest, auto, bypass or never)", s)
}

// Disposition is what happens to a call that needs approval.
type Disposition int

const (
	Prompt Disposition = iota
	AutoApprove
	DenyWithoutPause
	Block
)

// Decide returns the disposition of a call that needs approval under
// posture p. forcePrompt marks a non-bypassable hold. headless hosts have
// no one to ask: autoApprove (exec --auto) approves, otherwise prompts
// are denied.
func Decide(p Posture, forcePrompt bool) Disposition {
	switch p {
	case FullAccess:
		if forcePrompt {
			return Block
		}
		return AutoApprove
	case AutoReview:
		return DenyWithoutPause
	case Never:
		return DenyWithoutPause
	default:
		return Prompt
	}
}

package approvalcard

import "github.com/codewhale/codewhale/internal/engine"

// Choice is an answer to an approval card.
type Choice int

const (
	AllowOnce Choice = iota
	AllowSession
	Deny
	Abort
	// AllowAlways approves and saves the card's exact allow rule to the
	// global permissions.toml (engine.ApprovalRequired.SaveRule).
	AllowAlways
)

// optionText are the card's rows (CONTRACT.md §14.6).
var optionText = map[Choice]string{AllowOnce: "Allow once", AllowSession: "Allow for this session (this kind)",
	AllowAlways: "Always allow this (save rule)", Deny: "Deny this call", Abort: "Abort the turn"}

// Text is the choice as the card words it.
func (c Choice) Text() string { return optionText[c] }

// Options are the choices the card offers, in order: a call that needs an
// explicit approval (ForcePrompt) has no "allow for the session"; "Always
// allow this" appears only on a card whose call has an exact rule to save.
func Options(req engine.ApprovalRequired) []Choice {
	var cs []Choice
	switch {
	case req.ForcePrompt:
		cs = []Choice{AllowOnce, Deny, Abort}
	case req.SaveRule != "":
		cs = []Choice{AllowOnce, AllowSession, AllowAlways, Deny, Abort}
	default:
		cs = []Choice{AllowOnce, AllowSession, Deny, Abort}
	}
	if req.Direct {
		cs = cs[:len(cs)-1] // no turn to abort: the person's own command
	}
	return cs
}

// Op is the engine's op for choice c on the card of call id.
func Op(id string, c Choice) engine.Op {
	switch c {
	case AllowOnce:
		return engine.ApproveToolCall{ID: id}
	case AllowSession:
		return engine.ApproveToolCall{ID: id, ForSession: true}
	case AllowAlways:
		return engine.ApproveToolCall{ID: id, SaveRule: true}
	case Abort:
		return engine.DenyToolCall{ID: id, Abort: true}
	}
	return engine.DenyToolCall{ID: id}
}

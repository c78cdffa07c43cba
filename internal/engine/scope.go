package engine

import (
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools"
)

// TurnScope is what a user command (or /init) sets for its one turn
// (CONTRACT.md §17.2). It narrows: a mode may only move to Plan or between
// Act and Operate, and the tool list applies on top of the session's.
type TurnScope struct {
	Command    string        // the command's name, for statuses ("review", "frontend:lint")
	Model      string        // "" = the session's model
	Mode       *posture.Mode // nil = the session's mode
	AllowTools []string      // nil = no further limit; names or prefix* rules
}

// applyScope narrows the turn to send's scope and says what it changed.
// model is the session's model, replaced when the scope names one.
func (t *turn) applyScope(s *TurnScope, model *string) {
	if s == nil {
		return
	}
	var notes []string
	switch {
	case s.Mode == nil:
	case *s.Mode != posture.Plan && t.set.Mode == posture.Plan:
		notes = append(notes, fmt.Sprintf("stays in Plan mode (it asks for %s; a command never widens the session's mode — /mode %s first)",
			s.Mode.Title(), s.Mode))
	default:
		// The command's mode stands for the turn even when the session is
		// in it now: a mode change adopted mid-turn moves it only to Plan
		// (adopt, CONTRACT.md §8.1).
		t.scopeMode = s.Mode
		if *s.Mode != t.set.Mode {
			t.set.Mode = *s.Mode
			notes = append(notes, "runs in "+t.set.Mode.Title()+" mode")
		}
	}
	if s.Model != "" && s.Model != *model {
		*model = s.Model
		notes = append(notes, "uses model "+s.Model)
	}
	if s.AllowTools != nil {
		t.scopeAllow = s.AllowTools
		if len(s.AllowTools) == 0 {
			t.scopeAllow = []string{"\x00"} // an empty list allows nothing
			notes = append(notes, "may use no tools")
		} else {
			notes = append(notes, "may use only "+strings.Join(s.AllowTools, ", "))
		}
	}
	if len(notes) > 0 && s.Command != "" {
		t.e.emit(Status{Message: "/" + s.Command + " " + strings.Join(notes, "; ") + " for this turn.", Keep: true})
	}
}

// scopeRefusal is the refusal of a call the turn's command does not allow,
// or nil.
func (t *turn) scopeRefusal(name string, names []string) *tools.Error {
	if t.scopeAllow == nil || matchesAny(t.scopeAllow, names) {
		return nil
	}
	return tools.PermissionDenied("Tool '%s' is not in the allowed-tools list for the current command", name)
}

// ruleNames are the names a call's allow and deny rules see (CONTRACT.md
// §4.8): the name called and, for a replay alias, the tool it stands for —
// denying `github` denies `github_comment` too.
func ruleNames(name string, tool tools.Tool) []string {
	if a, ok := tool.(interface{ Canonical() string }); ok && a.Canonical() != name {
		return []string{name, a.Canonical()}
	}
	return []string{name}
}

// matchesAny reports whether any of names matches one of rules.
func matchesAny(rules, names []string) bool {
	for _, n := range names {
		if catalog.MatchesAny(rules, n) {
			return true
		}
	}
	return false
}

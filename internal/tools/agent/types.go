package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools"
)

// builtinRoles are the roles the tool always offers (CONTRACT.md §6.5).
var builtinRoles = []string{"worker", "scout", "planner", "reviewer", "builder", "verifier", "consultant", "custom"}

// Type is a sub-agent type a person defined (CONTRACT.md §6.5): its name is
// a value of `type`, its instructions become the child's, and one equal to
// a built-in role replaces that role's.
type Type struct {
	Name, Description, Instructions string
	// Tools is the allow-list (nil: every tool the child's mode offers);
	// FileReadOnly gives File without its writes.
	Tools        []string
	FileReadOnly bool
	// ActOnly are the tools it names that Plan never offers: in Plan such
	// a type is refused rather than started without them.
	ActOnly         []string
	Model           string
	ReasoningEffort string
	Mode            *posture.Mode // nil: the built-in role's, else the session's
	Source          string        // the file it was read from
	// Untrusted, when set, says why it may not run yet and how to allow it
	// (a repository's definition before /agents trust).
	Untrusted string
}

// Types is one load of the defined types, immutable once built.
type Types struct {
	list []Type
	key  string // changes exactly when the published schema would
}

// NewTypes returns the types in list (in load order).
func NewTypes(list []Type) *Types {
	h := sha256.New()
	for _, t := range list {
		fmt.Fprintf(h, "%s\x00%s\x00", t.Name, t.Description)
	}
	return &Types{list: slices.Clone(list), key: hex.EncodeToString(h.Sum(nil))}
}

// List returns the types.
func (ts *Types) List() []Type {
	if ts == nil {
		return nil
	}
	return slices.Clone(ts.list)
}

// Lookup finds the type named name.
func (ts *Types) Lookup(name string) (*Type, bool) {
	if ts == nil {
		return nil, false
	}
	for i := range ts.list {
		if ts.list[i].Name == name {
			return &ts.list[i], true
		}
	}
	return nil, false
}

// known reports whether name is a value of `type`.
func (ts *Types) known(name string) bool {
	_, ok := ts.Lookup(name)
	return ok || slices.Contains(builtinRoles, name)
}

// readOnly reports whether a child of role runs read-only: a defined type
// by its mode (a built-in role's name keeps that role's when it sets
// none), a built-in role by ReadOnlyRole.
func (ts *Types) readOnly(role string) bool {
	if t, ok := ts.Lookup(role); ok && t.Mode != nil {
		return *t.Mode == posture.Plan
	}
	return ReadOnlyRole(role)
}

// MaxDefinedTypes bounds the defined types one session offers: their names
// are values of `type`, carried in every request.
const MaxDefinedTypes = 64

// Bounds of what the schema says about defined types: the published tool
// carries them in the first request, whose size is budgeted.
const (
	maxTypesListed   = 24
	maxTypeDescRunes = 90
	maxTypesDocBytes = 1600
)

// typeDoc is the `type` field's description with the defined types.
func (ts *Types) typeDoc() string {
	var b strings.Builder
	b.WriteString("Role or defined type. scout/planner/reviewer/verifier/consultant run read-only. Defined:")
	listed := 0
	for _, t := range ts.list {
		desc := t.Description
		if utf8.RuneCountInString(desc) > maxTypeDescRunes {
			desc = string([]rune(desc)[:maxTypeDescRunes-1]) + "…"
		}
		entry := " " + t.Name + ": " + strings.TrimRight(desc, ".") + "."
		if listed == maxTypesListed || b.Len()+len(entry) > maxTypesDocBytes {
			break
		}
		b.WriteString(entry)
		listed++
	}
	if n := len(ts.list) - listed; n > 0 {
		fmt.Fprintf(&b, " (%d more; each is a valid type.)", n)
	}
	return b.String()
}

// schemaWith is base with the defined types in `type`: their names in the
// enum after the built-in roles, and the bounded list in its description.
// base is never modified (it is the shared, memoised schema).
func (ts *Types) schemaWith(base map[string]any) map[string]any {
	out := maps.Clone(base)
	props := maps.Clone(base["properties"].(map[string]any))
	typ := maps.Clone(props["type"].(map[string]any))
	enum := slices.Clone(builtinRoles)
	for _, t := range ts.list {
		if !slices.Contains(enum, t.Name) {
			enum = append(enum, t.Name)
		}
	}
	typ["enum"], typ["description"] = enum, ts.typeDoc()
	props["type"] = typ
	out["properties"] = props
	return out
}

// childMode is the mode a child of role (t its defined type, or nil) runs
// in under the session's mode: a type's own mode, else Plan for a read-only
// built-in role, else the session's — never wider than Plan when the
// session is in Plan. A type that names tools Plan never offers is refused
// there rather than started without them.
func childMode(session posture.Mode, role string, t *Type) (posture.Mode, error) {
	m := session
	switch {
	case t != nil && t.Mode != nil:
		m = *t.Mode
	case ReadOnlyRole(role):
		m = posture.Plan
	}
	if session == posture.Plan {
		m = posture.Plan
	}
	if m == posture.Plan && t != nil && len(t.ActOnly) > 0 && session != posture.Plan && t.Mode == nil {
		return m, tools.PermissionDenied("sub-agent type %s runs read-only like the built-in %s role, and lists %s, which "+
			"Plan mode never offers; add `mode: act` to %s to let it use them", t.Name, role, strings.Join(t.ActOnly, ", "), t.Source)
	}
	if m == posture.Plan && t != nil && len(t.ActOnly) > 0 {
		return m, tools.PermissionDenied("sub-agent type %s lists %s, which Plan mode never offers; it is not started "+
			"without them: switch to Act (Tab) first, or use a type without them", t.Name, strings.Join(t.ActOnly, ", "))
	}
	return m, nil
}

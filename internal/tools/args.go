package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Args is a tool's input object, read through strict helpers (CONTRACT.md §2.3):
// a present value of the wrong type is always an error, never coerced; JSON
// null counts as absent.
type Args map[string]json.RawMessage

// ParseArgs decodes a tool input object. An empty input is an empty object.
func ParseArgs(in json.RawMessage) (Args, error) {
	if len(bytes.TrimSpace(in)) == 0 {
		return Args{}, nil
	}
	var a Args
	if err := json.Unmarshal(in, &a); err != nil || a == nil {
		return nil, InvalidInput("tool input must be a JSON object")
	}
	for k, v := range a {
		if string(v) == "null" {
			delete(a, k)
		}
	}
	return a, nil
}

// Keys returns the present keys, sorted.
func (a Args) Keys() []string {
	out := make([]string, 0, len(a))
	for k := range a {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Has reports whether field is present (and not null).
func (a Args) Has(field string) bool { _, ok := a[field]; return ok }

// Marshal re-encodes the arguments.
func (a Args) Marshal() json.RawMessage {
	b, _ := json.Marshal(map[string]json.RawMessage(a))
	return b
}

// JSONType names the JSON type of a raw value.
func JSONType(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "null"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// Preview is a value's JSON cut to 117 chars plus "..." when longer than 120.
func Preview(v json.RawMessage) string {
	s := string(bytes.TrimSpace(v))
	if r := []rune(s); len(r) > 120 {
		return string(r[:117]) + "..."
	}
	return s
}

func typeError(field, want string, v json.RawMessage) *Error {
	return &Error{Kind: KindInvalidInput, Field: field,
		Msg: fmt.Sprintf("field '%s' must be %s; got %s. Received: %s", field, want, JSONType(v), Preview(v))}
}

// String returns an optional string field.
func (a Args) String(field string) (string, bool, error) {
	v, ok := a[field]
	if !ok {
		return "", false, nil
	}
	var s string
	if JSONType(v) != "string" || json.Unmarshal(v, &s) != nil {
		return "", false, typeError(field, "a string", v)
	}
	return s, true, nil
}

// RequireString returns a required string field. Absent from an empty object
// it is MissingField; absent among other keys it names what was provided.
func (a Args) RequireString(field string) (string, error) {
	s, ok, err := a.String(field)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", a.Missing(field)
	}
	return s, nil
}

// Missing is the error for an absent required field.
func (a Args) Missing(field string) error {
	if len(a) == 0 {
		return MissingField(field)
	}
	return &Error{Kind: KindInvalidInput, Field: field,
		Msg: fmt.Sprintf("missing required field '%s'. Input provided: %s", field, strings.Join(a.Keys(), ", "))}
}

// Int returns an optional integer field.
func (a Args) Int(field string) (int, bool, error) {
	v, ok := a[field]
	if !ok {
		return 0, false, nil
	}
	var n json.Number
	if JSONType(v) != "number" || json.Unmarshal(v, &n) != nil {
		return 0, false, typeError(field, "an integer", v)
	}
	i, err := n.Int64()
	if err != nil {
		return 0, false, typeError(field, "an integer", v)
	}
	return int(i), true, nil
}

// Uint returns an optional non-negative integer field.
func (a Args) Uint(field string) (int, bool, error) {
	v, ok := a[field]
	if !ok {
		return 0, false, nil
	}
	i, _, err := a.Int(field)
	if err != nil || i < 0 {
		return 0, false, typeError(field, "a non-negative integer", v)
	}
	return i, true, nil
}

// Bool returns an optional boolean field; the string "true" is not a bool.
func (a Args) Bool(field string) (bool, bool, error) {
	v, ok := a[field]
	if !ok {
		return false, false, nil
	}
	var b bool
	if JSONType(v) != "boolean" || json.Unmarshal(v, &b) != nil {
		return false, false, typeError(field, "a boolean", v)
	}
	return b, true, nil
}

// StringList returns an optional array-of-strings field.
func (a Args) StringList(field string) ([]string, bool, error) {
	v, ok := a[field]
	if !ok {
		return nil, false, nil
	}
	var out []string
	if JSONType(v) != "array" || json.Unmarshal(v, &out) != nil {
		return nil, false, typeError(field, "an array of strings", v)
	}
	return out, true, nil
}

// Action reads the `action` of an action family (CONTRACT.md §2.4). def is the
// default when absent ("" = the action is required).
func (a Args) Action(tool string, allowed []string, def string) (string, error) {
	list := strings.Join(allowed, ", ")
	v, ok := a["action"]
	if !ok {
		if def != "" {
			return def, nil
		}
		return "", InvalidInput("%s requires an `action` parameter; nothing was run. Pass one of: %s.", tool, list)
	}
	var s string
	if JSONType(v) != "string" || json.Unmarshal(v, &s) != nil {
		return "", InvalidInput("%s requires `action` to be a string, got %s; nothing was run. Pass one of: %s.", tool, Preview(v), list)
	}
	for _, x := range allowed {
		if x == s {
			return s, nil
		}
	}
	return "", InvalidInput("Unknown %s action %q; nothing was run. Pass one of: %s.", tool, s, list)
}

// FamilyAction reads `action` with the short error forms of the tasks,
// github, automation and rlm families.
func (a Args) FamilyAction(family string, allowed []string) (string, error) {
	list := strings.Join(allowed, ", ")
	s, ok, err := a.String("action")
	if err != nil || !ok {
		return "", InvalidInput("%s: missing `action` (one of: %s)", family, list)
	}
	for _, x := range allowed {
		if x == s {
			return s, nil
		}
	}
	return "", InvalidInput("%s: invalid action `%s` (one of: %s)", family, s, list)
}

// PeekAction returns the action string if present and a string, else def;
// for the policy predicates, which never fail.
func PeekAction(in json.RawMessage, def string) string {
	var probe struct {
		Action json.RawMessage `json:"action"`
	}
	if json.Unmarshal(in, &probe) != nil {
		return def
	}
	var s string
	if json.Unmarshal(probe.Action, &s) != nil || s == "" {
		return def
	}
	return s
}

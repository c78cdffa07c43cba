// Package paramtest checks that a typed tool's three views of its parameter
// contract agree (docs/ARCHITECTURE.md §6): the published schema, the
// per-action table and the decoder. The registry does not validate a typed
// tool's input against its schema, so the decoder must be at least as
// strict as the schema; these checks are what proves it, per tool.
package paramtest

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// Case is one tool instance to check.
type Case struct {
	Tool    tools.Tool
	Actions *tools.Actions // the family's table; nil for a tool without actions
	// Samples are valid values for properties whose schema-typed sample
	// ("a", 1, true, ["a"]) a value rule would refuse (a page range, say),
	// keyed "action.property" or "property".
	Samples map[string]any
}

// Agree runs every check on c.
func Agree(t *testing.T, c Case) {
	t.Helper()
	schema := c.Tool.InputSchema()
	props, _ := schema["properties"].(map[string]any)
	if c.Actions == nil {
		agreeAction(t, c, schema, props, "", tools.Rule{Allowed: slices.Sorted(maps.Keys(props)),
			Required: asList(schema["required"])})
		return
	}
	actions := enumOf(t, props[c.Actions.Field])
	var published []string
	for p := range props {
		if p != c.Actions.Field {
			published = append(published, p)
		}
	}
	sort.Strings(published)
	var allowed []string
	for _, a := range actions {
		r := rule(c.Actions, a)
		if r.Action == "" {
			t.Errorf("%s: schema enum lists %q, which the table lacks", c.Tool.Name(), a)
			continue
		}
		for _, f := range r.Allowed {
			if !slices.Contains(allowed, f) {
				allowed = append(allowed, f)
			}
		}
		agreeAction(t, c, schema, props, a, r)
	}
	sort.Strings(allowed)
	if !slices.Equal(published, allowed) {
		t.Errorf("%s: schema properties %v, but the instance's actions allow %v", c.Tool.Name(), published, allowed)
	}
}

// agreeAction checks one action: its minimal input prepares and validates;
// without a required field, or with a field of the wrong JSON type, it is
// refused by the decoder and the schema alike; each alias decodes to the
// canonical input; a key the action does not allow is refused.
func agreeAction(t *testing.T, c Case, schema, props map[string]any, action string, r tools.Rule) {
	t.Helper()
	name := c.Tool.Name() + " " + action
	base := map[string]any{}
	if action != "" {
		base[c.Actions.Field] = action
	}
	if r.OneOf {
		for _, f := range r.Required {
			in := maps.Clone(base)
			in[f] = c.sample(t, props, action, f)
			mustPrepare(t, name+" "+f, c.Tool, schema, in)
		}
		base[r.Required[0]] = c.sample(t, props, action, r.Required[0])
		if _, err := tools.PrepareCall(c.Tool, encode(map[string]any{c.Actions.Field: action})); err == nil {
			t.Errorf("%s: accepted with none of %v", name, r.Required)
		}
	} else {
		for _, f := range r.Required {
			base[f] = c.sample(t, props, action, f)
		}
	}
	mustPrepare(t, name, c.Tool, schema, base)
	for _, f := range r.Allowed {
		if r.OneOf && slices.Contains(r.Required, f) && f != r.Required[0] {
			continue // exactly one of them
		}
		in := maps.Clone(base)
		in[f] = c.sample(t, props, action, f)
		mustPrepare(t, name+" +"+f, c.Tool, schema, in)
		in[f] = wrongType(props[f])
		if _, err := tools.PrepareCall(c.Tool, encode(in)); err == nil {
			t.Errorf("%s: %s=%v (wrong type) was accepted", name, f, in[f])
		}
		if tools.Validate(c.Tool.Name(), schema, encode(in)) == nil {
			t.Errorf("%s: the schema accepts %s=%v, which the decoder refuses", name, f, in[f])
		}
	}
	if !r.OneOf {
		for _, f := range r.Required {
			in := maps.Clone(base)
			delete(in, f)
			if _, err := tools.PrepareCall(c.Tool, encode(in)); err == nil {
				t.Errorf("%s: accepted without required %s", name, f)
			}
		}
	}
	if c.Actions == nil {
		return
	}
	agreeAliases(t, c, props, action, base, r)
	// No field is ignored (CONTRACT.md §2.4): a key outside the action's table
	// is refused by every family, and so is a key another action takes.
	in := maps.Clone(base)
	in["no_such_parameter"] = "x"
	if _, err := tools.PrepareCall(c.Tool, encode(in)); err == nil {
		t.Errorf("%s: an unknown key was accepted", name)
	}
	for prop := range props {
		if prop == c.Actions.Field || slices.Contains(r.Allowed, prop) || foldsFor(c.Actions, action, prop) {
			continue
		}
		in := maps.Clone(base)
		in[prop] = c.sample(t, props, action, prop)
		if _, err := tools.PrepareCall(c.Tool, encode(in)); err == nil {
			t.Errorf("%s: %s, which the action does not take, was accepted and ignored", name, prop)
		}
	}
}

// agreeAliases sends each alias of action in place of its canonical key.
func agreeAliases(t *testing.T, c Case, props map[string]any, action string, base map[string]any, r tools.Rule) {
	t.Helper()
	for _, al := range c.Actions.Aliases {
		if al.Actions != nil && !slices.Contains(al.Actions, action) {
			continue
		}
		if !slices.Contains(r.Allowed, al.To) {
			continue // the canonical key is refused for this action, and so is its alias
		}
		canonical := maps.Clone(base)
		canonical[al.To] = c.sample(t, props, action, al.To)
		viaAlias := maps.Clone(base)
		delete(viaAlias, al.To)
		viaAlias[al.From] = canonical[al.To]
		if n, ok := canonical[al.To].(int); ok && al.Scale > 0 {
			canonical[al.To] = n * al.Scale // the same quantity in the alias's units
		}
		a, errA := tools.PrepareCall(c.Tool, encode(viaAlias))
		b, errB := tools.PrepareCall(c.Tool, encode(canonical))
		if errA != nil || errB != nil || string(a.Input) != string(b.Input) {
			t.Errorf("%s %s: alias %s → %s does not decode as its canonical key: %v %v", c.Tool.Name(), action,
				al.From, al.To, errA, errB)
		}
	}
}

func mustPrepare(t *testing.T, name string, tool tools.Tool, schema map[string]any, in map[string]any) {
	t.Helper()
	c, err := tools.PrepareCall(tool, encode(in))
	if err != nil {
		t.Errorf("%s: %s refused: %v", name, encode(in), err)
		return
	}
	if err := tools.Validate(tool.Name(), schema, c.Input); err != nil {
		t.Errorf("%s: the canonical input %s does not match the schema: %v", name, c.Input, err)
	}
}

func (c Case) sample(t *testing.T, props map[string]any, action, field string) any {
	t.Helper()
	if v, ok := c.Samples[action+"."+field]; ok {
		return v
	}
	if v, ok := c.Samples[field]; ok {
		return v
	}
	p, ok := props[field].(map[string]any)
	if !ok {
		t.Fatalf("%s: %s is allowed but not published", c.Tool.Name(), field)
	}
	if alts, ok := p["anyOf"].([]any); ok {
		p, _ = alts[0].(map[string]any)
	}
	switch p["type"] {
	case "integer":
		return 1
	case "boolean":
		return true
	case "array":
		return []any{"a"}
	}
	return "a"
}

// wrongType is a value of a JSON type the property does not accept (for an
// anyOf, a type none of its alternatives has).
func wrongType(prop any) any {
	p, _ := prop.(map[string]any)
	types := []any{p["type"]}
	if alts, ok := p["anyOf"].([]any); ok {
		types = types[:0]
		for _, a := range alts {
			alt, _ := a.(map[string]any)
			types = append(types, alt["type"])
		}
	}
	for _, c := range []struct {
		typ string
		v   any
	}{{"integer", 7}, {"string", "7"}, {"boolean", true}} {
		if !slices.Contains(types, any(c.typ)) && !(c.typ == "integer" && slices.Contains(types, any("number"))) {
			return c.v
		}
	}
	return []any{}
}

func enumOf(t *testing.T, prop any) []string {
	t.Helper()
	p, _ := prop.(map[string]any)
	raw, _ := p["enum"].([]any)
	out := make([]string, len(raw))
	for i, v := range raw {
		out[i], _ = v.(string)
	}
	if len(out) == 0 {
		t.Fatal("the action property publishes no enum")
	}
	return out
}

// asList reads a JSON string list ([]any after a round trip, or []string).
func asList(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		out := make([]string, 0, len(l))
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func rule(a *tools.Actions, action string) tools.Rule {
	for _, r := range a.Rules {
		if r.Action == action {
			return r
		}
	}
	return tools.Rule{}
}

func encode(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// BenchPrepare is a sub-benchmark name of the engine's path for one call of
// tool up to running it: the registry's Prepare, and the policy the engine
// reads, which want (nil: any) must accept (docs/PERFORMANCE.md "Typed
// parameters").
func BenchPrepare(b *testing.B, reg *tools.Registry, name, tool, in string, want func(tools.Policy) bool) {
	raw := json.RawMessage(in)
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			call, err := reg.Prepare(tool, raw)
			if err != nil {
				b.Fatal(err)
			}
			if want != nil && !want(call.Policy) {
				b.Fatal(call.Policy)
			}
		}
	})
}

// Inline accepts a policy that runs in the turn without an explicit
// approval: not detached, not Explicit.
func Inline(p tools.Policy) bool { return !p.Detached && p.Approval != tools.Explicit }

// foldsFor reports whether prop is an alias the action folds onto a key.
func foldsFor(a *tools.Actions, action, prop string) bool {
	return slices.ContainsFunc(a.Aliases, func(al tools.Alias) bool {
		return al.From == prop && (al.Actions == nil || slices.Contains(al.Actions, action))
	})
}

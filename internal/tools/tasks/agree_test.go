package tasks

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// samples are valid values where the schema-typed sample ("a", 1) breaks a
// value rule (an enum, a bound).
var samples = map[string]any{"mode": "plan", "gate": "fmt", "timeout_ms": 1000}

// tasks' published schema, per-action table and decoder agree, in Act and
// in Plan (list and read only).
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	for _, readOnly := range []bool{false, true} {
		paramtest.Agree(t, paramtest.Case{Tool: New(Options{ReadOnly: readOnly, ActiveTaskID: "task_1"}),
			Actions: params.Actions(), Samples: samples})
	}
}

// Each replay alias decodes every input its legacy schema accepts to the
// canonical tasks input of its action, with the canonical policy; the
// input without its action is what the legacy schema describes; a wrongly
// typed field, an unknown key and a missing required field are refused by
// the alias and its schema alike.
func TestAliasesDecodeToTheCanonicalInput(t *testing.T) {
	t.Parallel()
	o := Options{ActiveTaskID: "task_1"}
	canonical := New(o)
	for _, alias := range Aliases(o) {
		a := alias.(*Tool)
		schema := a.InputSchema()
		props := schema["properties"].(map[string]any)
		base := map[string]any{}
		for _, f := range legacyRequired[a.forced] {
			base[f] = sample(props, f)
		}
		for f := range props {
			in := maps.Clone(base)
			in[f] = sample(props, f)
			ca, err := tools.PrepareCall(a, encode(in))
			if err != nil {
				t.Errorf("%s %s: %v", a.Name(), encode(in), err)
				continue
			}
			in["action"] = a.forced
			cc, err := tools.PrepareCall(canonical, encode(in))
			if err != nil || string(ca.Input) != string(cc.Input) || ca.Policy != cc.Policy {
				t.Errorf("%s ≢ tasks %s: %s %+v vs %v %+v", a.Name(), a.forced, ca.Input, ca.Policy, cc, err)
				continue
			}
			args, _ := tools.ParseArgs(ca.Input)
			if err := tools.Validate(a.Name(), schema, withoutAction(args)); err != nil {
				t.Errorf("%s: its canonical input without action breaks its schema: %v", a.Name(), err)
			}
			delete(in, "action")
			in[f] = 7
			if p, ok := props[f].(map[string]any); ok && p["type"] != "string" {
				in[f] = "7"
			}
			if _, err := tools.PrepareCall(a, encode(in)); err == nil || tools.Validate(a.Name(), schema, encode(in)) == nil {
				t.Errorf("%s: %s=%v (wrong type) was not refused by both: %v", a.Name(), f, in[f], err)
			}
		}
		in := maps.Clone(base)
		in["no_such_parameter"] = "x"
		if _, err := tools.PrepareCall(a, encode(in)); err == nil {
			t.Errorf("%s: an unknown key was accepted", a.Name())
		}
	}
	if _, err := tools.PrepareCall(Aliases(Options{})[0], encode(map[string]any{"model": "m"})); err == nil {
		t.Error("task_create without prompt was accepted")
	}
	if _, err := tools.PrepareCall(Aliases(Options{})[2], encode(map[string]any{})); err == nil {
		t.Error("task_read without task_id and without an active task was accepted")
	}
}

func sample(props map[string]any, f string) any {
	if v, ok := samples[f]; ok {
		return v
	}
	switch props[f].(map[string]any)["type"] {
	case "integer":
		return 2
	case "boolean":
		return true
	}
	return "a"
}

func encode(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

package tools_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

type sampleIn struct {
	Path    string   `json:"path" jsonschema:"Where."`
	Limit   int      `json:"limit,omitempty"`
	Literal bool     `json:"literal,omitempty"`
	Include []string `json:"include,omitempty"`
	Mode    string   `json:"mode,omitempty"`
}

var sample = tools.NewParams[sampleIn]("Sample", tools.ParamOptions[sampleIn]{Enums: map[string][]string{"mode": {"fast", "slow"}}})

func TestParamsSchemaFromTheType(t *testing.T) {
	t.Parallel()
	s := sample.Schema()
	props := s["properties"].(map[string]any)
	if s["type"] != "object" || s["additionalProperties"] != nil || len(props) != 5 {
		t.Fatalf("schema %v", s)
	}
	if req, _ := s["required"].([]any); len(req) != 1 || req[0] != "path" {
		t.Errorf("required %v: only the field without omitempty", s["required"])
	}
	if p := props["path"].(map[string]any); p["description"] != "Where." || p["type"] != "string" {
		t.Errorf("path %v", p)
	}
	if m := props["mode"].(map[string]any); !slices.Equal(m["enum"].([]any), []any{"fast", "slow"}) {
		t.Errorf("mode %v", m)
	}
	if props["limit"].(map[string]any)["type"] != "integer" || props["literal"].(map[string]any)["type"] != "boolean" {
		t.Errorf("kinds %v", props)
	}
}

func TestParamsDecodeIsStrict(t *testing.T) {
	t.Parallel()
	d, err := sample.Decode(json.RawMessage(`{"path":"a","limit":3,"literal":true,"include":["*.go"],"mode":null,"extra":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if in := d.In; in.Path != "a" || in.Limit != 3 || !in.Literal || !slices.Equal(in.Include, []string{"*.go"}) || d.Has("mode") {
		t.Errorf("decoded %+v", d.In)
	}
	for in, want := range map[string]string{
		`{"limit":"3"}`:      "field 'limit' must be an integer; got string",
		`{"literal":"true"}`: "field 'literal' must be a boolean; got string",
		`{"include":[1]}`:    "field 'include' must be an array of strings; got array",
		`[1]`:                "tool input must be a JSON object",
	} {
		if _, err := sample.Decode(json.RawMessage(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	if d, _ := sample.Decode(json.RawMessage(`{}`)); d.Missing("path").Error() != "Tool '' is missing required field 'path'" {
		t.Errorf("missing: %v", d.Missing("path"))
	}
}

func TestParamsEnumForAnUnknownFieldPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("an enum for a field the type lacks must be caught")
		}
	}()
	tools.NewParams[sampleIn]("Bad", tools.ParamOptions[sampleIn]{Enums: map[string][]string{"nope": {"x"}}}).Schema()
}

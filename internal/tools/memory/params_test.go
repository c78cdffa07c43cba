package memory_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/canonjson"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/memory"
)

// publishedSchema is the schema remember published before it was derived
// from a Go type (the hand-written literal, kept here only as the golden):
// the catalog digest depends on these bytes.
func publishedSchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{
		"note":     map[string]any{"type": "string", "description": "The note: one terse sentence (append, revise)."},
		"scope":    map[string]any{"type": "string", "enum": []any{"global", "workspace"}, "description": "global (default) or this repository."},
		"action":   map[string]any{"type": "string", "enum": []any{"append", "revise", "retire"}, "description": "append (default), revise or retire."},
		"replaces": map[string]any{"type": "string", "description": "The existing entry to revise or retire (its text, or a unique part of it)."},
		"evidence": map[string]any{"type": "string", "description": "Why the entry changes (revise, retire)."},
	}}
}

// The schema derived from the parameter type is byte-identical, in
// canonical JSON (the digest's input) and as encoding/json writes it (the
// /tools snapshot's), to the published one.
func TestDerivedSchemaIsTheGolden(t *testing.T) {
	t.Parallel()
	got := memory.New(memory.Options{}).InputSchema()
	want := publishedSchema()
	for _, enc := range []func([]byte, any) ([]byte, error){canonjson.Append, canonjson.AppendGo} {
		g, err := enc(nil, got)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := enc(nil, want)
		if string(g) != string(w) {
			t.Fatalf("derived schema differs:\n got %s\nwant %s", g, w)
		}
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) || !reflect.DeepEqual(got, want) {
		t.Fatalf("encoding/json:\n got %s\nwant %s", g, w)
	}
}

// Decoding keeps the contract's messages: exact scope/action errors, strict
// types, MissingField from an empty input and the provided keys otherwise.
func TestDecodingKeepsTheExactErrors(t *testing.T) {
	t.Parallel()
	tool := memory.New(memory.Options{Root: t.TempDir(), Workspace: t.TempDir()})
	cases := map[string]string{
		`{"note":"x","scope":"team"}`:                   "unknown memory scope `team`; expected global or workspace",
		`{"note":"x","scope":""}`:                       "unknown memory scope ``; expected global or workspace",
		`{"note":"x","action":"forget"}`:                "unknown memory action `forget`; expected append, revise, or retire",
		`{"note":7}`:                                    "field 'note' must be a string; got number. Received: 7",
		`{"scope":"global"}`:                            "missing required field 'note'. Input provided: scope",
		`{}`:                                            "Tool 'remember' is missing required field 'note'",
		`{"action":"retire","replaces":"old"}`:          "missing required field 'evidence'. Input provided: action, replaces",
		`{"action":"revise","note":"n","evidence":"e"}`: "missing required field 'replaces'",
	}
	for in, want := range cases {
		_, err := tool.Execute(t.Context(), &tools.Context{}, json.RawMessage(in))
		if err == nil || !strings.Contains(tools.AsError(err).Render("remember"), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
		if in != `{}` && !strings.Contains(in, `"action":"re`) {
			if _, nerr := tool.Prepare(json.RawMessage(in)); (nerr == nil) != strings.Contains(want, "missing required") {
				t.Errorf("Prepare(%s) = %v", in, nerr)
			}
		}
	}
	res, err := tool.Execute(t.Context(), &tools.Context{}, json.RawMessage(`{"note":"Prefer table-driven tests","scope":null}`))
	if err != nil || !strings.HasPrefix(res.Content, "remembered in native memory: ") || res.Metadata["scope"] != "global" {
		t.Fatalf("append with null scope: %v %+v", err, res)
	}
}

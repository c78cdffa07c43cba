package tools_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/tools"
)

// fuzzSchema is a schema shaped like the action tools' (an action enum,
// strings, bounded integers, booleans, arrays, a nested object).
var fuzzSchema = map[string]any{"type": "object", "required": []any{"action"}, "properties": map[string]any{
	"action":  map[string]any{"type": "string", "enum": []any{"read", "list"}},
	"path":    map[string]any{"type": "string"},
	"limit":   map[string]any{"type": "integer", "minimum": 1, "maximum": 200},
	"literal": map[string]any{"type": "boolean"},
	"include": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	"replace": map[string]any{"type": "array", "items": map[string]any{"type": "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}},
}}

// FuzzArgs feeds hostile tool input to the strict argument helpers and the
// schema validator: they never panic, every failure is a *tools.Error the
// model can read, a value of the wrong type is refused rather than coerced,
// and the preview in a message stays bounded.
func FuzzArgs(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"action":"read","path":"a.go","limit":5}`, `{"action":7}`, `{"action":"kill"}`,
		`{"path":null,"limit":"5"}`, `{"limit":-1}`, `{"limit":1e400}`, `{"limit":9223372036854775808}`,
		`{"literal":"true"}`, `{"include":["*.go",3]}`, `{"replace":[{"content":"x"}]}`, `[]`, `"x"`, `null`,
		`{"a":`, `{"action":"read","path":"\u0000\ud800"}`, `{"action":"read","action":"list"}`,
		`{"path":"` + string(make([]byte, 300)) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		raw := json.RawMessage(in)
		checkErr := func(what string, err error) {
			if err == nil {
				return
			}
			var te *tools.Error
			if !errors.As(err, &te) {
				t.Fatalf("%s: %T is not a *tools.Error: %v", what, err, err)
			}
			if msg := te.Render("File"); msg == "" || !utf8.ValidString(msg) && utf8.Valid(in) {
				t.Fatalf("%s: unreadable message %q", what, msg)
			}
		}
		checkErr("Validate", tools.Validate("File", fuzzSchema, raw))
		_ = tools.PeekAction(raw, "read")
		args, err := tools.ParseArgs(raw)
		checkErr("ParseArgs", err)
		if err != nil {
			return
		}
		if !json.Valid(args.Marshal()) {
			t.Fatalf("Marshal of %q is not JSON", in)
		}
		for _, k := range args.Keys() {
			if p := []rune(tools.Preview(args[k])); len(p) > 120 {
				t.Fatalf("preview of %s is %d runes", k, len(p))
			}
			s, ok, err := args.String(k)
			checkErr("String", err)
			if ok && tools.JSONType(args[k]) != "string" {
				t.Fatalf("String accepted %s for %q", tools.JSONType(args[k]), s)
			}
			_, ok, err = args.Bool(k)
			checkErr("Bool", err)
			if ok && tools.JSONType(args[k]) != "boolean" {
				t.Fatalf("Bool accepted %s", args[k])
			}
			n, ok, err := args.Uint(k)
			checkErr("Uint", err)
			if ok && n < 0 {
				t.Fatalf("Uint returned %d", n)
			}
			_, _, err = args.Int(k)
			checkErr("Int", err)
			_, _, err = args.StringList(k)
			checkErr("StringList", err)
		}
		allowed := []string{"read", "list"}
		a, err := args.Action("File", allowed, "")
		checkErr("Action", err)
		if err == nil && !slices.Contains(allowed, a) {
			t.Fatalf("Action returned %q", a)
		}
		a, err = args.FamilyAction("tasks", allowed)
		checkErr("FamilyAction", err)
		if err == nil && !slices.Contains(allowed, a) {
			t.Fatalf("FamilyAction returned %q", a)
		}
		checkErr("RequireString", func() error { _, err := args.RequireString("path"); return err }())
	})
}

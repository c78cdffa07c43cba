package handles

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// handle_read's published schema and decoder agree.
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	paramtest.Agree(t, paramtest.Case{Tool: NewRead(NewStore(0)),
		Samples: map[string]any{"session_id": "web:1", "handle": map[string]any{"session_id": "web:1"}}})
}

// A read is decoded once: the bounds the schema publishes are refused in
// the validator's words, a handle object stands in for session_id, and a
// slice of the text comes back with its receipt.
func TestReadDecodes(t *testing.T) {
	t.Parallel()
	store := NewStore(0)
	sid := store.Put("web", "page", "text", "abcdefghij").SessionID
	tool := NewRead(store)
	tc := &tools.Context{Workspace: "/"}
	for _, c := range []struct{ in, want string }{
		{`{"session_id":"` + sid + `","offset":2,"limit":3}`, "characters 2-5 of 10]"},
		{`{"handle":{"session_id":"` + sid + `"},"limit":4}`, "characters 0-4 of 10]"},
		{`{"session_id":"` + sid + `","limit":0}`, "arguments do not match the tool's schema: at /limit"},
		{`{"session_id":"` + sid + `","limit":50001}`, "arguments do not match the tool's schema: at /limit"},
		{`{"handle":"web:1"}`, "arguments do not match the tool's schema: at /handle"},
		{`{"handle":{}}`, "handle must be the handle object a tool returned"},
		{`{"name":"page"}`, "missing required field 'session_id'. Input provided: name"},
		{`{"session_id":"nope:1"}`, "unknown handle session `nope:1`"},
	} {
		res, err := tools.Execute(context.Background(), tool, tc, json.RawMessage(c.in))
		got := res.Content
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.in, got, c.want)
		}
	}
}

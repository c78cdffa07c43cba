package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
)

// leaky is a read-only tool whose output and metadata carry a key.
type leaky struct{ tools.Spec }

const leakedKey = "sk-leak0123456789abcdef0123456789"

func (*leaky) Execute(context.Context, *tools.Context, json.RawMessage) (tools.Result, error) {
	res := tools.OK("the key is " + leakedKey)
	res.Metadata = map[string]any{"diff": "+KEY=" + leakedKey, "lines": 3}
	return res, nil
}

// The engine redacts a tool's content and metadata before history, the
// provider and every host see them.
func TestToolOutcomeIsRedactedBeforeHistory(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "l1", Name: "Leaky", Args: `{}`}), fakemodel.Text("ok"))
	h := newHarness(t, srv, func(o *engine.Options) {
		o.Tools = func(engine.TurnEnv) engine.Toolset {
			reg := tools.NewRegistry()
			reg.Register(&leaky{tools.Spec{ToolName: "Leaky", Desc: "test", Approve: tools.Auto, ReadOnly: true,
				Schema: map[string]any{"type": "object"}}})
			return engine.Toolset{Registry: reg}
		}
	})
	evs := h.turn("leak")
	res, _ := last[engine.ToolCallComplete](evs)
	meta, _ := json.Marshal(res.Result.Metadata)
	if strings.Contains(res.Result.Content, leakedKey) || strings.Contains(string(meta), leakedKey) {
		t.Errorf("the event carries the key: %q %s", res.Result.Content, meta)
	}
	if !strings.Contains(string(meta), "[REDACTED:api-key]") || res.Result.Metadata["lines"] == nil {
		t.Errorf("metadata not redacted in place: %s", meta)
	}
	if body := string(srv.Requests()[1].Raw); strings.Contains(body, leakedKey) || !strings.Contains(body, "[REDACTED:api-key]") {
		t.Errorf("the request carries the key, or lost the result")
	}
}

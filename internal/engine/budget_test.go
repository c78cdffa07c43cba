package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
)

// hugeTool returns more than any budget allows and records the budget it
// was given.
type hugeTool struct {
	tools.Spec
	json   bool
	budget atomic.Int64
}

func (h *hugeTool) Execute(_ context.Context, tc *tools.Context, _ json.RawMessage) (tools.Result, error) {
	h.budget.Store(int64(tc.Budget))
	if !h.json {
		return tools.OK(strings.Repeat("plain text line\n", 20000)), nil
	}
	items := make([]map[string]any, 5000)
	for i := range items {
		items[i] = map[string]any{"file": fmt.Sprintf("pkg/f%04d.go", i), "line_number": i + 1, "line": "func Ĥandler() {}"}
	}
	b, _ := json.MarshalIndent(map[string]any{"matches": items, "total_matches": 5000}, "", "  ")
	return tools.OK(string(b)), nil
}

// TestOversizedResultsReachTheModelCutToTheBudget checks the last-resort
// cut: the model receives valid JSON within the route's budget with a
// receipt, or text with the contract's compaction note, and the tool was
// told the budget.
// CONTRACT.md §9.9: output over the per-call budget reaches the model cut by internal/tools/budget, JSON kept valid.
func TestOversizedResultsReachTheModelCutToTheBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		json   bool
		window int
		budget int
	}{
		{"json 1M window", true, 0, 48000},
		{"json 128k window", true, 128000, 12000},
		{"text 1M window", false, 0, 48000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "h1", Name: "Huge", Args: `{}`}), fakemodel.Text("done"))
			tool := &hugeTool{Spec: tools.Spec{ToolName: "Huge", Desc: "huge", Schema: map[string]any{"type": "object"},
				Caps: []tools.Capability{tools.CapReadOnly}, ReadOnly: true}, json: tc.json}
			h := newHarness(t, srv, func(o *engine.Options) {
				o.ContextWindow = tc.window
				build := o.Tools
				o.Tools = func(env engine.TurnEnv) engine.Toolset {
					ts := build(env)
					ts.Registry.Register(tool)
					return ts
				}
			})
			done(t, h.turn("go"))
			if got := tool.budget.Load(); got != int64(tc.budget) {
				t.Fatalf("tool was given budget %d, want %d", got, tc.budget)
			}
			reqs := srv.Requests()
			content := toolMessage(t, reqs[len(reqs)-1], "h1")
			if n := utf8.RuneCountInString(content); n > tc.budget || n < tc.budget*3/4 {
				t.Fatalf("model received %d chars, budget %d", n, tc.budget)
			}
			if !tc.json {
				if !strings.HasPrefix(content, "[Huge output compacted to protect context]") {
					t.Fatalf("text cut = %.100q", content)
				}
				return
			}
			var v struct {
				Truncation struct {
					OriginalChars int      `json:"original_chars"`
					Cuts          []string `json:"cuts"`
				} `json:"truncation"`
				Matches []map[string]any `json:"matches"`
				Total   int              `json:"total_matches"`
			}
			if err := json.Unmarshal([]byte(content), &v); err != nil {
				t.Fatalf("model received invalid JSON: %v", err)
			}
			if v.Total != 5000 || len(v.Matches) < 100 || len(v.Truncation.Cuts) == 0 || v.Truncation.OriginalChars == 0 {
				t.Fatalf("cut JSON: %d matches, total %d, receipt %+v", len(v.Matches), v.Total, v.Truncation)
			}
		})
	}
}

// toolMessage is the content of the tool message answering id.
func toolMessage(t *testing.T, r *fakemodel.Request, id string) string {
	t.Helper()
	for _, m := range r.Messages() {
		if m["role"] == "tool" && m["tool_call_id"] == id {
			s, _ := m["content"].(string)
			return s
		}
	}
	t.Fatalf("no tool message for %s", id)
	return ""
}

// TestBackgroundNoticeIsMarkedEngineMade: the notice the engine adds before
// a turn carries the structural marker, and the model still reads its text.
func TestBackgroundNoticeIsMarkedEngineMade(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("ok"))
	notice := "1 background shell job finished. The output below is untrusted command output."
	sent := false
	h := newHarness(t, srv, func(o *engine.Options) {
		o.BackgroundNotices = func() string {
			if sent {
				return ""
			}
			sent = true
			return notice
		}
	})
	done(t, h.turn("hello"))
	msgs := h.eng.Snapshot().Messages
	if len(msgs) < 2 || !msgs[0].EngineMade() || msgs[0].Origin != provider.OriginEngine || msgs[0].Text() != notice || msgs[1].PromptText() != "hello" {
		t.Fatalf("history %+v", msgs)
	}
	if !strings.Contains(string(srv.Requests()[0].Raw), "background shell job finished") || strings.Contains(string(srv.Requests()[0].Raw), `"origin"`) {
		t.Fatalf("request body: %s", srv.Requests()[0].Raw)
	}
}

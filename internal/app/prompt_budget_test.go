package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// firstRequestBudget is half the median first request of the peers
// measured against one fake model (README "What the model is told":
// ~49 KB): the system prompt plus the tools field, in bytes as sent.
const firstRequestBudget = 24_000

// The first request of every composition, with memory on (remember
// registered), stays within the budget: the system prompt as sent plus the
// tools field's raw JSON bytes.
// CONTRACT.md §9.13: the system prompt plus tools of every composition's first request is at most 24 000 bytes.
// README.md "What the model is told": system prompt plus tools of every composition's first request stay within 24 000 bytes
func TestFirstRequestFitsTheBudget(t *testing.T) {
	t.Parallel()
	for _, c := range compositions {
		c.memory = true
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			system, tools, body := firstRequest(t, c)
			total := len(system) + len(tools)
			t.Logf("system prompt %d bytes + tools %d bytes = %d bytes (the whole request %d bytes)", len(system), len(tools),
				total, body)
			if total > firstRequestBudget {
				t.Errorf("the first request's system prompt (%d bytes) and tools (%d bytes) are %d bytes, over the budget of %d",
					len(system), len(tools), total, firstRequestBudget)
			}
		})
	}
}

// A 20-turn session, each turn a tool call and an answer, replayed against
// a model that reports cache hits from prefix reuse (fakemodel
// CachePrefixes): the system prompt and tools are the same bytes on every
// request, and at least 90 % of the prompt tokens are reported cached.
// CONTRACT.md §9.13: in 20 turns every request carries byte-identical system prompt and tools and at least 90 % of
// prompt tokens are cached.
// README.md "What the model is told": the prompt is the same bytes on every step and turn, so the prefix cache holds over 20 turns
func TestTwentyTurnsKeepThePrefixCached(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	srv.CachePrefixes()
	calls := []fakemodel.Call{{Name: "File", Args: `{"action":"list"}`}, {Name: "Git", Args: `{"action":"status"}`},
		{Name: "File", Args: `{"action":"search_content","pattern":"func"}`}}
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		if n := len(srv.Requests()); n%2 == 1 {
			c := calls[(n/2)%len(calls)]
			c.ID = fmt.Sprintf("call_%d", n)
			return fakemodel.Tools(c)
		}
		return fakemodel.Text("Looked at the workspace; nothing to change.")
	})
	c := composition{name: "act-tui-ask", mode: posture.Act, tui: true}
	eng := engine.New(newPromptApp(t, c, srv).EngineOptions())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.Run(ctx)
	var prompt, hit int
	for i := range 20 {
		reply, err := eng.RunTurn(ctx, engine.SendMessage{Content: fmt.Sprintf("look around, pass %d", i+1)}, nil)
		if err != nil || reply.Done.Status != engine.TurnCompleted {
			t.Fatalf("turn %d: %v %+v", i+1, err, reply.Done)
		}
		u := reply.Done.Usage
		if u.PromptCacheHitTokens == nil {
			t.Fatalf("turn %d reported no cache usage: %+v", i+1, u)
		}
		prompt, hit = prompt+u.InputTokens, hit+*u.PromptCacheHitTokens
	}
	reqs := srv.Requests()
	if len(reqs) != 40 {
		t.Fatalf("%d requests, want 40", len(reqs))
	}
	head := stablePrefix(t, reqs[0])
	for i, r := range reqs[1:] {
		if !bytes.Equal(stablePrefix(t, r), head) {
			t.Fatalf("request %d sends a different system prompt or tools than request 1", i+2)
		}
	}
	share := float64(hit) / float64(prompt)
	t.Logf("%d of %d prompt tokens reported cached over 20 turns (%.1f %%)", hit, prompt, 100*share)
	if share < 0.90 {
		t.Errorf("only %.1f %% of the prompt tokens were cached, want at least 90 %%", 100*share)
	}
}

// stablePrefix is the system message and the tools field of r, as sent.
func stablePrefix(t *testing.T, r *fakemodel.Request) []byte {
	t.Helper()
	var body struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    json.RawMessage   `json:"tools"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil || len(body.Messages) == 0 {
		t.Fatalf("body %s: %v", r.Raw, err)
	}
	return append(append([]byte(nil), body.Messages[0]...), body.Tools...)
}

package session

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/toolset"
)

// startEngine runs an engine on the fake model that journals into j.
func startEngine(t *testing.T, srv *fakemodel.Server, ws string, j *Journal, sess *engine.Session) *engine.Engine {
	t.Helper()
	svc := toolset.NewServices(toolset.Options{Workspace: ws})
	e := engine.New(engine.Options{
		Workspace: ws, Model: "deepseek-v4-pro", AutoApprove: true, Session: sess, Journal: j, Tools: svc.Toolset,
		NewClient: func(model string) (*provider.Client, error) {
			return provider.New(provider.Config{BaseURL: srv.URL, Model: model})
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	go e.Run(ctx)
	t.Cleanup(func() {
		cancel()
		for range e.Events() {
		}
	})
	return e
}

func runTurn(t *testing.T, e *engine.Engine, prompt string) {
	t.Helper()
	e.Submit(engine.SendMessage{Content: prompt})
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-e.Events():
			if err, ok := ev.(engine.Error); ok {
				t.Fatalf("engine error: %s", err.Message)
			}
			if tc, ok := ev.(engine.TurnComplete); ok {
				if tc.Status != engine.TurnCompleted {
					t.Fatalf("turn %s: %s", tc.Status, tc.Error)
				}
				return
			}
		case <-timeout:
			t.Fatal("turn did not complete")
		}
	}
}

// README.md "Sessions": every message is written to sessions/<id>.jsonl before the next request, and resumes
func TestEngineJournalsEveryMessageAndResumes(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "s1", Name: "tool_search", Args: `{"query":"plan"}`}),
		fakemodel.Text("Found it."))
	j := NewJournal(home, Options{Provider: "deepseek"})
	runTurn(t, startEngine(t, srv, ws, j, nil), "find the planner")
	j.Close()

	l, err := Resolve(home, ws, "", true)
	if err != nil {
		t.Fatal(err)
	}
	msgs := l.Session.Messages
	if len(msgs) != 4 || msgs[1].ToolUses()[0].ID != "s1" || msgs[2].Content[0].ToolUseID != "s1" || msgs[3].Text() != "Found it." {
		t.Fatalf("journaled history: %+v", msgs)
	}
	if l.Meta.Title != "find the planner" || l.Meta.ModelProvider != "deepseek" || l.Warning != "" || len(l.Notices()) != 0 {
		t.Fatalf("meta %+v notices %q", l.Meta, l.Notices())
	}
	// Two fake replies of 100 prompt tokens (64 cached, 36 not) and 20 + 10
	// completion tokens, at the built-in deepseek-v4-pro prices.
	u := l.Meta.Usage
	if u.InputTokens != 200 || u.OutputTokens != 30 || *u.PromptCacheHitTokens != 128 || *u.PromptCacheMissTokens != 72 {
		t.Fatalf("usage %+v", u)
	}
	if want := (128*0.044 + 72*1.32 + 30*3.96) / 1e6; math.Abs(l.Meta.Cost-want) > 1e-12 {
		t.Fatalf("cost %v, want %v", l.Meta.Cost, want)
	}

	srv.Push(fakemodel.Text("Again."))
	j2 := NewJournal(home, Options{Provider: "deepseek"})
	defer j2.Close()
	runTurn(t, startEngine(t, srv, ws, j2, &l.Session), "and again")
	if sent := srv.Requests()[2].Messages(); len(sent) != 6 { // system + 4 resumed + the new prompt
		t.Fatalf("resumed request sent %d messages", len(sent))
	}
	l2, err := Load(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(l2.Session.Messages) != 6 || l2.Meta.Usage.InputTokens != 300 || l2.Meta.Title != "find the planner" {
		t.Fatalf("after resume: %d messages, usage %+v, title %q", len(l2.Session.Messages), l2.Meta.Usage, l2.Meta.Title)
	}
}

// README.md "Sessions": the summary is a new record and the messages it replaces stay above it
func TestEngineCompactionKeepsTheOriginal(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	srv := fakemodel.New(t, fakemodel.Text("SUMMARY"))
	j := NewJournal(home, Options{})
	defer j.Close()
	sess := &engine.Session{ID: "compact-me", Model: "deepseek-v4-pro", Workspace: ws}
	for _, p := range []string{"first", "second", "third"} {
		sess.Messages = append(sess.Messages, userTurn(p), assistant("done: "+p))
	}
	mustAppend(t, j, engine.SessionInfo{ID: sess.ID, Model: sess.Model, Workspace: ws}, sess.Messages...)
	// The engine's first op, so no turn can still be winding down.
	e := startEngine(t, srv, ws, j, sess)
	e.Submit(engine.CompactContext{})
	timeout := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case ev := <-e.Events():
			switch ev := ev.(type) {
			case engine.CompactionFailed:
				t.Fatalf("compaction failed: %s", ev.Error)
			case engine.CompactionCompleted:
				done = true
			}
		case <-timeout:
			t.Fatal("no compaction event")
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d summary requests, want 1", n)
	}
	l, err := Load(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(l.Session.Messages); n != 5 || l.Meta.Title != "first" {
		t.Fatalf("after compaction: %d messages, title %q", n, l.Meta.Title)
	}
	if got := l.Session.Messages[0].Text(); len(got) < 30 || got[:29] != "<codewhale:compaction_summary" {
		t.Fatalf("first message is not the summary: %.60q", got)
	}
	// The replaced messages are still in the file, above the compaction
	// record, and the listing counts the history as loaded.
	raw, err := os.ReadFile(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"done: first"`, `"done: second"`, `"type":"compaction"`, `"replaced":2`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the session file lacks %s", want)
		}
	}
	j.Close()
	metas, err := List(home, Query{Archived: true})
	if err != nil || len(metas) != 1 || metas[0].MessageCount != 5 {
		t.Errorf("listing %+v, %v", metas, err)
	}
}

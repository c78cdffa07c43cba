package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
)

// running starts an engine over srv (nil: no NewClient at all).
func running(t *testing.T, srv *fakemodel.Server) *engine.Engine {
	t.Helper()
	opts := engine.Options{Workspace: t.TempDir(), Model: "deepseek-v4-pro",
		Tools: func(engine.TurnEnv) engine.Toolset { return engine.Toolset{Registry: tools.NewRegistry()} }}
	if srv != nil {
		opts.NewClient = func(model string) (*provider.Client, error) {
			return provider.New(provider.Config{BaseURL: srv.URL, Model: model, Retry: fastRetry})
		}
	}
	eng := engine.New(opts)
	ctx, cancel := context.WithCancel(context.Background())
	go eng.Run(ctx)
	t.Cleanup(func() {
		cancel()
		for range eng.Events() {
		}
	})
	return eng
}

// CONTRACT.md §8.3: RunTurn returns the text of the turn's last assistant message.
func TestRunTurnReturnsTheLastAssistantMessage(t *testing.T) {
	t.Parallel()
	eng := running(t, fakemodel.New(t, fakemodel.Text("  the answer  ")))
	var seen int
	reply, err := eng.RunTurn(context.Background(), engine.SendMessage{Content: "q"}, func(engine.Event) { seen++ })
	if err != nil || reply.Text != "the answer" || reply.Done.Status != engine.TurnCompleted || seen == 0 {
		t.Fatalf("reply %+v err %v events %d", reply, err, seen)
	}
}

// Cancelling RunTurn's context interrupts the turn; RunTurn still returns
// the turn's own outcome.
// CONTRACT.md §8.3: cancelling RunTurn's context interrupts the turn and RunTurn still returns its outcome.
func TestRunTurnCancelInterruptsTheTurn(t *testing.T) {
	t.Parallel()
	eng := running(t, fakemodel.New(t, fakemodel.Reply{Text: "never ends", StallAfter: 2}))
	ctx, cancel := context.WithCancel(context.Background())
	reply, err := eng.RunTurn(ctx, engine.SendMessage{Content: "q"}, func(ev engine.Event) {
		if _, ok := ev.(engine.MessageDelta); ok {
			cancel()
		}
	})
	if err != nil || reply.Done.Status != engine.TurnInterrupted {
		t.Fatalf("reply %+v err %v", reply, err)
	}
}

// An engine built without NewClient fails each turn cleanly instead of
// panicking.
func TestNoClientFailsTheTurn(t *testing.T) {
	t.Parallel()
	eng := running(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	reply, err := eng.RunTurn(ctx, engine.SendMessage{Content: "q"}, nil)
	if err != nil || reply.Done.Status != engine.TurnFailed ||
		!strings.Contains(reply.Done.Error, "Failed to send message: API client not configured") {
		t.Fatalf("reply %+v err %v", reply, err)
	}
}

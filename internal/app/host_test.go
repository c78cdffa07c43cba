package app

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// The host lifecycle: Start runs the session engine, RunTurn answers a turn
// through it, and Close ends a turn in flight and the engine's loop
// (its event stream closes) before it returns.
func TestStartRunTurnClose(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CODEWHALE_HOME", home)
	t.Setenv("CODEWHALE_TASKS_DIR", t.TempDir())
	t.Setenv("HOME", home)
	srv := fakemodel.New(t, fakemodel.Text("hello"), fakemodel.Reply{Stall: true})
	getenv := func(k string) string {
		if k == "CODEWHALE_BASE_URL" {
			return srv.URL
		}
		return os.Getenv(k)
	}
	cfg, err := config.Load(config.Flags{Workspace: t.TempDir()}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, Options{Version: "test", NoMCP: true, NoJournal: true})
	if err != nil {
		t.Fatal(err)
	}
	eng, _ := a.Start(context.Background(), a.EngineOptions())
	reply, err := a.RunTurn(context.Background(), engine.SendMessage{Content: "hi", Provenance: engine.ProvenanceUser}, nil)
	if err != nil || reply.Text != "hello" || reply.Done.Status != engine.TurnCompleted {
		t.Fatalf("first turn: %q %+v %v", reply.Text, reply.Done, err)
	}

	streaming := make(chan struct{})
	ended := make(chan engine.Reply)
	go func() {
		once := false
		r, _ := a.RunTurn(context.Background(), engine.SendMessage{Content: "again", Provenance: engine.ProvenanceUser},
			func(ev engine.Event) {
				if _, ok := ev.(engine.TurnStarted); ok && !once {
					once = true
					close(streaming)
				}
			})
		ended <- r
	}()
	<-streaming
	closed := make(chan struct{})
	go func() { a.Close(); close(closed) }()
	select {
	case r := <-ended:
		if r.Done.Status == engine.TurnCompleted {
			t.Errorf("the stalled turn completed: %+v", r.Done)
		}
	case <-time.After(2 * engineStopWait):
		t.Fatal("Close left the stalled turn running")
	}
	select {
	case <-closed:
	case <-time.After(2 * engineStopWait):
		t.Fatal("Close did not return")
	}
	if _, open := <-eng.Events(); open {
		t.Error("the engine's event stream is still open after Close")
	}
}

package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// waitFor returns the first event of type E, failing on an engine error.
func waitFor[E engine.Event](t *testing.T, e *engine.Engine) E {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-e.Events():
			if got, ok := ev.(E); ok {
				return got
			}
			if err, ok := ev.(engine.Error); ok {
				t.Fatalf("engine error: %s", err.Message)
			}
		case <-timeout:
			var zero E
			t.Fatalf("no %T event", zero)
		}
	}
}

// RewindHistory cuts the engine's history and the journal records the cut
// without losing the original; ForkSession continues in a new file that
// names its parent while the original stays as it was.
// CONTRACT.md §8.1: RewindHistory answers HistoryRewound; ForkSession answers SessionForked, records parent_session_id
// and leaves the original file untouched.
func TestEngineRewindAndForkThroughTheJournal(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	srv := fakemodel.New(t, fakemodel.Text("One."), fakemodel.Text("Two."), fakemodel.Text("Two, again."), fakemodel.Text("Forked."))
	j := NewJournal(home, Options{})
	defer j.Close()
	e := startEngine(t, srv, ws, j, nil)
	runTurn(t, e, "first")
	runTurn(t, e, "second")
	orig := j.Path()

	e.Submit(engine.RewindHistory{Keep: 2, Prompt: "second"})
	rw := waitFor[engine.HistoryRewound](t, e)
	if rw.Kept != 2 || rw.Dropped != 2 || len(rw.Messages) != 2 || rw.Messages[1].Text() != "One." {
		t.Fatalf("rewound: %+v", rw)
	}
	runTurn(t, e, "second")
	if sent := srv.Requests()[2].Messages(); len(sent) != 4 { // system + first, One., second
		t.Fatalf("the request after the cut sent %d messages", len(sent))
	}
	l, err := Load(orig)
	if err != nil || len(l.Session.Messages) != 4 || l.Session.Messages[3].Text() != "Two, again." {
		t.Fatalf("after the cut and a new turn: %+v %v", l.Session.Messages, err)
	}
	raw, _ := os.ReadFile(orig)
	if !strings.Contains(string(raw), `"Two."`) || !strings.Contains(string(raw), `"type":"cut"`) {
		t.Error("the dropped reply is not kept in the journal")
	}

	e.Submit(engine.ForkSession{ID: "the-fork", Keep: 2, Prompt: "second"})
	fk := waitFor[engine.SessionForked](t, e)
	if fk.SessionID != "the-fork" || fk.From != l.Meta.ID || fk.Kept != 2 {
		t.Fatalf("forked: %+v", fk)
	}
	runTurn(t, e, "forked prompt")
	f, err := Load(filepath.Join(Dir(home), "the-fork.jsonl"))
	if err != nil || f.Meta.ParentSessionID != l.Meta.ID || len(f.Session.Messages) != 4 ||
		f.Session.Messages[2].PromptText() != "forked prompt" {
		t.Fatalf("fork: %+v %v", f, err)
	}
	again, _ := os.ReadFile(orig)
	if string(again) != string(raw) {
		t.Error("forking changed the original session's file")
	}
}

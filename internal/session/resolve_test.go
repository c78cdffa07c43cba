package session

import (
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
)

var t0 = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

// seed writes one session with a clock starting at start.
func seed(t testing.TB, home, id, workspace string, start time.Time, msgs ...provider.Message) {
	t.Helper()
	j := NewJournal(home, Options{Now: fixedClock(start), noSync: true})
	defer j.Close()
	info := testInfo(id)
	info.Workspace = workspace
	if len(msgs) == 0 {
		msgs = []provider.Message{userTurn("work on " + id)}
	}
	mustAppend(t, j, info, msgs...)
}

func TestResolve(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	seed(t, home, "aaaa1111-0000-4000-8000-000000000001", "/ws/one", t0)
	seed(t, home, "aaaa2222-0000-4000-8000-000000000002", "/ws/one", t0.Add(time.Hour))
	seed(t, home, "bbbb3333-0000-4000-8000-000000000003", "/ws/two", t0.Add(2*time.Hour))

	tests := []struct {
		name      string
		workspace string
		ref       string
		latest    bool
		wantID    string
		wantErr   []string
	}{
		{name: "full id", workspace: "/ws/one", ref: "aaaa1111-0000-4000-8000-000000000001", wantID: "aaaa1111-0000-4000-8000-000000000001"},
		{name: "unique prefix", workspace: "/ws/two", ref: "bbbb", wantID: "bbbb3333-0000-4000-8000-000000000003"},
		{name: "prefix is case-insensitive", workspace: "/ws/one", ref: "AAAA2", wantID: "aaaa2222-0000-4000-8000-000000000002"},
		{name: "latest of the workspace", workspace: "/ws/one", latest: true, wantID: "aaaa2222-0000-4000-8000-000000000002"},
		{name: "ambiguous prefix lists candidates", workspace: "/ws/one", ref: "aaaa",
			wantErr: []string{`prefix "aaaa" is ambiguous`, "2 sessions", "aaaa1111-0000-4000-8000-000000000001", "aaaa2222-0000-4000-8000-000000000002", "work on aaaa1111", "more characters"}},
		{name: "no match", workspace: "/ws/one", ref: "cccc", wantErr: []string{`no saved session matches "cccc"`, "codewhale sessions --all"}},
		{name: "no session in workspace", workspace: "/ws/three", latest: true, wantErr: []string{"no saved session for workspace /ws/three"}},
		{name: "nothing asked", workspace: "/ws/one", wantErr: []string{"no session given"}},
		{name: "path-like ref", workspace: "/ws/one", ref: "../x", wantErr: []string{"invalid session id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, err := Resolve(home, tt.workspace, tt.ref, tt.latest)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("resolved %s, want an error", l.Meta.ID)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Meta.ID != tt.wantID || l.Session.ID != tt.wantID {
				t.Fatalf("resolved %s, want %s", l.Meta.ID, tt.wantID)
			}
		})
	}
}

// CONTRACT.md §14.10: resuming a session recorded in another workspace warns, and the warning is the first notice a
// host shows.
func TestResumeInAnotherWorkspaceWarns(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	seed(t, home, "moved-session", "/ws/old", t0)
	l, err := Resolve(home, "/ws/new", "moved", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"moved-se", "/ws/old", "/ws/new"} {
		if !strings.Contains(l.Warning, w) {
			t.Fatalf("warning %q lacks %q", l.Warning, w)
		}
	}
	if l.Session.Workspace != "/ws/new" || l.Meta.Workspace != "/ws/old" {
		t.Fatalf("session workspace %q, recorded %q", l.Session.Workspace, l.Meta.Workspace)
	}
	if got := l.Notices(); len(got) != 1 || got[0] != l.Warning {
		t.Fatalf("notices = %q", got)
	}
	same, err := Resolve(home, "/ws/old/", "moved", false)
	if err != nil || same.Warning != "" {
		t.Fatalf("same workspace: warning %q, err %v", same.Warning, err)
	}
}

// README.md "Sessions": resuming repairs tool calls that lost their results
func TestResumeRepairsACrashedToolCall(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	seed(t, home, "crashed-tool", testWS, t0, userTurn("build it"), toolCall("call_9", "make"))
	l, err := Resolve(home, testWS, "crashed-tool", false)
	if err != nil {
		t.Fatal(err)
	}
	const wantLine = "[tool_history_repair] Repaired 1 crashed tool call(s); quarantined 0 duplicate and 0 orphan terminal result(s)."
	if l.RepairLine() != wantLine || !l.Persist {
		t.Fatalf("repair line %q persist %v", l.RepairLine(), l.Persist)
	}
	last := l.Session.Messages[len(l.Session.Messages)-1].Content[0]
	if last.Type != provider.BlockToolResult || last.ToolUseID != "call_9" || last.Content != engine.CrashedToolResult || !last.IsError {
		t.Fatalf("last block = %+v", last)
	}

	// The host persists the repaired history (SyncSession{Persist: true});
	// the next resume has nothing to repair.
	j := NewJournal(home, Options{})
	if err := j.Rewrite(engine.SessionInfo{ID: l.Session.ID, Model: l.Session.Model, Workspace: testWS}, l.Session.Messages); err != nil {
		t.Fatal(err)
	}
	j.Close()
	again, err := Resolve(home, testWS, "crashed-tool", false)
	if err != nil || again.RepairLine() != "" || again.Persist || len(again.Session.Messages) != 3 {
		t.Fatalf("second resume: err %v line %q persist %v", err, again.RepairLine(), again.Persist)
	}
}

func TestAge(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		5 * time.Second: "5s", 3 * time.Minute: "3m", 5 * time.Hour: "5h", 72 * time.Hour: "3d", 30 * 24 * time.Hour: "4w",
	} {
		if got := Age(t0.Add(-d), t0); got != want {
			t.Errorf("Age(%v) = %q, want %q", d, got, want)
		}
	}
}

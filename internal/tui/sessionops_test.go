package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tui/history"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// closedSession is storedSession with its writer gone, as a session
// saved by an earlier run is.
func closedSession(t *testing.T, home, ws string) string {
	t.Helper()
	var id string
	t.Run("store", func(t *testing.T) { id = storedSession(t, home, ws) })
	return id
}

// /rename and /export act on the current session's file; /fork asks the
// engine for a copy and renames the fork once it exists.
// README.md "Sessions": /fork copies the session, /rename retitles it, /export writes Markdown or JSON
// README.md "Slash commands": /export writes a new file, by default codewhale-<id>.md in the workspace
func TestRenameExportAndFork(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	id := closedSession(t, home, ws)
	j := session.NewJournal(home, session.Options{})
	t.Cleanup(func() { j.Close() })
	d := newDirect(t, 220, 30, func(o *Options) { o.Home, o.Workspace, o.SessionID, o.Journal = home, ws, id, j })

	d.runCmd(d.submit("/rename Build   notes"))
	d.mustShow(`Renamed session 0f1e2d3c to "Build notes".`)
	d.runCmd(d.submit("/export"))
	md := filepath.Join(ws, "codewhale-0f1e2d3c.md")
	d.mustShow("Exported the transcript (4 messages, markdown) to " + md)
	if b, _ := os.ReadFile(md); !strings.HasPrefix(string(b), "# Build notes\n") || !strings.Contains(string(b), "## You\n\nexplain the build\n") {
		t.Fatalf("markdown export:\n%s", b)
	}
	d.runCmd(d.submit("/export"))
	d.mustShow("file exists")
	d.runCmd(d.submit("/export json out/t.json"))
	d.mustShow("no such file or directory") // a missing directory is not created behind the user's back
	d.runCmd(d.submit("/export json t.json"))
	var doc map[string]any
	if b, _ := os.ReadFile(filepath.Join(ws, "t.json")); json.Unmarshal(b, &doc) != nil || doc["format"] != "codewhale-session" {
		t.Fatalf("json export: %v", doc)
	}

	d.events(engine.SessionUpdated{SessionID: id, Messages: []provider.Message{prompt("explain the build"), answer("ok")}})
	d.submit("/fork Side quest")
	if op, ok := d.eng.lastOp().(engine.ForkSession); !ok || op.Keep != -1 || op.ID != "session-2" {
		t.Fatalf("op = %#v", d.eng.lastOp())
	}
	// The engine writes the fork's file before it answers.
	info := engine.SessionInfo{ID: "session-2", Workspace: ws, Parent: id}
	if err := j.Rewrite(info, []provider.Message{prompt("explain the build"), answer("ok")}); err != nil {
		t.Fatal(err)
	}
	cmd := d.m.applyEvent(engine.SessionForked{From: id, SessionID: "session-2", Kept: 2})
	d.mustShow("Forked session session- from 0f1e2d3c (2 message(s) copied); 0f1e2d3c is unchanged")
	d.runCmd(cmd)
	metas, _ := session.List(home, session.Query{Workspace: ws})
	titles := map[string]string{}
	for _, m := range metas {
		titles[m.ID] = m.Title + "|" + m.ParentSessionID
	}
	if titles["session-2"] != "Side quest|"+id || titles[id] != "Build notes|" {
		t.Fatalf("sessions after the fork: %v", titles)
	}
}

// `a` in the sessions picker archives a session; /sessions archived lists
// it, and `a` there lists it again.
// README.md "Sessions": the session picker archives with a
func TestSessionsPickerArchives(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	id := closedSession(t, home, ws)
	d := newDirect(t, 100, 30, func(o *Options) { o.Home, o.Workspace = home, ws })
	d.runCmd(d.submit("/sessions"))
	d.mustShow("a archive")
	d.typeText("a")
	d.mustShow("Archived session 0f1e2d3c (/sessions archived lists it)")
	if metas, _ := session.List(home, session.Query{Workspace: ws}); len(metas) != 0 {
		t.Fatalf("still listed: %+v", metas)
	}
	d.key("esc")
	d.runCmd(d.submit("/sessions archived"))
	if p, ok := d.m.stack.Top().(*views.Picker); !ok || p.Name != history.ArchivedPicker {
		t.Fatalf("no archived picker:\n%s", d.screen())
	}
	d.mustShow("Archived sessions", "explain the build")
	d.typeText("a")
	d.mustShow("Session 0f1e2d3c is listed again")
	if metas, _ := session.List(home, session.Query{Workspace: ws}); len(metas) != 1 || metas[0].ID != id {
		t.Fatalf("not listed again: %+v", metas)
	}
	d.key("esc")
	d.runCmd(d.submit("/sessions archive 0f1e"))
	d.mustShow("Archived session 0f1e2d3c; /sessions archived lists it.")
}

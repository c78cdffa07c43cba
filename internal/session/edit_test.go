package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/provider"
)

// A cut is a line of its own: loading ends the history there, the dropped
// messages stay in the file byte for byte, listing counts what is left, and
// appending after it continues from the cut.
// README.md "Undo": dropping turns appends a cut line; the dropped messages stay in the session file
func TestCutKeepsTheDroppedMessagesInTheFile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{})
	defer j.Close()
	info := testInfo("cut-session")
	mustAppend(t, j, info, userTurn("first"), assistant("one"), userTurn("second"), assistant("two"))
	before, err := os.ReadFile(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Cut(info, 2); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(j.Path())
	if !bytes.HasPrefix(after, before) {
		t.Fatal("the cut rewrote the lines before it")
	}
	l, err := Load(j.Path())
	if err != nil || len(l.Session.Messages) != 2 || l.Session.Messages[1].Text() != "one" || l.Damage.Any() {
		t.Fatalf("after the cut: %+v %v", l, err)
	}
	metas, err := List(home, Query{})
	if err != nil || len(metas) != 1 || metas[0].MessageCount != 2 {
		t.Fatalf("listed %+v %v", metas, err)
	}
	mustAppend(t, j, info, userTurn("second, again"))
	l, _ = Load(j.Path())
	if got := len(l.Session.Messages); got != 3 || l.Session.Messages[2].PromptText() != "second, again" {
		t.Fatalf("after appending past the cut: %d messages", got)
	}
	if !strings.Contains(string(after), `"two"`) {
		t.Error("the dropped reply is gone from the file")
	}
	if err := j.Cut(info, 9); err == nil {
		t.Error("a cut past the end was accepted")
	}
}

// Rename and archive append metadata: through the journal for the session
// it writes, under the lock for any other, and refused for a session
// another writer holds.
func TestRenameAndArchive(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{})
	defer j.Close()
	cur, other := testInfo("current-one"), testInfo("other-one")
	o := NewJournal(home, Options{})
	mustAppend(t, o, other, userTurn("other work"))
	o.Close()
	mustAppend(t, j, cur, userTurn("current work"))

	if err := Rename(home, j, cur.ID, "  The  parser\nfix "); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, j, cur, assistant("done")) // a later append keeps the new title
	if err := Rename(home, j, other.ID, "Docs"); err != nil {
		t.Fatal(err)
	}
	if err := Archive(home, nil, other.ID, true); err != nil {
		t.Fatal(err)
	}
	metas, _ := List(home, Query{})
	if len(metas) != 1 || metas[0].Title != "The parser fix" {
		t.Fatalf("unarchived: %+v", metas)
	}
	all, _ := List(home, Query{Archived: true})
	if len(all) != 2 {
		t.Fatalf("with archived: %+v", all)
	}
	for _, m := range all {
		if m.ID == other.ID && (m.Title != "Docs" || !m.Archived) {
			t.Errorf("other: %+v", m)
		}
	}
	if err := Archive(home, nil, other.ID, false); err != nil {
		t.Fatal(err)
	}
	if metas, _ := List(home, Query{}); len(metas) != 2 {
		t.Errorf("after unarchive: %+v", metas)
	}
	if err := Rename(home, nil, cur.ID, "theirs"); !errors.Is(err, ErrBusy) {
		t.Errorf("rename of a session another writer holds: %v", err)
	}
	if err := Rename(home, j, cur.ID, " \n "); err == nil {
		t.Error("a blank title was accepted")
	}
	if err := Archive(home, nil, "no-such-session", true); !errors.Is(err, ErrNoSession) {
		t.Errorf("archive of a missing session: %v", err)
	}
}

// A session created for a fork records its parent in the header.
// README.md "Sessions": the fork records its parent; the original stays
func TestForkRecordsItsParent(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{})
	defer j.Close()
	info := testInfo("forked-one")
	info.Parent = "original-one"
	if err := j.Rewrite(info, []provider.Message{userTurn("copied")}); err != nil {
		t.Fatal(err)
	}
	l, err := Load(j.Path())
	if err != nil || l.Meta.ParentSessionID != "original-one" || l.Session.Parent != "original-one" {
		t.Fatalf("%+v %v", l, err)
	}
}

func TestExportMarkdownAndJSON(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{})
	info := testInfo("export-me")
	mustAppend(t, j, info, userTurn("list the files"), toolCall("c1", "ls"), toolResult("c1", "a.go\n```b```"),
		assistant("Two files."))
	j.Close()
	l, err := Load(filepath.Join(Dir(home), info.ID+journalExt))
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := Export(&md, l, ExportMarkdown); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# list the files\n", "- Session: `export-me`", "\n## You\n\nlist the files\n",
		"**Tool call** `Bash` `c1`\n\n```json\n{\n  \"command\": \"ls\"\n}\n```", "**Result** `c1`\n\n````\na.go\n```b```\n````",
		"\n## Assistant\n\nTwo files.\n"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "turn_meta") {
		t.Error("the engine's turn metadata leaked into the export")
	}
	var js bytes.Buffer
	if err := Export(&js, l, ExportJSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Format   string             `json:"format"`
		Session  Meta               `json:"session"`
		Messages []provider.Message `json:"messages"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Format != "codewhale-session" || doc.Session.ID != "export-me" || len(doc.Messages) != 4 ||
		doc.Messages[2].Content[0].Content != "a.go\n```b```" {
		t.Fatalf("json export: %+v", doc)
	}
}

// A cut after a compaction counts the compacted history: both are lines
// of their own and load in order.
func TestCutAfterCompaction(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{})
	defer j.Close()
	info := testInfo("compacted-then-cut")
	mustAppend(t, j, info, userTurn("a"), assistant("1"), userTurn("b"), assistant("2"), userTurn("c"), assistant("3"))
	if err := j.Compacted(info, 4, provider.EngineText("summary of a and b")); err != nil {
		t.Fatal(err)
	}
	if err := j.Cut(info, 1); err != nil { // back to before "c": index 1 of summary, c, 3
		t.Fatal(err)
	}
	l, err := Load(j.Path())
	if err != nil || len(l.Session.Messages) != 1 || l.Session.Messages[0].Text() != "summary of a and b" {
		t.Fatalf("%+v %v", l.Session.Messages, err)
	}
	if metas, _ := List(home, Query{}); len(metas) != 1 || metas[0].MessageCount != 1 {
		t.Fatalf("listed %+v", metas)
	}
	if err := j.Cut(info, 2); err == nil {
		t.Error("a cut past the end after compaction was accepted")
	}
}

package file

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// recorder is a Diagnostics that notes what it hears and reports each
// change as one line.
type recorder struct {
	mu      sync.Mutex
	reads   []string
	changes []FileChange
}

func (r *recorder) Read(abs string, text []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads = append(r.reads, abs+"="+string(text))
}

func (r *recorder) Changed(_ context.Context, cs []FileChange) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var lines []string
	for _, c := range cs {
		r.changes = append(r.changes, c)
		lines = append(lines, fmt.Sprintf("checked %s before=%q after=%q deleted=%v", c.Path, c.Before, c.After, c.Deleted))
	}
	return strings.Join(lines, "\n")
}

// README.md "Language servers": every File write, edit and patch tells the language servers what changed.
func TestFileTellsTheLanguageServersWhatChanged(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	e := newEnv(t, Options{Writable: true, Patch: true, Diagnostics: rec})
	a := e.put("a.go", "one\n")
	if got := e.callOK(`{"action":"read","path":"a.go"}`).Content; strings.Contains(got, "checked") {
		t.Fatalf("a read reported diagnostics: %s", got)
	}
	if len(rec.reads) != 1 || rec.reads[0] != a+"=one\n" {
		t.Fatalf("reads: %q", rec.reads)
	}
	got := e.callOK(`{"action":"edit","path":"a.go","search":"one","replace":"two"}`).Content
	if want := fmt.Sprintf("\n\nchecked %s before=\"one\\n\" after=\"two\\n\" deleted=false", a); !strings.HasSuffix(got, want) {
		t.Fatalf("edit result:\n%s\nwant the suffix %q", got, want)
	}
	got = e.callOK(`{"action":"write","path":"b.go","content":"new\n"}`).Content
	if want := fmt.Sprintf("checked %s before=\"\" after=\"new\\n\" deleted=false", e.path("b.go")); !strings.HasSuffix(got, want) {
		t.Fatalf("write result:\n%s", got)
	}
	patch := "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-two\n+three\n--- a/b.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-new\n"
	in, _ := json.Marshal(map[string]string{"action": "patch", "patch": patch})
	var res struct{ Diagnostics string }
	if err := json.Unmarshal([]byte(e.callOK(string(in)).Content), &res); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("checked %s before=\"two\\n\" after=\"three\\n\" deleted=false\nchecked %s before=\"new\\n\" after=\"\" deleted=true",
		a, e.path("b.go"))
	if res.Diagnostics != want {
		t.Fatalf("patch diagnostics:\n%s\nwant\n%s", res.Diagnostics, want)
	}
}

func TestFileWithoutDiagnosticsAddsNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	e.put("a.go", "one\n")
	e.callOK(`{"action":"read","path":"a.go"}`)
	got := e.callOK(`{"action":"edit","path":"a.go","search":"one","replace":"two"}`).Content
	if !strings.HasSuffix(got, "Replaced 1 occurrence in "+e.path("a.go")) {
		t.Fatalf("edit result: %q", got)
	}
}

package file

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recordingEditor stands in for an editor's file system (the remote end of
// ACP's fs/*): it keeps what it was asked and serves buffers.
type recordingEditor struct {
	mu      sync.Mutex
	reads   []string
	writes  map[string]string
	buffers map[string]string
}

func (r *recordingEditor) ReadText(_ context.Context, abs string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads = append(r.reads, abs)
	return r.buffers[abs], nil
}

func (r *recordingEditor) WriteText(_ context.Context, abs, content string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes[abs] = content
	return os.WriteFile(abs, []byte(content), 0o644)
}

// TestEditorSeesReadsAndWrites: with an editor, read returns its buffer
// and write hands it the text; the snapshot lets an edit follow.
func TestEditorSeesReadsAndWrites(t *testing.T) {
	t.Parallel()
	ed := &recordingEditor{writes: map[string]string{}, buffers: map[string]string{}}
	o := writable
	o.Editor = ed
	e := newEnv(t, o)
	p := e.put("a.txt", "on disk\n")
	ed.buffers[p] = "in the buffer\n"
	if res := e.callOK(`{"action":"read","path":"a.txt"}`); !strings.Contains(res.Content, "in the buffer") {
		t.Errorf("read = %q, want the editor's buffer", res.Content)
	}
	e.callOK(`{"action":"write","path":"b/new.txt","content":"fresh\n"}`)
	if ed.writes[e.path("b/new.txt")] != "fresh\n" {
		t.Errorf("editor writes = %v", ed.writes)
	}
	e.callOK(`{"action":"edit","path":"b/new.txt","search":"fresh","replace":"edited"}`)
}

// TestEditorNeverAskedOutsideTheBoundary: a hostile path — outside the
// workspace, through a symbolic link, a secret — is refused by the File
// boundary before the editor hears of it.
func TestEditorNeverAskedOutsideTheBoundary(t *testing.T) {
	t.Parallel()
	ed := &recordingEditor{writes: map[string]string{}, buffers: map[string]string{}}
	o := writable
	o.Editor = ed
	e := newEnv(t, o)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, e.path("link")); err != nil {
		t.Fatal(err)
	}
	e.put(".env", "TOKEN=1\n")
	for _, in := range []string{
		`{"action":"write","path":"../escape.txt","content":"no"}`,
		`{"action":"write","path":"link/x","content":"no"}`,
		`{"action":"read","path":"link/x"}`,
		`{"action":"read","path":"` + filepath.Join(outside, "x") + `"}`,
		`{"action":"read","path":".env"}`,
	} {
		if res, err := e.call(in); err == nil && res.Success {
			t.Errorf("%s succeeded: %s", in, res.Content)
		}
	}
	if len(ed.reads) != 0 || len(ed.writes) != 0 {
		t.Errorf("the editor was asked: reads %v, writes %v", ed.reads, ed.writes)
	}
}

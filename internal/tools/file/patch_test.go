package file

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseUnified(t *testing.T) {
	t.Parallel()
	p, err := parseUnified("diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\t2026-01-01 10:00:00 +0000\n" +
		"+++ b/x.go\t2026-01-01 10:01:00 +0000\n@@ -1,3 +1,3 @@\n a\n--- not a header\n+++ nor this\n c\n" +
		"@@ -10 +10 @@\n-z\n+Z\n\\ No newline at end of file\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n" +
		"--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []filePatch{
		{path: "x.go", git: true, hasNew: true, hunks: []hunk{
			{oldStart: 1, oldCount: 3, lines: []hunkLine{{' ', "a"}, {'-', "-- not a header"}, {'+', "++ nor this"}, {' ', "c"}}},
			{oldStart: 10, oldCount: 1, lines: []hunkLine{{'-', "z"}, {'+', "Z"}}, newNoEOL: true},
		}},
		{path: "new.txt", created: true, hasNew: true, hunks: []hunk{{oldStart: 0, oldCount: 0, lines: []hunkLine{{'+', "hi"}}}}},
		{path: "old.txt", deleted: true, hasNew: true, hunks: []hunk{{oldStart: 1, oldCount: 1, lines: []hunkLine{{'-', "bye"}}}}},
	}
	if !reflect.DeepEqual(p.files, want) {
		t.Errorf("parsed\n%+v\nwant\n%+v", p.files, want)
	}
	for _, c := range []struct{ patch, want string }{
		{"@@ -a,3 +1,3 @@\n x\n", "Invalid line number `a` in hunk header. Expected numeric unified-diff form " + hunkForm},
		{"@@ -1,x +1,3 @@\n x\n", "Invalid line count `x` in hunk header. Expected numeric unified-diff form " + hunkForm},
		{"@@ nonsense\n x\n", "Invalid hunk header: @@ nonsense. Expected numeric unified-diff form " + hunkForm},
		{"--- a/x\n@@ -1 +1 @@\n-a\n+b\n", "Patch hunk encountered after `--- a/x` but before a matching `+++` header."},
	} {
		if _, err := parseUnified(c.patch); err == nil || !strings.Contains(errText(err), c.want) {
			t.Errorf("%q: got %v, want %q", c.patch, err, c.want)
		}
	}
}

func TestPatchApplies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, before, patch, after string
	}{
		{"simple", "a\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\nB\nc\n"},
		{"fuzz: stated line off by two", "x\ny\na\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "x\ny\na\nB\nc\n"},
		{"trailing whitespace ignored", "a  \nb\t\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a  \nB\nc\n"},
		{"second hunk follows the first's offset", "1\n2\n3\n4\n5\n6\n7\n8\n",
			"@@ -1,2 +1,4 @@\n 1\n+1a\n+1b\n 2\n@@ -7,2 +9,2 @@\n 7\n-8\n+eight\n", "1\n1a\n1b\n2\n3\n4\n5\n6\n7\neight\n"},
		{"insert after line with -s,0", "a\nb\nc\n", "@@ -2,0 +3 @@\n+after b\n", "a\nb\nafter b\nc\n"},
		{"add-only hunk at EOF appends", "a\n", "@@ -5,0 +5,1 @@\n+z\n", "a\nz\n"},
		{"crlf and no trailing newline kept", "a\r\nb\r\nc", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\r\nB\r\nc"},
		{"crlf patch text on lf file", "a\nb\n", "@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+B\r\n", "a\nB\n"},
		{"relocation of a stale hunk", "h1\nh2\nh3\nh4\nh5\nh6\nh7\nh8\nh9\nh10\nA\nB\nC\nD\nh15\n",
			"@@ -1,4 +1,4 @@\n A\n B\n-C\n+see\n D\n", "h1\nh2\nh3\nh4\nh5\nh6\nh7\nh8\nh9\nh10\nA\nB\nsee\nD\nh15\n"},
		{"miscounted header still takes the body", "a\nb\nc\n", "@@ -1,1 +1,1 @@\n a\n-b\n+B\n c\n", "a\nB\nc\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, writable)
			e.put("f.txt", c.before)
			e.callOK(js(map[string]any{"action": "patch", "path": "f.txt", "patch": c.patch}))
			if got := e.get("f.txt"); got != c.after {
				t.Errorf("got %q, want %q", got, c.after)
			}
		})
	}
}

func TestPatchResultShape(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	e.put("a.txt", "one\ntwo\n")
	e.put("gone.txt", "bye\n")
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n" +
		"--- /dev/null\n+++ b/sub/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n" +
		"--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
	res := e.callOK(js(map[string]any{"action": "patch", "patch": patch}))
	want := `{
  "success": true,
  "files_applied": 3,
  "files_total": 3,
  "hunks_applied": 3,
  "hunks_total": 3,
  "fuzz_used": 0,
  "hunks_with_fuzz": 0,
  "touched_files": [
    "a.txt",
    "sub/new.txt",
    "gone.txt"
  ],
  "file_summaries": [
    {
      "path": "a.txt",
      "hunks": 1,
      "hunks_applied": 1,
      "fuzz_used": 0,
      "hunks_with_fuzz": 0,
      "created": false,
      "deleted": false
    },
    {
      "path": "sub/new.txt",
      "hunks": 1,
      "hunks_applied": 1,
      "fuzz_used": 0,
      "hunks_with_fuzz": 0,
      "created": true,
      "deleted": false
    },
    {
      "path": "gone.txt",
      "hunks": 1,
      "hunks_applied": 1,
      "fuzz_used": 0,
      "hunks_with_fuzz": 0,
      "created": false,
      "deleted": true
    }
  ],
  "message": "Applied 3/3 hunks across 3 file(s). Files: a.txt, sub/new.txt, gone.txt."
}`
	if res.Content != want {
		t.Errorf("content:\n%s", res.Content)
	}
	if e.get("a.txt") != "one\n2\n" || e.get("sub/new.txt") != "hello\nworld\n" {
		t.Error("files not patched")
	}
	if _, err := os.Stat(e.path("gone.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("gone.txt not deleted")
	}
	m := mutationOf(t, res.Metadata)
	wantFiles := []MutationFile{{"a.txt", "updated"}, {"sub/new.txt", "created"}, {"gone.txt", "deleted"}}
	if !reflect.DeepEqual(m.Files, wantFiles) {
		t.Errorf("mutation files %+v", m.Files)
	}
	mustContain(t, m.Diff, "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n", "--- /dev/null\n+++ b/sub/new.txt\n",
		"--- a/gone.txt\n+++ /dev/null\n")
}

// snapshotTree records every file's bytes and mode under root.
func snapshotTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[rel+"/"] = info.Mode().String()
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = info.Mode().String() + ":" + string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPatchIsAllOrNothing(t *testing.T) {
	t.Parallel()
	good := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n"
	cases := []struct {
		name, patch, want string
	}{
		{"second file does not apply", good + "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n nope\n-b\n+B\n",
			"Failed to apply hunk 1/1 for `b.txt`: could not find matching context near line 1"},
		{"missing target", good + "--- a/none.txt\n+++ b/none.txt\n@@ -1 +1 @@\n-a\n+b\n",
			"File `none.txt` does not exist at `"},
		{"delete of a missing file", good + "--- a/none.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n",
			"File `none.txt` does not exist at `"},
		{"ambiguous relocation", good + "--- a/rep.txt\n+++ b/rep.txt\n@@ -40,4 +40,4 @@\n w\n x\n-y\n+Y\n z\n",
			"Failed to apply hunk 1/1 for `rep.txt`: could not find matching context near line 40, and the hunk's context is ambiguous elsewhere in the file (lines 1, 5)"},
		{"empty section", good + "--- a/b.txt\n+++ b/b.txt\n", "Patch section for `b.txt` has no hunks"},
		{"no hunks", "--- a/b.txt\n+++ b/b.txt\n", "Patch must include at least one hunk header"},
		{"hunks without headers", "@@ -1 +1 @@\n-a\n+A\n", "Patch contains hunks but no file headers (`---`/`+++`). Provide `path` or add headers."},
		{"escape", good + "--- a/../x.txt\n+++ b/../x.txt\n@@ -1 +1 @@\n-a\n+b\n", "Path escapes workspace"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, writable)
			e.put("a.txt", "a\n")
			e.put("b.txt", "b\nc\n")
			e.put("rep.txt", "w\nx\ny\nz\nw\nx\ny\nz\n")
			before := snapshotTree(t, e.ws)
			if got := e.callErr(js(map[string]any{"action": "patch", "patch": c.patch})); !strings.Contains(got, c.want) {
				t.Errorf("error:\n%s\nwant %q", got, c.want)
			}
			if after := snapshotTree(t, e.ws); !reflect.DeepEqual(before, after) {
				t.Errorf("a failed patch changed the workspace:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// failingOps fails writes to one path, to make a transaction fail halfway.
type failingOps struct {
	osFileOps
	failPath string
	writes   []string
}

func (f *failingOps) writeAtomic(v fsView, path string, data []byte, mode fs.FileMode) error {
	f.writes = append(f.writes, path)
	if path == f.failPath {
		return errors.New("injected write failure")
	}
	return f.osFileOps.writeAtomic(v, path, data, mode)
}

func TestPatchRollsBackAfterAWriteFailsHalfway(t *testing.T) {
	t.Parallel()
	multi := "--- a/one.txt\n+++ b/one.txt\n@@ -1 +1 @@\n-one\n+ONE\n" +
		"--- /dev/null\n+++ b/made/deep/new.txt\n@@ -0,0 +1 @@\n+new\n" +
		"--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n" +
		"--- a/two.txt\n+++ b/two.txt\n@@ -1 +1 @@\n-two\n+TWO\n"
	t.Run("injected failure on the last write", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, writable)
		e.put("one.txt", "one\n")
		e.put("two.txt", "two\n")
		e.put("gone.txt", "gone\n")
		if err := os.Chmod(e.path("one.txt"), 0o640); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour).Truncate(time.Second)
		if err := os.Chtimes(e.path("one.txt"), old, old); err != nil {
			t.Fatal(err)
		}
		e.callOK(`{"action":"read","path":"one.txt"}`)
		ops := &failingOps{failPath: e.path("two.txt")}
		e.tool.fs = ops
		before := snapshotTree(t, e.ws)
		got := e.callErr(js(map[string]any{"action": "patch", "patch": multi}))
		mustContain(t, got, "Failed to write "+e.path("two.txt")+": injected write failure. The patch was rolled back; no file was changed.")
		if after := snapshotTree(t, e.ws); !reflect.DeepEqual(before, after) {
			t.Errorf("rollback incomplete:\nbefore %v\nafter  %v", before, after)
		}
		if len(ops.writes) < 3 {
			t.Errorf("the failure was not halfway: writes %v", ops.writes)
		}
		// The restored mtime keeps the earlier read valid.
		e.tool.fs = osFileOps{}
		e.callOK(`{"action":"edit","path":"one.txt","search":"one","replace":"uno"}`)
	})
	t.Run("real failure: a parent path is a file", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, writable)
		e.put("one.txt", "one\n")
		e.put("blocker", "i am a file\n")
		patch := "--- a/one.txt\n+++ b/one.txt\n@@ -1 +1 @@\n-one\n+ONE\n" +
			"--- /dev/null\n+++ b/blocker/new.txt\n@@ -0,0 +1 @@\n+new\n"
		before := snapshotTree(t, e.ws)
		got := e.callErr(js(map[string]any{"action": "patch", "patch": patch}))
		mustContain(t, got, "Failed to write "+e.path("blocker/new.txt")+": not a directory. The patch was rolled back")
		if after := snapshotTree(t, e.ws); !reflect.DeepEqual(before, after) {
			t.Errorf("rollback incomplete:\nbefore %v\nafter  %v", before, after)
		}
	})
}

func TestPatchReplaceForms(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	e.put("a.txt", "old\n")
	for _, field := range []string{"replace", "changes"} {
		res := e.callOK(js(map[string]any{"action": "patch", field: []map[string]string{
			{"path": "a.txt", "content": field + "\n"}, {"path": "n/" + field + ".txt", "content": "x"}}}))
		r := decode[patchResult](t, res.Content)
		if r.FilesApplied != 2 || r.HunksTotal != 0 || r.Message != "Applied 2 file change(s). Files: a.txt, n/"+field+".txt." ||
			r.FileSummaries[0].Created || !r.FileSummaries[1].Created {
			t.Errorf("%s: %+v", field, r)
		}
		if e.get("a.txt") != field+"\n" || e.get("n/"+field+".txt") != "x" {
			t.Errorf("%s not applied", field)
		}
	}
	cases := []struct{ in, want string }{
		{`{"action":"patch","patch":"x","replace":[]}`, "Invalid input for tool 'File': Cannot use `patch`, `replace` simultaneously. Choose exactly one of `patch`, `replace`, or the deprecated `changes` alias."},
		{`{"action":"patch","replace":[],"changes":[]}`, "Cannot use `replace`, `changes` simultaneously."},
		{`{"action":"patch","fuzz":2}`, "Tool 'File' is missing required field 'patch, replace, or deprecated changes'"},
		{`{"action":"patch","replace":[]}`, "Invalid input for tool 'File': `replace` cannot be empty"},
		{`{"action":"patch","replace":"text"}`, "Invalid input for tool 'File': `replace` must be an array of objects like {path, content}"},
		{`{"action":"patch","replace":[{"content":"x"}]}`, "Tool 'File' is missing required field 'replace[].path'"},
		{`{"action":"patch","changes":[{"path":"a"}]}`, "Tool 'File' is missing required field 'changes[].content'"},
		{`{"action":"patch","replace":[{"path":"a","content":3}]}`, "field 'replace[].content' must be a string; got number"},
		{`{"action":"patch","path":"a.txt","patch":"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n"}`,
			"Patch references multiple files (x, y) but `path` was provided."},
		{`{"action":"patch","path":"none.txt","patch":"@@ -1 +1 @@\n-a\n+b\n"}`,
			"File `none.txt` does not exist at `"},
	}
	for _, c := range cases {
		if got := e.callErr(c.in); !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	// create_if_missing with a path override creates the file.
	e.callOK(`{"action":"patch","path":"made.txt","create_if_missing":true,"patch":"@@ -0,0 +1 @@\n+hi\n"}`)
	if e.get("made.txt") != "hi\n" {
		t.Errorf("created: %q", e.get("made.txt"))
	}
}

func TestPatchRenameMetadataAndSnapshots(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	e.put("old.txt", "same\n")
	e.put("kept.txt", "k\n")
	e.callOK(`{"action":"read","path":"kept.txt"}`)
	patch := "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-same\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+same\n" +
		"--- a/kept.txt\n+++ b/kept.txt\n@@ -1 +1 @@\n-k\n+K\n"
	m := mutationOf(t, e.callOK(js(map[string]any{"action": "patch", "patch": patch})).Metadata)
	if !reflect.DeepEqual(m.Renames, []Rename{{"old.txt", "new.txt"}}) || !reflect.DeepEqual(m.Files, []MutationFile{{"kept.txt", "updated"}}) {
		t.Errorf("renames %+v files %+v", m.Renames, m.Files)
	}
	mustContain(t, m.Diff, "diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n")
	// kept.txt had been read, so its snapshot follows the patch; new.txt was never read.
	e.callOK(`{"action":"edit","path":"kept.txt","search":"K","replace":"kk"}`)
	mustContain(t, e.callErr(`{"action":"edit","path":"new.txt","search":"same","replace":"x"}`), "has not been read in this session")
}

func TestApplyPatchAlias(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	e.put("a.txt", "a\n")
	alias := NewApplyPatch(Options{Writable: true, Patch: true, ReadStamps: e.tool.ReadStamps()})
	if alias.ModelVisible() || alias.Name() != "apply_patch" || alias.DeclaredApproval().String() != "Suggest" {
		t.Fatal("apply_patch must be a hidden Suggest alias")
	}
	if _, ok := alias.InputSchema()["properties"].(map[string]any)["action"]; ok {
		t.Error("the legacy schema has no action")
	}
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n"
	res, err := e.reg.Execute(t.Context(), e.tc, "apply_patch", []byte(js(map[string]any{"action": "read", "patch": patch})))
	if err != nil {
		t.Fatal(errText(err))
	}
	if res.Metadata["invoked_as"] != "apply_patch" || e.get("a.txt") != "A\n" {
		t.Errorf("alias run: meta %v file %q", res.Metadata, e.get("a.txt"))
	}
	canonical := e.callOK(js(map[string]any{"action": "patch", "patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-A\n+a\n"}))
	if decode[patchResult](t, canonical.Content).Message != decode[patchResult](t, res.Content).Message {
		t.Error("alias and canonical results differ")
	}
	_, err = e.reg.Execute(t.Context(), e.tc, "apply_patch", []byte(`{"patch":"x","bogus":1}`))
	mustContain(t, errText(err), "unexpected File patch parameter(s): bogus.")
	off := NewApplyPatch(Options{Writable: true})
	_, err = off.Execute(t.Context(), e.tc, []byte(js(map[string]any{"patch": patch})))
	mustContain(t, errText(err), "File action=\"patch\" is unavailable because the patch feature is disabled")
}

func TestPreflight(t *testing.T) {
	t.Parallel()
	pf, err := Preflight([]byte(js(map[string]any{"action": "patch", "patch": "--- /dev/null\n+++ b/n.go\n@@ -0,0 +1 @@\n+x\n" +
		"--- a/o.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n--- a/m.go\n+++ b/m.go\n@@ -1 +1 @@\n-a\n+b\n"})))
	if err != nil {
		t.Fatal(err)
	}
	want := PatchPreflight{TouchedFiles: []string{"n.go", "o.go", "m.go"}, Creates: []string{"n.go"}, Deletes: []string{"o.go"}, FilesTotal: 3, HunksTotal: 3}
	if !reflect.DeepEqual(pf, want) {
		t.Errorf("preflight %+v", pf)
	}
}

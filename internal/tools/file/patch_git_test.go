package file

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestPatchNewlinesAndLineEndings: git's "\ No newline at end of file" is
// honoured both ways, a patch without markers keeps the file's state, and
// each line keeps its own terminator.
func TestPatchNewlinesAndLineEndings(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, before, patch, after string }{
		{"gains a final newline", "a\nb",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n", "a\nb\nc\n"},
		{"loses its final newline", "p\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1 +1,2 @@\n-p\n+p\n+more\n\\ No newline at end of file\n", "p\nmore"},
		{"context line without newline on both sides", "a\nb",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n", "A\nb"},
		{"no markers keep the missing newline", "a\nb", "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n a\n b\n+c\n", "a\nb\nc"},
		{"mixed endings: only the named lines change", "lf\ncrlf\r\nlf\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n lf\n crlf\r\n+new lf\n lf\n", "lf\ncrlf\r\nnew lf\nlf\n"},
		{"a CRLF file patched without \\r gets CRLF lines", "a\r\nb\r\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n a\n+x\n b\n", "a\r\nx\r\nb\r\n"},
		{"literal \\r in the patch", "x\r\ny\r\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n x\r\n y\r\n+z\r\n", "x\r\ny\r\nz\r\n"},
		{"offset of 8 with a small unique hunk (git apply accepts it)", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nneedle\n13\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -3,2 +3,2 @@\n 11\n-needle\n+found\n", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nfound\n13\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, writable)
			e.put("f.txt", c.before)
			e.callOK(js(map[string]any{"action": "patch", "patch": c.patch}))
			if got := e.get("f.txt"); got != c.after {
				t.Errorf("got %q, want %q", got, c.after)
			}
		})
	}
	t.Run("new file without a final newline", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, writable)
		e.callOK(js(map[string]any{"action": "patch", "patch": "diff --git a/n.txt b/n.txt\nnew file mode 100644\n" +
			"index 0000000..1\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n"}))
		if got := e.get("n.txt"); got != "x\ny" {
			t.Errorf("got %q", got)
		}
	})
}

// TestPatchGitHeaders: renames (pure and with edits), copies, modes, empty
// files and quoted names are applied, all or nothing.
func TestPatchGitHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	e.put("old name.txt", "same\n")
	e.put("story.txt", "one\ntwo\nthree\n")
	e.put("src.go", "package a\n")
	e.put("run.sh", "#!/bin/sh\n")
	e.put("gone-empty", "")
	patch := "diff --git a/old name.txt b/new name.txt\nsimilarity index 100%\nrename from old name.txt\nrename to new name.txt\n" +
		"diff --git a/story.txt b/tale.txt\nsimilarity index 70%\nrename from story.txt\nrename to tale.txt\n" +
		"index 1..2 100644\n--- a/story.txt\n+++ b/tale.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n" +
		"diff --git a/src.go b/copy.go\nsimilarity index 90%\ncopy from src.go\ncopy to copy.go\n--- a/src.go\n+++ b/copy.go\n" +
		"@@ -1 +1 @@\n-package a\n+package b\n" +
		"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n" +
		"diff --git a/empty b/empty\nnew file mode 100755\nindex 0000000..e69de29\n" +
		"diff --git a/gone-empty b/gone-empty\ndeleted file mode 100644\nindex e69de29..0000000\n" +
		"diff --git \"a/caf\\303\\251.txt\" \"b/caf\\303\\251.txt\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/caf\\303\\251.txt\"\n@@ -0,0 +1 @@\n+café\n"
	res := e.callOK(js(map[string]any{"action": "patch", "patch": patch}))
	for rel, want := range map[string]string{"new name.txt": "same\n", "tale.txt": "one\nTWO\nthree\n",
		"copy.go": "package b\n", "src.go": "package a\n", "empty": "", "café.txt": "café\n"} {
		if got := e.get(rel); got != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
	for _, rel := range []string{"old name.txt", "story.txt", "gone-empty"} {
		if _, err := os.Lstat(e.path(rel)); !os.IsNotExist(err) {
			t.Errorf("%s still exists (%v)", rel, err)
		}
	}
	for rel, want := range map[string]os.FileMode{"run.sh": 0o755, "empty": 0o755, "copy.go": 0o644} {
		if fi, err := os.Stat(e.path(rel)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s mode %v (%v), want %v", rel, fi.Mode().Perm(), err, want)
		}
	}
	r := decode[patchResult](t, res.Content)
	mustContain(t, r.Message, "Renamed old name.txt -> new name.txt. Renamed story.txt -> tale.txt. Copied src.go -> copy.go.")
	m := mutationOf(t, res.Metadata)
	if want := []Rename{{"old name.txt", "new name.txt"}, {"story.txt", "tale.txt"}}; !reflect.DeepEqual(m.Renames, want) {
		t.Errorf("renames %+v", m.Renames)
	}
	pf, err := Preflight([]byte(js(map[string]any{"action": "patch", "patch": patch})))
	if err != nil {
		t.Fatal(err)
	}
	if !contains(pf.Deletes, "story.txt") || !contains(pf.Creates, "tale.txt") || !contains(pf.Creates, "copy.go") ||
		!contains(pf.TouchedFiles, "old name.txt") || pf.FilesTotal != 7 {
		t.Errorf("preflight %+v", pf)
	}
}

// TestPatchRefusesWhole: what File cannot apply faithfully is refused with
// a clear reason and leaves every file as it was.
func TestPatchRefusesWhole(t *testing.T) {
	t.Parallel()
	good := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n"
	cases := []struct{ name, patch, want string }{
		{"binary patch", good + "diff --git a/d.bin b/d.bin\nindex 1..2 100644\nGIT binary patch\nliteral 3\nKcmZQzWMT8C\n\n",
			"Patch section for `d.bin` is a binary patch"},
		{"binary files differ", good + "diff --git a/d.bin b/d.bin\nindex 1..2 100644\nBinary files a/d.bin and b/d.bin differ\n",
			"Patch section for `d.bin` is a binary patch"},
		{"symlink retarget", good + "diff --git a/link b/link\nindex 1..2 120000\n--- a/link\n+++ b/link\n@@ -1 +1 @@\n-a.txt\n" +
			"\\ No newline at end of file\n+b.txt\n\\ No newline at end of file\n", "has mode 120000 (a symbolic link)"},
		{"submodule", good + "diff --git a/sub b/sub\nnew file mode 160000\nindex 0..1\n--- /dev/null\n+++ b/sub\n@@ -0,0 +1 @@\n+Subproject commit 1\n",
			"has mode 160000 (a submodule)"},
		{"creation over an existing file", good + "--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n",
			"Patch creates `b.txt` (its old side is /dev/null or `new file mode`), but it already exists"},
		{"deletion that leaves lines", good + "--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n",
			"Patch deletes `b.txt`, but 1 line(s) of it are not among the lines the patch removes"},
		{"rename onto an existing file", good + "diff --git a/b.txt b/a.txt\nsimilarity index 100%\nrename from b.txt\nrename to a.txt\n",
			"but `a.txt` already exists"},
		{"rename of a file changed earlier", good + "diff --git a/a.txt b/z.txt\nsimilarity index 100%\nrename from a.txt\nrename to z.txt\n",
			"after an earlier section changed `a.txt`"},
		{"rename of a missing file", "diff --git a/none b/x\nsimilarity index 100%\nrename from none\nrename to x\n",
			"Patch renames `none` to `x`, but `none` does not exist"},
		{"no-newline marker away from the end", "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n\\ No newline at end of file\n",
			"its last line is marked \"\\ No newline at end of file\", but its context matches at line 1"},
		{"small ambiguous hunk far away", "--- a/rep.txt\n+++ b/rep.txt\n@@ -40,2 +40,2 @@\n x\n-y\n+Y\n",
			"ambiguous elsewhere in the file (lines 2, 6)"},
		{"combined diff", "diff --cc a.txt\nindex 1,2..3\n", "combined (merge) diff"},
		{"path with a rename", "diff --git a/a.txt b/z.txt\nrename from a.txt\nrename to z.txt\n", "`path` cannot express"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, writable)
			e.put("a.txt", "a\n")
			e.put("b.txt", "b\nc\n")
			e.put("rep.txt", "w\nx\ny\nz\nw\nx\ny\nz\n"+strings.Repeat("filler\n", 12))
			before := snapshotTree(t, e.ws)
			in := map[string]any{"action": "patch", "patch": c.patch}
			if c.name == "path with a rename" {
				in["path"] = "a.txt"
			}
			if got := e.callErr(js(in)); !strings.Contains(got, c.want) {
				t.Errorf("error:\n%s\nwant %q", got, c.want)
			}
			if after := snapshotTree(t, e.ws); !reflect.DeepEqual(before, after) {
				t.Errorf("a refused patch changed the workspace:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

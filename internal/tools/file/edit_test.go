package file

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// TestEditIndentToleranceCompiles is flask's helpers.py case: a search
// indented two less than the file, replaced by a block with a nested
// line; the result is Python that compiles, or the edit is refused and the
// file unchanged — never success with mixed indentation (CONTRACT.md §6.2).
func TestEditIndentToleranceCompiles(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		e2e.Missing(t, "python3 compiles the edited file")
	}
	const file = "class App:\n    def get(self, name):\n        if name:\n            value = self.lookup(name)\n" +
		"            return value\n        return None\n"
	for _, c := range []struct{ search, replace string }{
		{"      if name:\n          value = self.lookup(name)\n          return value\n",
			"      if name:\n          value = self.lookup(name)\n          if value is None:\n              raise KeyError(name)\n          return value\n"},
		{"      if name:\n          value = self.lookup(name)\n          return value\n      return None\n",
			"      if name:\n          return self.lookup(name)\n    return None\n"},
	} {
		e := newEnv(t, writable)
		e.put("helpers.py", file)
		e.callOK(`{"action":"read","path":"helpers.py"}`)
		in, _ := json.Marshal(map[string]string{"action": "edit", "path": "helpers.py", "search": c.search, "replace": c.replace})
		_, err := e.call(string(in))
		if err != nil {
			if e.get("helpers.py") != file {
				t.Errorf("refused (%s) but the file changed", errText(err))
			}
			continue
		}
		if out, err := exec.Command(py, "-c", "import sys; compile(open(sys.argv[1]).read(), 'h', 'exec')", e.path("helpers.py")).CombinedOutput(); err != nil {
			t.Errorf("the edit succeeded but the Python does not compile: %s\n%s", out, e.get("helpers.py"))
		}
	}
}

func mutationOf(t *testing.T, meta map[string]any) Mutation {
	t.Helper()
	if meta["event"] != MutationEvent {
		t.Fatalf("metadata event %v", meta["event"])
	}
	return meta["mutation"].(Mutation)
}

func TestWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	res := e.callOK(`{"action":"write","path":"new/dir/a.txt","content":"one\ntwo\n"}`)
	abs := e.path("new/dir/a.txt")
	want := "--- /dev/null\n+++ b/new/dir/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\nCreated " + abs + " (8 bytes)"
	if res.Content != want {
		t.Errorf("create content:\n%q\nwant\n%q", res.Content, want)
	}
	m := mutationOf(t, res.Metadata)
	if !reflect.DeepEqual(m.Files, []MutationFile{{"new/dir/a.txt", "created"}}) || len(m.Renames) != 0 ||
		!strings.HasPrefix(m.Diff, "--- /dev/null\n+++ b/new/dir/a.txt\n") {
		t.Errorf("create metadata %+v", m)
	}
	if err := os.Chmod(abs, 0o751); err != nil {
		t.Fatal(err)
	}
	res = e.callOK(`{"action":"write","path":"new/dir/a.txt","content":"one\nTWO\n"}`)
	mustContain(t, res.Content, "--- a/new/dir/a.txt\n+++ b/new/dir/a.txt\n", "-two\n+TWO\nWrote 8 bytes to "+abs)
	if m := mutationOf(t, res.Metadata); m.Files[0].Outcome != "updated" {
		t.Errorf("outcome %q", m.Files[0].Outcome)
	}
	if fi, _ := os.Stat(abs); fi.Mode().Perm() != 0o751 {
		t.Errorf("mode not kept: %v", fi.Mode())
	}
	res = e.callOK(`{"action":"write","path":"new/dir/a.txt","content":"one\nTWO\n"}`)
	if res.Content != "Wrote 8 bytes to "+abs+"\n(no changes)" {
		t.Errorf("identical write: %q", res.Content)
	}
	entries, _ := os.ReadDir(filepath.Dir(abs))
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
	// A write records a snapshot: an edit may follow without a read.
	e.callOK(`{"action":"edit","path":"new/dir/a.txt","search":"TWO","replace":"2"}`)
	if got := e.get("new/dir/a.txt"); got != "one\n2\n" {
		t.Errorf("edit after write: %q", got)
	}
	mustContain(t, e.callErr(`{"action":"write","path":"new","content":"x"}`), "Failed to read "+e.path("new")+": is a directory")
	mustContain(t, e.callErr(`{"action":"write","path":"../x.txt","content":"x"}`), "Path escapes workspace")
}

func TestReadBeforeEdit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	abs := e.put("a.go", "x := 1\n")
	edit := `{"action":"edit","path":"a.go","search":"x := 1","replace":"x := 2"}`

	got := e.callErr(edit)
	want := "Refusing File action=\"edit\" for " + abs + " because it has not been read in this session. Recovery: " +
		"call File with action=\"read\" path=\"a.go\""
	if !strings.HasPrefix(got, want) {
		t.Errorf("never read:\n%s", got)
	}

	e.callOK(`{"action":"read","path":"a.go"}`)
	e.put("a.go", "x := 1 // changed\n")
	got = e.callErr(edit)
	if !strings.HasPrefix(got, "Refusing File action=\"edit\" for "+abs+" because it changed since the last File action=\"read\" call. ") {
		t.Errorf("changed since read:\n%s", got)
	}
	// Same size, different mtime is a change too.
	e.callOK(`{"action":"read","path":"a.go"}`)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(abs, later, later); err != nil {
		t.Fatal(err)
	}
	mustContain(t, e.callErr(edit), "because it changed since the last File action=\"read\" call")

	e.callOK(`{"action":"read","path":"a.go"}`)
	res := e.callOK(`{"action":"edit","path":"a.go","old_string":"x := 1","new_string":"x := 2"}`)
	if !strings.HasSuffix(res.Content, "\nReplaced 1 occurrence in "+abs) || !strings.Contains(res.Content, "-x := 1 // changed\n+x := 2 // changed") {
		t.Errorf("edit result:\n%s", res.Content)
	}
	if m := mutationOf(t, res.Metadata); !reflect.DeepEqual(m.Files, []MutationFile{{"a.go", "updated"}}) {
		t.Errorf("edit metadata %+v", m)
	}
	// The edit refreshed the snapshot: a second edit needs no new read.
	e.callOK(`{"action":"edit","path":"a.go","search":"x := 2","replace":"x := 3"}`)
	if e.get("a.go") != "x := 3 // changed\n" {
		t.Errorf("file: %q", e.get("a.go"))
	}

	// The store is shared: a second instance (next turn's registry) sees the read.
	next := New(Options{Writable: true, ReadStamps: e.tool.ReadStamps()})
	if _, err := next.Execute(t.Context(), e.tc, []byte(`{"action":"edit","path":"a.go","search":"x := 3","replace":"x := 4"}`)); err != nil {
		t.Errorf("edit through a new instance sharing the store: %s", errText(err))
	}
}

func TestEditMatching(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, content, search, replace string
		want, note                     string // want "" means refused with note as the error text prefix
	}{
		{"exact", "a\nb\nc\n", "b", "B", "a\nB\nc\n", ""},
		{"crlf file, lf search", "one\r\ntwo\r\nthree\r\n", "one\ntwo", "1\n2", "1\r\n2\r\nthree\r\n", noteCRLF},
		{"lf file, crlf search", "one\ntwo\n", "one\r\ntwo", "1\r\n2", "1\n2\n", noteCRLF},
		{"indentation", "func f() {\n\t\tif x {\n\t\t\ty()\n\t\t}\n}\n", "if x {\n\ty()\n}", "if z {\n\tw()\n}",
			"func f() {\n\t\tif z {\n\t\t\tw()\n\t\t}\n}\n", noteIndent},
		// CONTRACT.md §6.2: every replaced line is re-indented by the same shift, or the edit is refused.
		{"indentation, file shallower", "def f():\n    if x:\n        a = 1\n    return a\n", "      if x:\n          a = 1\n",
			"      if y:\n          a = 2\n          b = 3\n", "def f():\n    if y:\n        a = 2\n        b = 3\n    return a\n", noteIndent},
		{"indentation, a replace line shallower than the first", "def f(x):\n    if x:\n        a = 1\n        b = 2\n    return a\n",
			"  if x:\n      a = 1\n      b = 2\n  return a", "  if x:\n      a = 1\nreturn a", "", "The search text matches "},
		{"indentation, tabs against spaces", "f:\n\tif x:\n\t\ty\n", "  if x:\n    y", "  if z:\n    y", "", "The search text matches "},
		{"punctuation", "say(\u201chi\u201d) \u2014 ok\n", "say(\"hi\") - ok", "say(\"bye\")", "say(\"bye\")\n", notePunct},
		{"non-unique", "x\nx\n", "x", "y", "", "File `edit` search is non-unique: matched 2 locations in "},
		{"non-unique indentation", "  a\n    a\n", "a\n", "b\n", "", "File `edit` search is non-unique: matched 2 locations in "},
		{"not found", "abc\n", "zzz\nyyy", "q", "", "Search string not found in "},
		{"identical", "abc\n", "abc", "abc", "", "Invalid input for tool 'File': search and replace are identical (3 chars, 1 lines), so no change is possible."},
		{"empty search", "abc\n", "", "x", "", "Invalid input for tool 'File': search must not be empty"},
		{"brace balance changed", "f() {\n\tx()\n}\n", "f() {\n\tx()\n}", "f() {\n\ty()\n", "",
			"Invalid input for tool 'File': edit_file refused corrupted payload: the `{`/`}` balance of replace (+1) differs from search's (+0)"},
		{"block collapsed", "m := map[string]int{\n\t\"a\": 1,\n\t\"b\": 2,\n}\n", "{\n\t\"a\": 1,\n\t\"b\": 2,\n}", "{}", "",
			"Invalid input for tool 'File': edit_file refused corrupted payload: a multi-line braced block in search collapsed"},
		{"drastic shrink", "func f() {\n\treturn compute(alpha, beta, gamma, delta, epsilon, zeta, eta, theta)\n}\n",
			"func f() {\n\treturn compute(alpha, beta, gamma, delta, epsilon, zeta, eta, theta)\n}", "f()", "",
			"Invalid input for tool 'File': edit_file refused corrupted payload: replace is drastically shorter"},
		{"same unbalance is fine", "if a {\n\tx()\n}\n", "if a {", "if b {", "if b {\n\tx()\n}\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, writable)
			abs := e.put("f.txt", c.content)
			if err := os.Chmod(abs, 0o600); err != nil {
				t.Fatal(err)
			}
			e.callOK(`{"action":"read","path":"f.txt"}`)
			in := js(map[string]any{"action": "edit", "path": "f.txt", "search": c.search, "replace": c.replace})
			if c.want == "" {
				got := e.callErr(in)
				if !strings.HasPrefix(got, c.note) {
					t.Errorf("error:\n%s\nwant prefix %q", got, c.note)
				}
				if e.get("f.txt") != c.content {
					t.Error("a refused edit changed the file")
				}
				return
			}
			res := e.callOK(in)
			if got := e.get("f.txt"); got != c.want {
				t.Errorf("file %q, want %q", got, c.want)
			}
			if !strings.HasSuffix(res.Content, "Replaced 1 occurrence in "+abs+c.note) {
				t.Errorf("result %q lacks note %q", res.Content, c.note)
			}
			if fi, _ := os.Stat(abs); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode not kept: %v", fi.Mode())
			}
		})
	}
}

func TestEditNotFoundShowsPreview(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	abs := e.put("f.txt", "abc\n")
	e.callOK(`{"action":"read","path":"f.txt"}`)
	got := e.callErr(`{"action":"edit","path":"f.txt","search":"l1\nl2\nl3\nl4","replace":"x"}`)
	want := "Search string not found in " + abs + ". The search text starts with:\nl1\nl2\nl3\nRecovery: "
	if !strings.HasPrefix(got, want) {
		t.Errorf("got %q", got)
	}
}

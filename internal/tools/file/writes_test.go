package file

import (
	"encoding/json"
	"strings"
	"testing"
)

// A write, edit or patch names, before it runs, every file it may change
// (tools.Call.Writes), so the turn's first checkpoint looks only at those;
// a patch's rename names both sides. A read names none, and a patch that
// does not parse (it fails without writing) names none either.
func TestWritesNameTheFilesACallWillChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	rename := "diff --git a/old.go b/new.go\nsimilarity index 100%\nrename from old.go\nrename to new.go\n"
	two := "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n--- a/sub/y.go\n+++ b/sub/y.go\n@@ -1 +1 @@\n-a\n+b\n"
	for _, c := range []struct {
		name, tool string
		in         map[string]any
		want       string
	}{
		{"write", Name, map[string]any{"action": "write", "path": "a.txt", "content": "x"}, "a.txt"},
		{"edit", Name, map[string]any{"action": "edit", "path": "sub/b.go", "search": "x", "replace": "y"}, "sub/b.go"},
		{"patch with path", Name, map[string]any{"action": "patch", "path": "c.go", "patch": "@@ -1 +1 @@\n-a\n+b\n"}, "c.go"},
		{"multi-file patch", Name, map[string]any{"action": "patch", "patch": two}, "x.go,sub/y.go"},
		{"rename", Name, map[string]any{"action": "patch", "patch": rename}, "old.go,new.go"},
		{"replace entries", Name, map[string]any{"action": "patch", "replace": []any{
			map[string]any{"path": "p.txt", "content": "1"}, map[string]any{"path": "q.txt", "content": "2"}}}, "p.txt,q.txt"},
		{"apply_patch", ApplyPatchName, map[string]any{"patch": two}, "x.go,sub/y.go"},
		{"a patch that does not parse", Name, map[string]any{"action": "patch", "patch": "@@ -1 +1 @@\n-a\n+b\n"}, ""},
		{"read", Name, map[string]any{"action": "read", "path": "a.txt"}, ""},
	} {
		raw, _ := json.Marshal(c.in)
		call, err := e.reg.Prepare(c.tool, raw)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := strings.Join(call.Writes, ","); got != c.want {
			t.Errorf("%s: writes %q, want %q", c.name, got, c.want)
		}
	}
}

package file

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// CONTRACT.md §5: every File action goes through the workspace boundary: read, list, search_name, search_content,
// write, edit and patch each refuse a path that leaves the workspace — by "..", by an absolute path, through a link
// to a directory outside, or through a link that leads nowhere yet — with PathEscape, and nothing outside is
// read or changed.
func TestContract5EveryActionRefusesAnEscape(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	outside := tools.Canonical(t.TempDir())
	if err := os.WriteFile(filepath.Join(outside, "f.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, e.path("out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "later"), e.path("dangling")); err != nil {
		t.Fatal(err)
	}
	paths := []string{"../f.txt", filepath.Join(outside, "f.txt"), "out/f.txt", "dangling", "dangling/f.txt"}
	for _, p := range paths {
		for _, in := range []map[string]any{
			{"action": "read", "path": p},
			{"action": "list", "path": p},
			{"action": "search_name", "query": "f", "path": p},
			{"action": "search_content", "pattern": "outside", "path": p},
			{"action": "write", "path": p, "content": "pwned\n"},
			{"action": "edit", "path": p, "search": "outside", "replace": "pwned"},
			{"action": "patch", "replace": []map[string]any{{"path": p, "content": "pwned\n"}}},
		} {
			res, err := e.call(js(in))
			if te := tools.AsError(err); err == nil || te.Kind != tools.KindPathEscape {
				t.Errorf("%s: want PathEscape, got %v (%s)", js(in), err, res.Content)
			}
		}
	}
	ents, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Errorf("outside holds %d entries, want only f.txt", len(ents))
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(b) != "outside\n" {
		t.Errorf("outside f.txt became %q", b)
	}
	if fi, err := os.Lstat(e.path("dangling")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the dangling link was replaced: %v %v", fi, err)
	}
}

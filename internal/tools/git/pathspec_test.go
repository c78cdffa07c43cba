package git

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// TestPathspecs: a path is the repository's own name for a thing — a
// tracked symlink is the link, not its target; a deleted file or folder
// still has a history; glob characters are literal — compared with git
// asked the same question from the repository root.
func TestPathspecs(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	f.Write("target.txt", "target\n")
	f.Write("plain.txt", "plain\n")
	f.Write("gone/inner/a.txt", "a\n")
	f.Write("star*.txt", "a file whose name has a glob character\n")
	f.Write("starX.txt", "matched by the glob, not by the name\n")
	if err := os.Symlink("target.txt", filepath.Join(f.Dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	f.Commit("Links, a folder to delete, glob-like names")
	f.Remove("gone")
	f.Commit("Delete the folder")
	if err := os.Remove(filepath.Join(f.Dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain.txt", filepath.Join(f.Dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	f.Write("star*.txt", "changed\n")
	f.Write("starX.txt", "changed too\n")
	lit := func(args ...string) []string { return append([]string{"--literal-pathspecs"}, args...) }
	status := func(p string) []string {
		return lit("-c", "core.quotepath=false", "status", "--porcelain=v1", "-b", "--", p)
	}
	log := func(p string) []string {
		return lit("log", "--no-color", "--max-count=20", "--date=iso-strict", "--pretty="+logFormat, "--", p)
	}
	runCases(t, f, []gitCase{
		{name: "status of a retargeted symlink", in: `{"action":"status","path":"link.txt"}`, args: status("link.txt")},
		{name: "diff of a retargeted symlink", in: `{"action":"diff","path":"link.txt"}`,
			args: lit("-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff", "--unified=3", "--", "link.txt")},
		{name: "log of a symlink follows the link's own history", in: `{"action":"log","path":"link-to-demo"}`, args: log("link-to-demo")},
		{name: "blame of a symlink blames the link", in: `{"action":"blame","path":"link.txt"}`,
			args: lit("blame", "--date=iso", "-L1,200", "HEAD", "--", "link.txt")},
		{name: "log of a deleted folder", in: `{"action":"log","path":"gone/"}`, args: log("gone/")},
		{name: "log of a file in a deleted folder", in: `{"action":"log","path":"gone/inner/a.txt"}`, args: log("gone/inner/a.txt")},
		{name: "status of a deleted folder", in: `{"action":"status","path":"gone"}`, args: status("gone")},
		{name: "show of a deleted file", in: `{"action":"show","rev":"HEAD~1","path":"gone/inner/a.txt","patch":false,"stat":false}`,
			args: lit("show", "--no-color", "--no-ext-diff", "--no-patch", "HEAD~1", "--", "gone/inner/a.txt")},
		{name: "glob characters are literal", in: `{"action":"status","path":"star*.txt"}`, args: status("star*.txt")},
	})
	tc := &tools.Context{Workspace: f.Dir}
	for name, tool := range backends() {
		_, err := tool.Execute(context.Background(), tc, json.RawMessage(`{"action":"log","path":"never/was.txt"}`))
		if err == nil || !strings.Contains(err.Error(), "not in the workspace, the index, or any commit") {
			t.Errorf("[%s] a path nothing knows: %v", name, err)
		}
		_, err = tool.Execute(context.Background(), tc, json.RawMessage(`{"action":"status","path":"../outside"}`))
		var te *tools.Error
		if !asToolError(err, &te) || te.Kind != tools.KindPathEscape {
			t.Errorf("[%s] a path outside the workspace: %v", name, err)
		}
	}
}

func asToolError(err error, te **tools.Error) bool {
	e, ok := err.(*tools.Error)
	*te = e
	return ok
}

package git

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// TestWorkspaceBelowTopLevel: with the workspace a subdirectory of its
// repository, every action equals `git <action> -- .` (or the path given)
// run there by the git CLI, and a show of a blob or tree outside the
// workspace is refused as File refuses it (CONTRACT.md §6.3).
func TestWorkspaceBelowTopLevel(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	f.dirtyWorktree()
	ws := filepath.Join(f.Dir, "docs")
	quoted := func(args ...string) []string { return append([]string{"-c", "core.quotepath=false"}, args...) }
	show := func(rev string) []string {
		return []string{"show", "--no-color", "--no-ext-diff", "--unified=3", "--stat", rev, "--", "."}
	}
	cases := []gitCase{
		{name: "status", in: `{"action":"status"}`, args: quoted("status", "--porcelain=v1", "-b", "--", ".")},
		{name: "diff", in: `{"action":"diff"}`, args: quoted("diff", "--no-color", "--no-ext-diff", "--unified=3", "--", ".")},
		{name: "diff cached", in: `{"action":"diff","cached":true}`,
			args: quoted("diff", "--no-color", "--no-ext-diff", "--unified=3", "--cached", "--", ".")},
		{name: "log", in: `{"action":"log"}`, args: []string{"log", "--no-color", "--max-count=20", "--date=iso-strict", prettyLog, "--", "."}},
		{name: "log of a file", in: `{"action":"log","path":"guide.md"}`,
			args: []string{"log", "--no-color", "--max-count=20", "--date=iso-strict", prettyLog, "--", "guide.md"}},
		{name: "show a tag", in: `{"action":"show","rev":"v1.0"}`, args: show("v1.0")},
		{name: "show a commit outside", in: `{"action":"show","rev":"HEAD"}`, args: show("HEAD")},
		{name: "show header only", in: `{"action":"show","rev":"v1.0","patch":false,"stat":false}`,
			args: []string{"show", "--no-color", "--no-ext-diff", "--no-patch", "v1.0", "--", "."}},
		{name: "show a blob relative to the workspace", in: `{"action":"show","rev":"HEAD:./guide.md"}`, args: show("HEAD:./guide.md")},
		{name: "show a blob from the top inside", in: `{"action":"show","rev":"HEAD:docs/guide.md"}`, args: show("HEAD:docs/guide.md")},
		{name: "show the workspace tree", in: `{"action":"show","rev":"HEAD:./"}`, args: show("HEAD:./")},
		{name: "blame", in: `{"action":"blame","path":"guide.md"}`, args: []string{"blame", "--date=iso", "-L1,200", "HEAD", "--", "guide.md"}},
	}
	for i := range cases {
		cases[i].dir = "docs"
		cases[i].args = append([]string{"--literal-pathspecs"}, cases[i].args...)
	}
	runCasesIn(t, f, &tools.Context{Workspace: ws}, cases)

	blob := strings.TrimSpace(f.Run("rev-parse", "HEAD:demo.go"))
	for _, rev := range []string{"HEAD:demo.go", "HEAD:../demo.go", "HEAD:", "HEAD^{tree}", "v1.0^{tree}", ":demo.go",
		":0:demo.go", blob, blob[:10], "HEAD.." + blob, "HEAD..." + blob + "^!"} {
		in := `{"action":"show","rev":"` + rev + `"}`
		for name, tool := range backends() {
			res, err := tool.Execute(context.Background(), &tools.Context{Workspace: ws}, json.RawMessage(in))
			var te *tools.Error
			if !errors.As(err, &te) || te.Kind != tools.KindPermissionDenied || !strings.Contains(te.Error(), ws) {
				t.Errorf("show %s [%s]: %v %q, want a refusal naming the workspace", rev, name, err, res.Content)
			}
		}
	}
	for name, tool := range backends() {
		_, err := tool.Execute(context.Background(), &tools.Context{Workspace: ws}, json.RawMessage(`{"action":"log","path":"../demo.go"}`))
		var te *tools.Error
		if !errors.As(err, &te) || te.Kind != tools.KindPathEscape {
			t.Errorf("log ../demo.go [%s]: %v, want a path escape", name, err)
		}
	}
}

// TestTrustedRootWidensScope: a trusted root above the workspace widens
// Git's scope exactly as it widens File's.
func TestTrustedRootWidensScope(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	tc := &tools.Context{Workspace: filepath.Join(f.Dir, "docs"), TrustedRoots: []string{f.Dir}}
	cases := []gitCase{
		{name: "blob at the top", dir: "docs", in: `{"action":"show","rev":"HEAD:demo.go"}`,
			args: []string{"show", "--no-color", "--no-ext-diff", "--unified=3", "--stat", "HEAD:demo.go", "--", "."}},
		{name: "log of the trusted root", in: `{"action":"log","path":"` + f.Dir + `"}`,
			args: []string{"log", "--no-color", "--max-count=20", "--date=iso-strict", prettyLog, "--", "."}},
		{name: "status of a file at the top", in: `{"action":"status","path":"../demo.go"}`,
			args: []string{"-c", "core.quotepath=false", "status", "--porcelain=v1", "-b", "--", "demo.go"}},
	}
	runCasesIn(t, f, tc, cases)
}

// TestNestedRepositories: a path at or inside a submodule or a nested
// clone asks the workspace's repository, as `git <action> -- <path>` does
// there; the metadata names the inner repository and how to read it.
func TestNestedRepositories(t *testing.T) {
	t.Parallel()
	inner := newFixture(t)
	inner.Write("i.txt", "inner\n")
	inner.Commit("Inner one")
	f := newFixture(t)
	f.Write("top.txt", "top\n")
	f.Commit("Outer one")
	f.Run("-c", "protocol.file.allow=always", "submodule", "add", "-q", inner.Dir, "sub")
	f.Commit("Add the submodule")
	f.Write("sub/i.txt", "inner\nchanged\n")
	f.Write("sub/untracked.txt", "u\n")
	if _, err := f.RunIn(f.Path("sub"), "-c", "user.name=A", "-c", "user.email=a@b", "commit", "-qam", "Inner two"); err != nil {
		t.Fatal(err)
	}
	clone := newFixture(t)
	clone.Write("n.txt", "nested\n")
	clone.Commit("Nested one")
	f.Run("clone", "-q", clone.Dir, "nested")

	log := func(p string) []string {
		return []string{"log", "--no-color", "--max-count=20", "--date=iso-strict", prettyLog, "--", p}
	}
	status := func(p string) []string {
		return []string{"-c", "core.quotepath=false", "status", "--porcelain=v1", "-b", "--", p}
	}
	cases := []gitCase{
		{name: "status of the submodule", in: `{"action":"status","path":"sub"}`, args: status("sub")},
		{name: "status inside the submodule", in: `{"action":"status","path":"sub/i.txt"}`, args: status("sub/i.txt")},
		{name: "status of a nested clone", in: `{"action":"status","path":"nested"}`, args: status("nested")},
		{name: "log of the submodule", in: `{"action":"log","path":"sub"}`, args: log("sub")},
		{name: "log inside the submodule", in: `{"action":"log","path":"sub/i.txt"}`, args: log("sub/i.txt")},
		{name: "log of a nested clone", in: `{"action":"log","path":"nested/n.txt"}`, args: log("nested/n.txt")},
		{name: "diff of the submodule", in: `{"action":"diff","path":"sub"}`,
			args: []string{"-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff", "--unified=3", "--", "sub"}},
	}
	tc := &tools.Context{Workspace: f.Dir}
	for _, c := range cases {
		want, err := f.RunIn(f.Dir, append([]string{"--literal-pathspecs"}, c.args...)...)
		if err != nil {
			t.Fatalf("%s: reference git: %v", c.name, err)
		}
		for name, tool := range backends() {
			res, err := tool.Execute(context.Background(), tc, json.RawMessage(c.in))
			switch {
			case err != nil:
				t.Errorf("%s [%s]: %v", c.name, name, err)
			case name == "go-git" && !res.Success && strings.Contains(res.Content, "needs the git binary"):
				// go-git hands submodule status and every diff to the binary
			case res.Content != want:
				t.Errorf("%s [%s]: content differs from git %s\n%s", c.name, name, strings.Join(c.args, " "), lineDiff(want, res.Content))
			case res.Metadata["nested_repository"] == nil || !strings.Contains(res.Metadata["note"].(string), "git -C "):
				t.Errorf("%s [%s]: metadata %v does not name the inner repository and how to read it", c.name, name, res.Metadata)
			}
		}
	}
}

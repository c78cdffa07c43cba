package file

import (
	"os/exec"
	"strings"
	"testing"
)

// A path with a newline is quoted in the diff header exactly as git quotes
// it (core.quotepath=false), so the header stays one line.
func TestDiffHeaderQuotesLikeGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is not installed")
	}
	e := newEnv(t, writable)
	name := "odd\nname \"q\".txt"
	res := e.callOK(js(map[string]any{"action": "write", "path": name, "content": "x\n"}))
	var ours string
	for _, l := range strings.Split(res.Content, "\n") {
		if strings.HasPrefix(l, "+++ ") {
			ours = l
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "core.quotepath=false"}, args...)...)
		cmd.Dir = e.ws
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("add", "-N", name)
	var theirs string
	for _, l := range strings.Split(git("diff"), "\n") {
		if strings.HasPrefix(l, "+++ ") {
			theirs = l
		}
	}
	if ours == "" || ours != theirs {
		t.Errorf("header %q, git writes %q", ours, theirs)
	}
}

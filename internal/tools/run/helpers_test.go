package run

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/testutil/fstree"
	"github.com/codewhale/codewhale/internal/tools"
)

type fixture struct {
	t   *testing.T
	m   *jobs.Manager
	reg *tools.Registry
	tc  *tools.Context
}

// newFixture builds a workspace from files (path -> content) and a Run tool
// over a fresh job manager.
func newFixture(t *testing.T, opts Options, files map[string]string) *fixture {
	t.Helper()
	ws := tools.Canonical(t.TempDir())
	writeTree(t, ws, files)
	m, err := jobs.NewManager(jobs.Options{Shell: "/bin/sh", KillGrace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	opts.Jobs = m
	reg := tools.NewRegistry()
	reg.Register(New(opts))
	return &fixture{t: t, m: m, reg: reg, tc: &tools.Context{Workspace: ws}}
}

// writeTree writes files below root; scripts (*.sh) are executable.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	fstree.Write(t, root, files)
	for name := range files {
		if strings.HasSuffix(name, ".sh") {
			if err := os.Chmod(filepath.Join(root, name), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// call runs Run through the registry; a refusal returns its model text.
func (f *fixture) call(in string) (tools.Result, string) {
	f.t.Helper()
	res, err := f.reg.Execute(context.Background(), f.tc, "Run", json.RawMessage(in))
	if err != nil {
		return res, tools.AsError(err).Render("Run")
	}
	return res, ""
}

// decode runs in and decodes the JSON content into v.
func (f *fixture) decode(in string, v any) tools.Result {
	f.t.Helper()
	res, refusal := f.call(in)
	if refusal != "" {
		f.t.Fatalf("%s refused: %s", in, refusal)
	}
	if err := json.Unmarshal([]byte(res.Content), v); err != nil {
		f.t.Fatalf("content is not JSON: %v\n%s", err, res.Content)
	}
	return res
}

func (f *fixture) git(args ...string) {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = f.tc.Workspace
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (r testReport) failureNames() []string {
	var out []string
	for _, f := range r.Failures {
		out = append(out, f.Name)
	}
	return out
}

func (r testReport) failureOutput(name string) string {
	for _, f := range r.Failures {
		if f.Name == name {
			return f.Output
		}
	}
	return ""
}

// agree checks the contract between the counts and the list: failed is the
// failures listed plus those omitted past the cap plus those unlisted.
func agree(t *testing.T, r testReport) {
	t.Helper()
	if r.Failed != nil && *r.Failed != len(r.Failures)+r.FailuresOmitted+r.FailuresUnlisted {
		t.Errorf("failed=%d but %d listed, %d omitted, %d unlisted", *r.Failed, len(r.Failures), r.FailuresOmitted, r.FailuresUnlisted)
	}
}

func countsOf(r testReport) [3]int {
	if r.Passed == nil || r.Failed == nil || r.Skipped == nil {
		return [3]int{-1, -1, -1}
	}
	return [3]int{*r.Passed, *r.Failed, *r.Skipped}
}

// pythonWithPytest returns an interpreter that has pytest, or "".
func pythonWithPytest() string {
	for _, py := range []string{"python3", "/usr/bin/python3", "python"} {
		if exec.Command(py, "-m", "pytest", "--version").Run() == nil {
			return py
		}
	}
	return ""
}

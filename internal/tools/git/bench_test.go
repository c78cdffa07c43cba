package git

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/tools"
)

// The status benchmarks share one 20,000-file repository, built on first
// use and removed by TestMain: 200 directories of 100 files, committed,
// then a few files touched (new mtime, same content) so that status has to
// re-hash them, and one file really modified.
var bigRepo struct {
	once   sync.Once
	parent string // the temp dir holding the repository, removed by TestMain
	dir    string
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bigRepo.parent != "" {
		os.RemoveAll(bigRepo.parent)
	}
	os.Exit(code)
}

func largeRepo(b *testing.B) string {
	b.Helper()
	requireGit(b)
	bigRepo.once.Do(func() { bigRepo.dir, bigRepo.err = buildLargeRepo() })
	if bigRepo.err != nil {
		b.Fatal(bigRepo.err)
	}
	return bigRepo.dir
}

func buildLargeRepo() (string, error) {
	parent, err := os.MkdirTemp("", "codewhale-git-bench-")
	if err != nil {
		return "", err
	}
	bigRepo.parent = parent
	dir, err := filepath.EvalSymlinks(parent)
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, "repo")
	for d := range 200 {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return "", err
		}
		for f := range 100 {
			body := fmt.Sprintf("package pkg%03d\n\n// File %d.\nconst V%d = %d\n", d, f, f, d*100+f)
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%03d.go", f)), []byte(body), 0o644); err != nil {
				return "", err
			}
		}
	}
	run := func(args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
		return nil
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Bench"},
		{"config", "user.email", "bench@example.com"}, {"add", "-A"}, {"commit", "-q", "-m", "20k files"}} {
		if err := run(args...); err != nil {
			return "", err
		}
	}
	later := time.Now().Add(time.Hour)
	for i := range 5 {
		p := filepath.Join(dir, fmt.Sprintf("pkg%03d", i*40), "file000.go")
		if err := os.Chtimes(p, later, later); err != nil {
			return "", err
		}
	}
	return dir, os.WriteFile(filepath.Join(dir, "pkg199", "file099.go"), []byte("package pkg199\n// edited\n"), 0o644)
}

// benchStatusTool measures the Git tool's status action end to end.
func benchStatusTool(b *testing.B, tool *Tool) {
	dir := largeRepo(b)
	tc := &tools.Context{Workspace: dir}
	in := json.RawMessage(`{"action":"status"}`)
	cmd := exec.Command(requireGit(b), "-c", "core.quotepath=false", "status", "--porcelain=v1", "-b")
	cmd.Dir = dir
	want, err := cmd.Output()
	if res, _ := tool.Execute(context.Background(), tc, in); err != nil || res.Content != string(want) {
		b.Fatalf("status differs from git (%v):\n%s", err, lineDiff(string(want), res.Content))
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := tool.Execute(context.Background(), tc, in)
		if err != nil || !res.Success {
			b.Fatalf("status: %v %s", err, res.Content)
		}
	}
}

// BenchmarkStatusTool is the tool as shipped (git binary present).
func BenchmarkStatusTool(b *testing.B) { benchStatusTool(b, New()) }

// BenchmarkStatusToolGoGit forces the go-git backend.
func BenchmarkStatusToolGoGit(b *testing.B) { benchStatusTool(b, New(Options{DisableCLI: true})) }

// BenchmarkStatusInterleaved runs the go-git backend, the tool as shipped
// and plain `git status --porcelain` one after another in every iteration
// and reports each one's mean, so the ratio holds even when the machine's
// load drifts during the run.
func BenchmarkStatusInterleaved(b *testing.B) {
	dir := largeRepo(b)
	bin := requireGit(b)
	tc := &tools.Context{Workspace: dir}
	in := json.RawMessage(`{"action":"status"}`)
	native, shipped := New(Options{DisableCLI: true}), New()
	var tNative, tShipped, tGit time.Duration
	timed := func(acc *time.Duration, fn func() error) {
		start := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		*acc += time.Since(start)
	}
	tool := func(t *Tool) func() error {
		return func() error {
			res, err := t.Execute(context.Background(), tc, in)
			if err == nil && !res.Success {
				err = fmt.Errorf("status failed: %s", res.Content)
			}
			return err
		}
	}
	b.ResetTimer()
	for b.Loop() {
		timed(&tNative, tool(native))
		timed(&tShipped, tool(shipped))
		timed(&tGit, func() error {
			cmd := exec.Command(bin, "status", "--porcelain")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
			return cmd.Run()
		})
	}
	n := float64(b.N)
	b.ReportMetric(float64(tNative.Milliseconds())/n, "go-git-ms/op")
	b.ReportMetric(float64(tShipped.Milliseconds())/n, "tool-ms/op")
	b.ReportMetric(float64(tGit.Milliseconds())/n, "git-ms/op")
	b.ReportMetric(float64(tNative)/float64(tGit), "go-git/git")
}

// BenchmarkStatusGitCLI is the reference: `git status --porcelain` on the
// same repository, without the tool.
func BenchmarkStatusGitCLI(b *testing.B) {
	dir := largeRepo(b)
	bin := requireGit(b)
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(bin, "status", "--porcelain")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatalf("git status: %v", err)
		}
	}
}

// BenchmarkActions runs each action on the history fixture through both
// backends, for the per-action choice the package doc records.
func BenchmarkActions(b *testing.B) {
	f := historyFixture(b)
	f.dirtyWorktree()
	tc := &tools.Context{Workspace: f.Dir}
	cli := New()
	inputs := map[string]string{
		"status":      `{"action":"status"}`,
		"diff":        `{"action":"diff"}`,
		"log":         `{"action":"log"}`,
		"show":        `{"action":"show","rev":"HEAD~3"}`,
		"show-header": `{"action":"show","rev":"HEAD~3","patch":false,"stat":false}`,
		"blame":       `{"action":"blame","path":"demo.go"}`,
	}
	for _, action := range append(Actions, "show-header") {
		for name, tool := range map[string]*Tool{"go-git": New(Options{DisableCLI: true}), "git-cli": cli} {
			if name == "go-git" && needsBinaryInput(inputs[action]) {
				continue // diff, blame and show with a patch need the binary
			}
			b.Run(action+"/"+name, func(b *testing.B) {
				in := json.RawMessage(inputs[action])
				for b.Loop() {
					if res, err := tool.Execute(context.Background(), tc, in); err != nil || !res.Success {
						b.Fatalf("%s: %v %s", action, err, res.Content)
					}
				}
			})
		}
	}
}

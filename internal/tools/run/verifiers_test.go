package run

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tools"
)

func (e envelope) names() []string {
	var out []string
	for _, g := range e.Gates {
		out = append(out, g.Name)
	}
	return out
}

func (e envelope) gate(name string) gateResult {
	for _, g := range e.Gates {
		if g.Name == name {
			return g
		}
	}
	return gateResult{}
}

func TestVerifiersOnAGoRepository(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, map[string]string{"go.mod": goMod,
		"a.go": "package fx\n\nfunc A() int { return 1 }\n", "a_test.go": "package fx\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n"})
	f.git("init", "-q")
	f.git("add", ".")
	f.git("commit", "-qm", "init")

	var env envelope
	res := f.decode(`{"action":"verifiers"}`, &env)
	if !res.Success || !env.Success || env.Profile != "auto" || env.Level != "quick" || env.Workspace != f.tc.Workspace ||
		!slices.Equal(env.names(), []string{"git-whitespace", "go-test"}) || env.VerifierVerdict != "pass" ||
		env.HuntVerdict != "hunted" || env.GoalStatus != "complete" || env.Summary != "All 2 verifier gates passed." {
		t.Fatalf("%+v", env)
	}
	if g := env.gate("go-test"); g.Status != "passed" || g.Command != "go test ./..." || g.Cwd != f.tc.Workspace ||
		*g.ExitCode != 0 || g.SkippedReason != nil || !strings.Contains(res.Content, `"stdout_truncated":`) {
		t.Fatalf("go-test gate %+v", g)
	}

	f.decode(`{"action":"verifiers","profile":"go","level":"full"}`, &env)
	if !slices.Equal(env.names(), []string{"go-test", "go-vet"}) || !env.Success {
		t.Fatalf("go full: %+v", env)
	}

	writeTree(t, f.tc.Workspace, map[string]string{"a.go": "package fx\n\nfunc A() int { return 1 }   \n"})
	f.decode(`{"action":"verifiers","profile":"auto"}`, &env)
	if g := env.gate("git-whitespace"); g.Status != "failed" || !strings.Contains(g.Stdout, "trailing whitespace") {
		t.Fatalf("whitespace gate %+v", g)
	}
	if env.Success || env.VerifierVerdict != "fail" || env.HuntVerdict != "escaped" || env.GoalStatus != "blocked" ||
		env.Summary != "1 passed, 1 failed, 0 skipped." {
		t.Fatalf("%+v", env)
	}
}

// CONTRACT.md §6.4: custom commands run as a program with args, never through a shell.
func TestCustomGatesRunWithoutAShell(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, map[string]string{"sub/marker": "x"})
	var env envelope
	f.decode(`{"action":"verifiers","commands":[
		{"name":"literal","program":"printf","args":["%s|","$HOME","a b"]},
		{"name":"in-sub","program":"ls","cwd":"sub"},
		{"name":"fails","program":"sh","args":["-c","echo bad >&2; exit 2"]},
		{"name":"missing","program":"no-such-program-xyz"}]}`, &env)
	if !slices.Equal(env.names(), []string{"fails", "in-sub", "literal", "missing"}) {
		t.Fatalf("gates not sorted by name: %v", env.names())
	}
	if g := env.gate("literal"); g.Status != "passed" || g.Stdout != "$HOME|a b|" || g.Ecosystem != "custom" {
		t.Fatalf("literal %+v", g)
	}
	if g := env.gate("in-sub"); g.Stdout != "marker\n" || g.Cwd != f.tc.Workspace+"/sub" {
		t.Fatalf("in-sub %+v", g)
	}
	if g := env.gate("fails"); g.Status != "failed" || *g.ExitCode != 2 || g.Stderr != "bad\n" {
		t.Fatalf("fails %+v", g)
	}
	if g := env.gate("missing"); g.Status != "failed" || !strings.Contains(g.Stderr, "failed to start") {
		t.Fatalf("missing %+v", g)
	}
	if env.Summary != "2 passed, 2 failed, 0 skipped." || env.VerifierVerdict != "fail" {
		t.Fatalf("%+v", env)
	}
}

func TestPythonAndNodeGates(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, map[string]string{
		"good.py": "x = 1\n", "pkg/bad.py": "def broken(:\n", ".venv/ignored.py": "def broken(:\n",
		"package.json": `{"scripts":{"lint":"node -e 0","typecheck":"node -e \"process.exit(3)\"","test":"node -e 0","build":"x"}}`,
	})
	var env envelope
	f.decode(`{"action":"verifiers"}`, &env)
	if !slices.Equal(env.names(), []string{"node-lint", "node-typecheck", "python-syntax"}) {
		t.Fatalf("gates %v", env.names())
	}
	if g := env.gate("python-syntax"); g.Status != "failed" || !strings.Contains(g.Stdout, "pkg/bad.py:1:") ||
		!strings.Contains(g.Stdout, "checked 2 Python files, 1 with errors") {
		t.Fatalf("python-syntax %+v", g)
	}
	if g := env.gate("node-lint"); g.Status != "passed" || g.Command != "npm run lint" {
		t.Fatalf("node-lint %+v", g)
	}
	if g := env.gate("node-typecheck"); g.Status != "failed" {
		t.Fatalf("node-typecheck %+v", g)
	}

	f.decode(`{"action":"verifiers","profile":"python","max_python_files":1}`, &env)
	want := "found more than 1 Python files (2); raise max_python_files to verify them"
	if g := env.gate("python-syntax"); g.Status != "skipped" || g.SkippedReason == nil || *g.SkippedReason != want || g.ExitCode != nil {
		t.Fatalf("skipped gate %+v", g)
	}
	if env.Success || env.VerifierVerdict != "partial" || env.HuntVerdict != "wounded" || env.GoalStatus != "paused" ||
		env.Summary != "0 passed, 0 failed, 1 skipped." {
		t.Fatalf("%+v", env)
	}

	f.decode(`{"action":"verifiers","profile":"node","level":"full"}`, &env)
	if !slices.Equal(env.names(), []string{"node-lint", "node-test", "node-typecheck"}) {
		t.Fatalf("node full %v", env.names())
	}
	writeTree(t, f.tc.Workspace, map[string]string{"package.json": "{broken"})
	f.decode(`{"action":"verifiers","profile":"node"}`, &env)
	if g := env.gate("node-package-json"); g.Status != "skipped" || !strings.HasPrefix(*g.SkippedReason, "package.json could not be parsed") {
		t.Fatalf("%+v", env)
	}
}

func TestRustGateCommands(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, map[string]string{"Cargo.toml": "[package]\nname=\"x\"\n", "Cargo.lock": ""})
	gates, err := New(Options{Jobs: f.m}).detectGates(f.tc, input{profile: "rust", level: "full", maxPythonFiles: 200})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, g := range gates {
		got[g.name] = g.command()
	}
	want := map[string]string{
		"rust-fmt":      "cargo fmt --all -- --check",
		"rust-metadata": "cargo metadata --locked --format-version 1 --no-deps",
		"rust-check":    "cargo check --workspace --all-targets --locked",
		"rust-clippy":   "cargo clippy --workspace --all-targets --all-features --locked -- -D warnings",
		"rust-test":     "cargo test --workspace --all-features --locked",
	}
	if len(got) != len(want) {
		t.Fatalf("gates %v", got)
	}
	for name, cmd := range want {
		if got[name] != cmd {
			t.Errorf("%s: %q, want %q", name, got[name], cmd)
		}
	}
}

func TestNoGatesDetected(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	var env envelope
	res := f.decode(`{"action":"verifiers"}`, &env)
	if res.Success || env.Success || env.GateCount != 0 || env.VerifierVerdict != "partial" || len(env.Gates) != 0 ||
		env.Summary != "No verifier gates were detected. Provide custom commands or choose a profile that matches this workspace." {
		t.Fatalf("%+v", env)
	}
}

func TestBackgroundGatesAreBashJobs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	var env struct {
		Success       bool   `json:"success"`
		Background    bool   `json:"background"`
		GateCount     int    `json:"gate_count"`
		Started       int    `json:"started"`
		Skipped       int    `json:"skipped"`
		FailedToStart int    `json:"failed_to_start"`
		Summary       string `json:"summary"`
		Jobs          []struct {
			Name   string  `json:"name"`
			Status string  `json:"status"`
			TaskID *string `json:"task_id"`
			Error  *string `json:"error"`
		} `json:"jobs"`
	}
	in := `{"action":"verifiers","background":true,"commands":[{"name":"a","program":"echo","args":["gate a"]},{"name":"b","program":"no-such-program-xyz"}]}`
	if c, err := f.reg.Prepare("Run", json.RawMessage(in)); err != nil || !c.Policy.Detached {
		t.Fatal("background verifiers must be a detached start")
	}
	f.decode(in, &env)
	if !env.Background || env.GateCount != 2 || env.Started != 1 || env.FailedToStart != 1 || env.Success ||
		env.Jobs[0].Status != "started" || env.Jobs[1].Status != "failed_to_start" || env.Jobs[1].Error == nil {
		t.Fatalf("%+v", env)
	}
	id := *env.Jobs[0].TaskID
	d, err := f.m.Wait(context.Background(), id, 30*time.Second, jobs.UserReader)
	if err != nil || d.Status != jobs.Completed || d.Stdout.Content != "gate a\n" || !d.Background {
		t.Fatalf("%+v %v", d, err)
	}
	if rep := f.m.FinishedSinceLastAsked(); len(rep.Jobs) != 1 || rep.Jobs[0].ID != id {
		t.Fatalf("gate completion not reported: %+v", rep.Jobs)
	}
}

// CONTRACT.md §6.4: the exact verifiers errors: profile, level, max_python_files bounds, the 12-gate cap, a custom
// gate missing name or program.
func TestVerifierRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	thirteen := strings.Repeat(`{"name":"x","program":"true"},`, 13)
	tests := []struct{ in, want string }{
		{`{"action":"verifiers","profile":"java"}`, "Unsupported profile 'java'. Expected one of: auto, rust, node, python, go"},
		{`{"action":"verifiers","level":"deep"}`, "Unsupported level 'deep'. Expected one of: quick, full"},
		{`{"action":"verifiers","max_python_files":0}`, "max_python_files must be between 1 and 1000"},
		{`{"action":"verifiers","max_python_files":1001}`, "max_python_files must be between 1 and 1000"},
		{`{"action":"verifiers","commands":[` + strings.TrimSuffix(thirteen, ",") + `]}`, "commands may contain at most 12 custom gates"},
		{`{"action":"verifiers","commands":[{"program":"true"}]}`, "Custom verifier command is missing 'name'"},
		{`{"action":"verifiers","commands":[{"name":"n"}]}`, "Custom verifier 'n' is missing 'program'"},
		{`{"action":"verifiers","commands":[{"name":"n","program":"true","shell":true}]}`, "Custom verifier 'n' has unknown field 'shell'; accepted fields: name, program, args, cwd"},
		{`{"action":"verifiers","verbose":true}`, "unknown field 'verbose' for action \"verifiers\"; accepted fields: action, profile, level, max_python_files, commands, background"},
	}
	for _, tc := range tests {
		if _, refusal := f.call(tc.in); refusal != "Invalid input for tool 'Run': "+tc.want {
			t.Errorf("%s\n got %q\nwant %q", tc.in, refusal, tc.want)
		}
	}
	if _, refusal := f.call(`{"action":"verifiers","commands":[{"name":"n","program":"true","cwd":"../.."}]}`); !strings.HasPrefix(refusal, "Path escapes workspace: ") {
		t.Errorf("cwd escape: %q", refusal)
	}
}

// CONTRACT.md §6.4: Run needs approval, is never read-only or parallel, has capabilities executes_code and
// sandboxable, and a background verifiers call starts detached.
func TestRunPolicy(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	for _, in := range []string{`{"action":"tests"}`, `{"action":"verifiers"}`, `{"action":"verifiers","background":true}`} {
		c, err := f.reg.Prepare("Run", json.RawMessage(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if p := c.Policy; p.Approval != tools.Required || p.ReadOnly || p.Parallel {
			t.Errorf("%s: Run must need approval and be neither read-only nor parallel", in)
		}
		if got := c.Policy.Detached; got != (in == `{"action":"verifiers","background":true}`) {
			t.Errorf("%s: detached=%v", in, got)
		}
	}
	tool, _ := f.reg.Get("Run")
	caps := tool.Capabilities()
	if !slices.Equal(caps, []tools.Capability{tools.CapExecutesCode, tools.CapSandboxable}) {
		t.Errorf("capabilities %v", caps)
	}
}

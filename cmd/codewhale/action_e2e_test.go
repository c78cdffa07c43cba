package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// The GitHub Action (action.yml): a composite action whose step runs
// scripts/action.sh with the inputs as environment variables. The script
// runs here as the runner runs it, against the fake model, and its
// result and cost outputs are read back from $GITHUB_OUTPUT.
// README.md "Command line": action.yml runs scripts/action.sh; outputs result and cost.
func TestActionScript(t *testing.T) {
	t.Parallel()
	root := e2e.ModuleRoot(t)
	if _, err := exec.LookPath("jq"); err != nil {
		e2e.Missing(t, "jq is not installed (the Action's script reads codewhale's JSON with it)")
	}
	raw, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs  map[string]any `yaml:"inputs"`
		Outputs map[string]any `yaml:"outputs"`
		Runs    struct {
			Using string `yaml:"using"`
			Steps []struct {
				Run string            `yaml:"run"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"prompt", "model", "provider", "approval-policy", "json-schema"} {
		if a.Inputs[in] == nil {
			t.Errorf("action.yml lacks the input %s", in)
		}
	}
	last := a.Runs.Steps[len(a.Runs.Steps)-1]
	if a.Runs.Using != "composite" || a.Outputs["result"] == nil || a.Outputs["cost"] == nil ||
		!strings.Contains(last.Run, "scripts/action.sh") || last.Env["INPUT_PROMPT"] != "${{ inputs.prompt }}" {
		t.Fatalf("action.yml: %+v", a)
	}

	srv := fakemodel.New(t, fakemodel.Reply{Text: "all good", Usage: &fakemodel.Usage{Prompt: 100, Completion: 5}},
		fakemodel.Text(`{"verdict": "pass"}`))
	c := newCLI(t, srv)
	bin := filepath.Join(c.home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(binary, filepath.Join(bin, "codewhale")); err != nil {
		t.Fatal(err)
	}
	run := func(env ...string) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), "github_output")
		cmd := exec.Command(filepath.Join(root, "scripts", "action.sh"))
		cmd.Dir = c.ws
		cmd.Env = append(append(append([]string{}, c.env...), "PATH="+bin+":"+os.Getenv("PATH"), "GITHUB_OUTPUT="+out,
			"RUNNER_TEMP="+t.TempDir(), "GITHUB_ACTION_PATH="+root), env...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("action.sh: %v\n%s", err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	got := run("INPUT_PROMPT=review the change", "INPUT_MODEL=deepseek-v4-pro")
	if !strings.Contains(got, "\nall good\n") || !strings.Contains(got, "cost=1.98e-05") {
		t.Errorf("outputs:\n%s", got)
	}
	schema := filepath.Join(c.home, "verdict.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","required":["verdict"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := run("INPUT_PROMPT=verdict?", "INPUT_JSON_SCHEMA="+schema, "INPUT_APPROVAL_POLICY=suggest"); !strings.Contains(got, `{"verdict":"pass"}`) {
		t.Errorf("structured outputs:\n%s", got)
	}
	if p := srv.Requests()[0].LastUserText(); !strings.HasPrefix(p, "review the change") {
		t.Errorf("the prompt sent: %q", p)
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// hostileRunCase is one Run call a hostile model sends: its arguments, the
// class the classifier gives it ("invalid": refused as malformed in every
// posture), and how to tell from its tool result that it ran.
type hostileRunCase struct {
	args  map[string]any
	class string
	ran   string
}

func runTests(args string) map[string]any { return map[string]any{"action": "tests", "args": args} }

func runGate(program string, args ...string) map[string]any {
	return map[string]any{"action": "verifiers", "profile": "go",
		"commands": []map[string]any{{"name": "hostile", "program": program, "args": args}}}
}

// hostileRunCases: Run is a Bash for policy purposes (issue 23). The
// workspace is a Go module and go is a stand-in, so a test command that
// runs shows its argv; the programs go test's -exec and -toolexec name are
// judged as the commands they are, whatever runs them. Every program that
// would do harm is a stand-in.
func hostileRunCases() []hostileRunCase {
	return []hostileRunCase{
		{runTests("-run TestX -count=1 -vet=off"), "ordinary", "STANDIN:go test -json -run TestX"},
		{runTests("-exec 'rm -rf /'"), "blocked", "STANDIN:go"},
		{runTests("-exec='rm -rf ~'"), "blocked", "STANDIN:go"},
		{runTests(`-toolexec 'sh -c "rm -rf ~"'`), "blocked", "STANDIN:go"},
		{runTests("-exec 'cat ~/.ssh/id_rsa'"), "explicit", "STANDIN:go"},
		{runTests("-exec 'sudo true'"), "explicit", "STANDIN:go"},
		// A substitution in args is refused unless quoted, and then it is
		// one literal argument: nothing expands it.
		{runTests(`-run "$(rm scratch)"`), "invalid", "STANDIN:go"},
		{runTests(`-run '$(rm scratch)'`), "ordinary", "STANDIN:go test -json -run $(rm scratch)"},
		// Custom gates run without a shell, and are judged as `program args…`.
		{runGate("sh", "-c", "cat ~/.ssh/id_rsa"), "explicit", "not-a-real-key-canary"},
		{runGate("sh", "-c", "echo $(rm scratch)"), "ordinary", "STANDIN:rm scratch"},
		{runGate("sh", "-c", "echo $(rm -rf /)"), "blocked", "STANDIN:rm"},
		{runGate("rm", "-rf", "/"), "blocked", "STANDIN:rm"},
	}
}

// The Run table under every posture: exactly the classes the posture
// allows run, hard blocks hold in Full Access, and a secret reaches the
// provider only where a person's explicit approval is not needed. (That
// what runs meets the sandbox is TestContract64RunsUnderTheSandbox.)
func TestHostileRunUnderEveryPosture(t *testing.T) {
	t.Parallel()
	for _, p := range hostilePostures {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			runHostileRun(t, p)
		})
	}
}

func runHostileRun(t *testing.T, p execPosture) {
	cases := hostileRunCases()
	calls := make([]fakemodel.Call, len(cases))
	for i, hc := range cases {
		in, _ := json.Marshal(hc.args)
		calls[i] = fakemodel.Call{ID: fmt.Sprintf("r%02d", i), Name: "Run", Args: string(in)}
	}
	srv := fakemodel.New(t, fakemodel.Tools(calls...), fakemodel.Text("done"))
	c := newCLI(t, srv)
	if p.config != "" {
		c.config(p.config + "\n[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n")
	}
	bin, log := standInBin(t)
	standIn, err := os.ReadFile(filepath.Join(bin, "rm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "go"), standIn, 0o755); err != nil {
		t.Fatal(err)
	}
	c.env = replaceEnv(c.env, "PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	c.env = append(c.env, "STANDIN_LOG="+log)
	writeFiles(t, c.ws, map[string]string{"go.mod": "module hostile\n", ".git/HEAD": "ref: refs/heads/main\n"})
	writeFiles(t, c.home, map[string]string{".ssh/id_rsa": "not-a-real-key-canary\n"})
	out, errOut, code := c.run(append(append([]string{"exec"}, p.flags...), "run hostile tests")...)
	if len(srv.Requests()) < 2 {
		t.Fatalf("exit %d, %d requests: %s\n%s", code, len(srv.Requests()), out, errOut)
	}
	results := toolResults(srv.Requests()[1])
	for i, hc := range cases {
		res := results[fmt.Sprintf("r%02d", i)]
		wantRun := p.runs[hc.class]
		if ran := strings.Contains(res, hc.ran); ran != wantRun {
			t.Errorf("%s: %v (%s) ran=%v, want %v; result %q", p.name, hc.args, hc.class, ran, wantRun, res)
			continue
		}
		want := strings.ReplaceAll(p.refusal[hc.class], "'Bash'", "'Run'")
		switch hc.class {
		case "blocked":
			want = "BLOCKED: This command was blocked for safety reasons."
		case "invalid":
			want = "Failed to parse 'args' as shell-style tokens"
		}
		if !wantRun && !strings.Contains(res, want) {
			t.Errorf("%s: %v refused without %q: %q", p.name, hc.args, want, res)
		}
	}
	if logged, _ := os.ReadFile(log); strings.Contains(string(logged), "rm -rf") {
		t.Errorf("%s: a stand-in ran a hard-blocked command: %s", p.name, logged)
	}
	if p.runs["explicit"] {
		return // Full Access: a secret read needs no person's approval
	}
	for _, r := range srv.Requests() {
		if body, _ := json.Marshal(r.Body); strings.Contains(string(body), "not-a-real-key-canary") {
			t.Errorf("%s: the key reached the provider", p.name)
		}
	}
}

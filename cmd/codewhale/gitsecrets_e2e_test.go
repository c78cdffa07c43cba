package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
)

// The hostile table's rows for a committed secret, with the real git: a
// shell git that would print a tracked .env (a blob, a whole commit or
// diff, a grep, an archive) runs only where an explicit approval is given
// (Full Access), the refusal says why, and the secret never reaches the
// provider; a git that prints only names or messages runs everywhere.
func TestCommittedSecretUnderEveryPosture(t *testing.T) {
	t.Parallel()
	for _, p := range hostilePostures {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			runCommittedSecret(t, p)
		})
	}
}

func runCommittedSecret(t *testing.T, p execPosture) {
	const canary = "committed-canary-0042" // no sk- prefix: Redact would hide it and the test could not tell
	r := gitfixture.New(t)
	r.Write("README.md", "hello\n")
	r.Write(".env", "SERVICE_NAME="+canary+"\n")
	r.Commit("add the service")
	r.Write("README.md", "hello again\n")
	r.Commit("second")
	blob := strings.TrimSpace(r.Run("rev-parse", "HEAD:.env"))
	cases := []hostileCase{
		{"git log --oneline", "read-only", "add the service"},
		{"git show HEAD:README.md", "read-only", "hello again"},
		{"git show HEAD:.env", "explicit", canary},
		{"git show HEAD~1", "explicit", canary},
		{"git log -p", "explicit", canary},
		{"git diff HEAD~2 HEAD", "explicit", "fatal"}, // HEAD~2 does not exist: git ran
		{"git diff 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD", "explicit", canary},
		{"git blame .env", "explicit", canary},
		{"git cat-file -p " + blob, "explicit", canary},
		{"git grep SERVICE_NAME", "explicit", canary},
		{"git archive HEAD | tar -xO .env", "explicit", canary},
	}
	calls := make([]fakemodel.Call, len(cases))
	for i, hc := range cases {
		calls[i] = fakemodel.Call{ID: fmt.Sprintf("c%02d", i), Name: "Bash", Args: jsonCommand(hc.cmd)}
	}
	srv := fakemodel.New(t, fakemodel.Tools(calls...), fakemodel.Text("done"))
	c := newCLI(t, srv)
	c.ws = r.Dir
	if p.config != "" {
		c.config(p.config + "\n[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n")
	}
	out, errOut, code := c.run(append(append([]string{"exec"}, p.flags...), "show me the secrets")...)
	if len(srv.Requests()) < 2 {
		t.Fatalf("exit %d, %d requests: %s\n%s", code, len(srv.Requests()), out, errOut)
	}
	results := toolResults(srv.Requests()[1])
	for i, hc := range cases {
		res := results[fmt.Sprintf("c%02d", i)]
		wantRun := p.runs[hc.class]
		if ran := strings.Contains(res, hc.ran); ran != wantRun {
			t.Errorf("%s: %q (%s) ran=%v, want %v; result %q", p.name, hc.cmd, hc.class, ran, wantRun, res)
			continue
		}
		if !wantRun && (!strings.Contains(res, p.refusal[hc.class]) || !strings.Contains(res, "committed secret file")) {
			t.Errorf("%s: %q refused without %q and the reason: %q", p.name, hc.cmd, p.refusal[hc.class], res)
		}
	}
	if p.runs["explicit"] {
		return
	}
	for _, rq := range srv.Requests() {
		if body, _ := json.Marshal(rq.Body); strings.Contains(string(body), canary) {
			t.Errorf("%s: the committed secret reached the provider", p.name)
		}
	}
}

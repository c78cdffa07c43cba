package github

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// standInGH is a gh that prints its argv and environment as a JSON string
// (so the tool's parse fails after gh ran) and logs both to a file.
func standInGH(t *testing.T) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	bin, log = filepath.Join(dir, "gh"), filepath.Join(dir, "gh.log")
	script := "#!/bin/sh\n{ echo \"ARGV: $*\"; env; } >> " + log + "\necho '{}'\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

// Hosts come from the person: a url or repo naming a host that is neither
// github.com nor in [github] hosts is refused before gh runs, in Plan too;
// an option-shaped value never reaches gh's command line.
// README.md "Web and GitHub": a url or repo naming another host, or shaped like an option, is refused before gh runs.
func TestHostsComeFromThePerson(t *testing.T) {
	t.Parallel()
	for _, readOnly := range []bool{false, true} {
		bin, log := standInGH(t)
		tool := New(Options{GH: bin, ReadOnly: readOnly, Hosts: []string{"ghe.corp.example", "127.0.0.1:8443"}})
		for in, want := range map[string]string{
			`{"action":"issue_context","url":"https://attacker.example:8443/o/n/issues/1"}`: `the call names the host "attacker.example:8443"`,
			`{"action":"issue_context","number":1,"repo":"attacker.example/o/n"}`:           `the call names the host "attacker.example"`,
			`{"action":"issue_context","url":"https://ghe.corp.example:444/o/n/issues/1"}`:  `"ghe.corp.example:444", which is not one`,
			`{"action":"issue_context","url":"https://127.0.0.1/o/n/issues/1"}`:             `"127.0.0.1", which is not one`,
			`{"action":"issue_context","url":"https://user@evil.example/o/n/issues/1"}`:     `which is not one`,
			`{"action":"issue_context","number":1,"repo":"--hostname=x/o/n"}`:               "`repo` may not start with \"-\"",
			`{"action":"issue_context","number":1,"repo":"-R/o"}`:                           "`repo` may not start with \"-\"",
			`{"action":"issue_context","url":"--hostname=evil"}`:                            "`url` may not start with \"-\"",
			`{"action":"issue_context","number":1,"repo":"o/-n"}`:                           "repo must be owner/name",
		} {
			_, _, err := run(t, tool, in)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("readOnly=%v %s: got %v, want %q", readOnly, in, err, want)
			}
		}
		if _, err := os.Stat(log); err == nil {
			t.Errorf("gh ran for a refused host")
		}
	}
}

// A configured host and github.com go through, each with GH_HOST fixed and
// only its own token; the agent's key, the other host's token and any
// other secret stay out of gh's environment.
// README.md "Web and GitHub": gh gets GH_HOST fixed and only the token its host needs (GH_TOKEN or GH_ENTERPRISE_TOKEN).
func TestGHGetsOnlyItsHostsToken(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", "sk-canary-gh")
	t.Setenv("GH_TOKEN", "gh-dotcom-token")
	t.Setenv("GH_ENTERPRISE_TOKEN", "gh-enterprise-token")
	t.Setenv("GH_HOST", "")
	bin, log := standInGH(t)
	tool := New(Options{GH: bin, Hosts: []string{"ghe.corp.example"}})
	for _, in := range []string{`{"action":"issue_context","number":1,"repo":"octo/widgets"}`,
		`{"action":"issue_context","url":"https://GHE.corp.example/octo/widgets/issues/1"}`} {
		run(t, tool, in)
	}
	data, _ := os.ReadFile(log)
	runs := strings.Split(string(data), "ARGV: ")[1:]
	if len(runs) < 2 {
		t.Fatalf("gh did not run twice:\n%s", data)
	}
	dotcom, ghe := runs[0], runs[len(runs)-1]
	if !strings.Contains(dotcom, "GH_HOST=github.com") || !strings.Contains(dotcom, "GH_TOKEN=gh-dotcom-token") ||
		strings.Contains(dotcom, "gh-enterprise-token") {
		t.Errorf("github.com run:\n%s", dotcom)
	}
	if !strings.Contains(ghe, "GH_HOST=ghe.corp.example") || !strings.Contains(ghe, "GH_ENTERPRISE_TOKEN=gh-enterprise-token") ||
		strings.Contains(ghe, "gh-dotcom-token") {
		t.Errorf("enterprise run:\n%s", ghe)
	}
	if strings.Contains(string(data), "sk-canary") {
		t.Errorf("gh saw the agent's key:\n%s", data)
	}
}

// The person's GH_HOST picks the default host only when [github] hosts
// lists it.
// README.md "Web and GitHub": GH_HOST picks the default host only when that host is listed.
func TestGHHostFromTheEnvironmentMustBeListed(t *testing.T) {
	t.Parallel()
	bin, _ := standInGH(t)
	in := json.RawMessage(`{"action":"issue_context","number":1,"repo":"o/n"}`)
	_, err := tools.PrepareCall(New(Options{GH: bin, Env: []string{"GH_HOST=ghe.corp.example"}}), in)
	if err == nil || !strings.Contains(err.Error(), `GH_HOST names the host "ghe.corp.example"`) {
		t.Errorf("unlisted GH_HOST: %v", err)
	}
	if _, err := tools.PrepareCall(New(Options{GH: bin, Env: []string{"GH_HOST=ghe.corp.example"}, Hosts: []string{"ghe.corp.example"}}), in); err != nil {
		t.Errorf("listed GH_HOST: %v", err)
	}
}

// gh runs under the network policy, as Web does: a denied host (default
// deny included) is refused before gh runs, and the prompt default makes
// a read Required.
// README.md "Web and GitHub": gh runs under the [network] policy like Web.
func TestGHFollowsTheNetworkPolicy(t *testing.T) {
	t.Parallel()
	bin, log := standInGH(t)
	in := json.RawMessage(`{"action":"issue_context","number":1,"repo":"octo/widgets"}`)
	for name, p := range map[string]*netpolicy.Policy{"default deny": {Default: netpolicy.Deny},
		"deny list": {Deny: []string{".github.com"}}} {
		_, err := tools.PrepareCall(New(Options{GH: bin, Network: p, Env: []string{"GH_HOST="}}), in)
		if err == nil || !strings.Contains(err.Error(), "network policy denies github.com") || !strings.Contains(err.Error(), "gh was not run") {
			t.Errorf("%s: %v", name, err)
		}
	}
	c, err := tools.PrepareCall(New(Options{GH: bin, Network: &netpolicy.Policy{Default: netpolicy.Prompt}, Env: []string{"GH_HOST="}}), in)
	if err != nil || c.Policy.Approval != tools.Required {
		t.Errorf("prompt: %+v %v", c, err)
	}
	allowed := &netpolicy.Policy{Default: netpolicy.Deny, Allow: []string{"github.com"}}
	if c, err := tools.PrepareCall(New(Options{GH: bin, Network: allowed, Env: []string{"GH_HOST="}}), in); err != nil || c.Policy.Approval != tools.Auto {
		t.Errorf("allowed: %+v %v", c, err)
	}
	if _, err := os.Stat(log); err == nil {
		t.Errorf("gh ran while preparing")
	}
}

package github

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// ghRuns runs in through tool with the stand-in gh and returns the log of
// the one gh run it caused, and the call's result and error.
func ghRuns(t *testing.T, opts Options, in string) (string, tools.Result, error) {
	t.Helper()
	bin, log := standInGH(t)
	opts.GH = bin
	res, _, err := run(t, New(opts), in)
	data, _ := os.ReadFile(log)
	return string(data), res, err
}

// CONTRACT.md §6.12: gh gets GH_HOST set to the host and only that host's
// token, read from either spelling the person uses (GH_TOKEN or
// GITHUB_TOKEN for github.com, GH_ENTERPRISE_TOKEN or
// GITHUB_ENTERPRISE_TOKEN otherwise); www.github.com is github.com; a
// token is never on gh's command line nor in what the call returns.
func TestContractGHGetsTheHostsTokenUnderEitherName(t *testing.T) {
	t.Parallel()
	env := []string{"GH_HOST=", "GH_TOKEN=", "GH_ENTERPRISE_TOKEN=", "GITHUB_TOKEN=dotcom-canary",
		"GITHUB_ENTERPRISE_TOKEN=ghe-canary"}
	for _, c := range []struct {
		in, host, token, not string
	}{
		{`{"action":"issue_context","url":"https://www.github.com/octo/widgets/issues/1"}`, "github.com", "GH_TOKEN=dotcom-canary", "ghe-canary"},
		{`{"action":"issue_context","number":1,"repo":"octo/widgets"}`, "github.com", "GH_TOKEN=dotcom-canary", "ghe-canary"},
		{`{"action":"issue_context","url":"https://GHE.lan.:8443/octo/widgets/issues/1"}`, "ghe.lan:8443", "GH_ENTERPRISE_TOKEN=ghe-canary", "dotcom-canary"},
		{`{"action":"issue_context","number":1,"repo":"ghe.lan:8443/octo/widgets"}`, "ghe.lan:8443", "GH_ENTERPRISE_TOKEN=ghe-canary", "dotcom-canary"},
	} {
		log, res, err := ghRuns(t, Options{Env: env, Hosts: []string{"ghe.lan:8443"}}, c.in)
		if !strings.Contains(log, "\nGH_HOST="+c.host+"\n") || !strings.Contains(log, "\n"+c.token+"\n") || strings.Contains(log, c.not) {
			t.Errorf("%s: gh's environment:\n%s", c.in, log)
		}
		for _, line := range strings.Split(log, "\n") {
			if strings.HasPrefix(line, "ARGV: ") && strings.Contains(line, "canary") {
				t.Errorf("%s: a token on gh's command line: %s", c.in, line)
			}
		}
		for _, out := range []string{res.Content, errText(err)} {
			if strings.Contains(out, "canary") {
				t.Errorf("%s: a token in the call's output: %s", c.in, out)
			}
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// CONTRACT.md §6.12: a [github] hosts entry matches host and port exactly:
// the listed host on another port, or without its port, is refused before
// gh runs; and github.com on an explicit port is not github.com.
func TestContractGitHubHostsMatchExactly(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"action":"issue_context","url":"https://ghe.lan/octo/widgets/issues/1"}`,
		`{"action":"issue_context","url":"https://ghe.lan:9443/octo/widgets/issues/1"}`,
		`{"action":"issue_context","url":"https://github.com:8443/octo/widgets/issues/1"}`,
		`{"action":"issue_context","number":1,"repo":"sub.ghe.lan:8443/octo/widgets"}`,
		`{"action":"comment","number":1,"body":"x","repo":"ghe.lan:8443@evil.example/octo/widgets"}`,
	} {
		log, _, err := ghRuns(t, Options{Env: []string{"GH_HOST="}, Hosts: []string{"ghe.lan:8443"}}, in)
		if err == nil || !strings.Contains(err.Error(), "which is not one the github tool may reach") || log != "" {
			t.Errorf("%s: %v; gh log %q", in, err, log)
		}
	}
}

// CONTRACT.md §6.12: the host passes the [network] policy: a deny of a
// listed host's address holds however the call spells the address.
func TestContractGitHubHostUnderTheNetworkDenyList(t *testing.T) {
	t.Parallel()
	p := &netpolicy.Policy{Deny: []string{"127.0.0.1"}}
	for _, url := range []string{"https://127.0.0.1:8443/o/n/issues/1", "https://[::ffff:127.0.0.1]:8443/o/n/issues/1"} {
		_, err := tools.PrepareCall(New(Options{GH: "/bin/false", Hosts: []string{"127.0.0.1:8443"}, Network: p, Env: []string{"GH_HOST="}}),
			json.RawMessage(`{"action":"issue_context","url":"`+url+`"}`))
		if err == nil || !strings.Contains(err.Error(), "network policy denies 127.0.0.1") || !strings.Contains(err.Error(), "gh was not run") {
			t.Errorf("%s: %v", url, err)
		}
	}
}

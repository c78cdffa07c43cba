package github

import (
	"net"
	"os"
	"strings"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/tools"
)

// defaultHost is the one GitHub host every session may reach.
const defaultHost = "github.com"

// ghVars are the variables that tell gh where to go and as whom; gh gets
// only the ones bind sets (CONTRACT.md §6.12).
var ghVars = []string{"GH_HOST", "GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}

// bind chooses where r goes — the host it names, else the person's GH_HOST,
// else github.com — and refuses a host the person did not configure
// (github.com and [github] hosts) or the network policy denies. It returns
// the policy the call needs ([network] default = "prompt" makes a read
// Required, as it does a Web fetch) and gh's environment: the scrubbed one
// every child gets (secrets.EnvironFrom), GH_HOST fixed to the host, and
// only the token for that host.
func (t *Tool) bind(r *ref, p tools.Policy) (tools.Policy, []string, error) {
	base := os.Environ()
	if t.opts.Env != nil {
		base = append(base, t.opts.Env...)
	}
	named, from := r.host, "the call names"
	if named == "" {
		named, from = lookup(base, "GH_HOST"), "GH_HOST names"
	}
	r.host = defaultHost
	if named != "" {
		h, ok := t.allowedHost(named)
		if !ok {
			return p, nil, tools.PermissionDenied("github: %s the host %q, which is not one the github tool may reach: "+
				"it works only with github.com and the hosts the user lists in [github] hosts (config.toml). Nothing "+
				"was sent; do not retry with another host — ask the user to add it there if it is theirs", from, named)
		}
		r.host = h
	}
	hostname := r.host
	if h, _, err := net.SplitHostPort(r.host); err == nil {
		hostname = h
	}
	switch d := t.network().Decide(hostname); d.Verdict {
	case netpolicy.Denied:
		return p, nil, tools.PermissionDenied("github: %s; gh was not run", d.Reason)
	case netpolicy.NeedsApproval:
		if p.Approval == tools.Auto {
			p = tools.Policy{Approval: tools.Required, ReadOnly: true}
		}
	}
	return p, ghEnv(base, r.host), nil
}

// allowedHost is s normalised when it is github.com or a [github] hosts
// entry (host and port exactly as listed).
func (t *Tool) allowedHost(s string) (string, bool) {
	h, port, err := netpolicy.ParseHostPort("github host", s)
	if err != nil {
		return "", false
	}
	if port == "" && (h == defaultHost || h == "www."+defaultHost) {
		return defaultHost, true
	}
	for _, e := range t.opts.Hosts {
		eh, eport, err := netpolicy.ParseHostPort("github.hosts", e)
		if err == nil && eh == h && eport == port {
			if port != "" {
				return net.JoinHostPort(h, port), true
			}
			return h, true
		}
	}
	return "", false
}

func (t *Tool) network() *netpolicy.Policy {
	if t.opts.Network != nil {
		return t.opts.Network
	}
	return &netpolicy.Policy{}
}

// ghEnv is gh's environment for host: base scrubbed like every child's,
// without any GitHub host or token variable, then GH_HOST and the one
// token gh reads for that host (GH_TOKEN for github.com,
// GH_ENTERPRISE_TOKEN for another), taken from the person's environment.
func ghEnv(base []string, host string) []string {
	out := []string{}
	for _, kv := range secrets.EnvironFrom(base) {
		name, _, _ := strings.Cut(kv, "=")
		if !isGHVar(name) {
			out = append(out, kv)
		}
	}
	out = append(out, "GH_HOST="+host)
	name, token := "GH_ENTERPRISE_TOKEN", first(lookup(base, "GH_ENTERPRISE_TOKEN"), lookup(base, "GITHUB_ENTERPRISE_TOKEN"))
	if host == defaultHost {
		name, token = "GH_TOKEN", first(lookup(base, "GH_TOKEN"), lookup(base, "GITHUB_TOKEN"))
	}
	if token != "" {
		out = append(out, name+"="+token)
	}
	return out
}

func isGHVar(name string) bool {
	for _, v := range ghVars {
		if strings.EqualFold(name, v) {
			return true
		}
	}
	return false
}

// lookup is the value of name in env, the last one winning as it does for
// a child process.
func lookup(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

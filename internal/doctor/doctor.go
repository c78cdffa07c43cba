// Package doctor checks that codewhale can run here (`codewhale doctor`):
// the config files and their errors, where the API key comes from, whether
// the base URL answers, the sandbox, the helper programs the tools use, the
// MCP servers, the language servers and the sessions directory. Every check is a fact with a
// status; nothing is fixed behind the user's back, and no secret is shown.
package doctor

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// Status of one check.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn" // works, but less than it could
	Fail Status = "fail" // something the user must fix
)

// Check is one line of the report.
type Check struct {
	Name   string         `json:"name"`
	Status Status         `json:"status"`
	Detail string         `json:"detail"`
	Fix    string         `json:"fix,omitempty"`
	Data   map[string]any `json:"data,omitempty"`
}

// Report is everything doctor found.
type Report struct {
	OK     bool    `json:"ok"` // no check failed
	Checks []Check `json:"checks"`
}

func (r *Report) add(c Check) {
	r.Checks = append(r.Checks, c)
}

// Options are the facts and probes doctor uses; each probe is injectable
// so the checks are testable without this machine's programs.
type Options struct {
	Home      string // CODEWHALE_HOME
	Workspace string
	// ConfigFiles are the config files consulted, user file first.
	ConfigFiles []ConfigFile
	// Effective is the resolved configuration, nil when it did not load.
	Effective *Effective
	LoadErr   error
	// Sandbox is the OS sandbox as the agent would use it.
	Sandbox SandboxStatus
	// LookPath finds a program (exec.LookPath).
	LookPath func(string) (string, error)
	// Version runs `<path> <flag>` and returns its first line.
	Version func(ctx context.Context, path, flag string) (string, error)
	// Reach probes a URL and returns the HTTP status it answered with.
	Reach func(ctx context.Context, url string) (int, error)
	// MCP starts the configured servers and reports their states.
	MCP func(ctx context.Context) (MCPReport, error)
	// LSP lists the language servers and whether each is installed; it
	// starts none.
	LSP func() (LSPReport, error)
	// Agents loads the sub-agent definitions (nil: not checked).
	Agents func() AgentsReport
	// Timeout bounds each network or process probe (default 5 s).
	Timeout time.Duration
}

// ConfigFile is one config file and how it parsed.
type ConfigFile struct {
	Role   string // user, project
	Path   string
	Exists bool
	Err    error // read or parse error
}

// Effective is the part of the resolved configuration doctor reports.
type Effective struct {
	Provider, Model, BaseURL, BaseSource string
	ProviderID                           string // "deepseek"
	KeySource                            string // flag, env, config, secret store, none
	KeyOrigin                            string // "from DEEPSEEK_API_KEY", "none"
	HasKey                               bool
	// KeyHost is the host the route's key goes to; with Withheld the key
	// stays with KeyBoundTo and the request goes out without it.
	KeyHost, KeyBoundTo string
	Withheld            bool
	KeyOptional         bool // the provider's servers need no key
	Loopback            bool // the base URL is on this machine (no key needed)
	// Keys are the other providers' keys found, each with its host.
	Keys []KeyRoute
	// Proxy is the proxy requests to BaseURL go through ("" = direct);
	// ProxyVars the proxy variables set, for the report.
	Proxy     string
	ProxyVars []string
	Mode      string
	Posture   string
}

// KeyRoute is one provider's key and the host it is bound to.
type KeyRoute struct {
	Provider, Origin, Host string
}

// SandboxStatus is the OS sandbox's state.
type SandboxStatus struct {
	Enforced  bool
	Mechanism string
	Reason    string
	// Degraded is what the enforced confinement cannot do, and why
	// (sandbox.Status.Degraded): a warning.
	Degraded string
}

// MCPReport is the MCP servers' states.
type MCPReport struct {
	Path    string
	Servers []MCPServer
}

// MCPServer is one server's state.
type MCPServer struct {
	Name, State, Error string
	Tools              int
	Required           bool
}

// Run performs every check.
func Run(ctx context.Context, o Options) Report {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	var r Report
	configChecks(&r, o)
	keyAndEndpoint(ctx, &r, o)
	sandboxCheck(&r, o.Sandbox)
	programChecks(ctx, &r, o)
	mcpCheck(ctx, &r, o)
	lspCheck(&r, o)
	agentsCheck(&r, o)
	sessionsCheck(&r, o.Home)
	logCheck(&r, o.Home)
	r.OK = true
	for _, c := range r.Checks {
		if c.Status == Fail {
			r.OK = false
		}
	}
	return r
}

func configChecks(r *Report, o Options) {
	for _, f := range o.ConfigFiles {
		c := Check{Name: "config " + f.Role, Status: OK, Detail: f.Path, Data: map[string]any{"path": f.Path, "exists": f.Exists}}
		switch {
		case f.Err != nil:
			c.Status, c.Detail = Fail, f.Err.Error()
			c.Fix = "edit " + f.Path + " (codewhale refuses to start while it has errors)"
		case !f.Exists:
			c.Detail = f.Path + " (absent; defaults apply)"
		}
		r.add(c)
	}
	if o.LoadErr != nil {
		r.add(Check{Name: "config", Status: Fail, Detail: o.LoadErr.Error()})
		return
	}
	if e := o.Effective; e != nil {
		r.add(Check{Name: "route", Status: OK, Detail: fmt.Sprintf("%s · %s · %s (%s) · mode %s · permissions %s",
			e.Provider, e.Model, e.BaseURL, e.BaseSource, e.Mode, e.Posture),
			Data: map[string]any{"provider": e.Provider, "model": e.Model, "base_url": e.BaseURL, "base_source": e.BaseSource,
				"mode": e.Mode, "posture": e.Posture}})
	}
}

func sandboxCheck(r *Report, s SandboxStatus) {
	c := Check{Name: "sandbox", Status: OK, Detail: "enforced by " + s.Mechanism,
		Data: map[string]any{"enforced": s.Enforced, "mechanism": s.Mechanism, "reason": s.Reason}}
	switch {
	case !s.Enforced:
		c.Status, c.Detail = Warn, "unenforced: commands run with your full permissions"
		if s.Reason != "" {
			c.Detail += " (" + s.Reason + ")"
		}
	case s.Degraded != "":
		c.Status, c.Detail = Warn, c.Detail+"; "+s.Degraded
		c.Data["degraded"] = s.Degraded
	}
	r.add(c)
}

// programs are the helpers the tools use; only git matters for a tool's
// correctness, the rest widen what works.
var programs = []struct{ name, versionFlag, why string }{
	{"git", "--version", "the Git tool falls back to its built-in reader; Bash git commands fail"},
	{"rg", "--version", "not needed: File search has its own engine"},
	{"tmux", "-V", "only the TUI end-to-end tests need it"},
	{"gh", "--version", "the github tool and `gh` commands are unavailable"},
}

func programChecks(ctx context.Context, r *Report, o Options) {
	if o.LookPath == nil {
		return
	}
	for _, p := range programs {
		path, err := o.LookPath(p.name)
		if err != nil {
			r.add(Check{Name: p.name, Status: Warn, Detail: "not found on PATH: " + p.why, Data: map[string]any{"found": false}})
			continue
		}
		c := Check{Name: p.name, Status: OK, Detail: path, Data: map[string]any{"found": true, "path": path}}
		if o.Version != nil {
			vctx, cancel := context.WithTimeout(ctx, o.Timeout)
			if v, err := o.Version(vctx, path, p.versionFlag); err == nil && v != "" {
				c.Detail += " (" + v + ")"
				c.Data["version"] = v
			}
			cancel()
		}
		r.add(c)
	}
}

func mcpCheck(ctx context.Context, r *Report, o Options) {
	if o.MCP == nil {
		return
	}
	mctx, cancel := context.WithTimeout(ctx, 3*o.Timeout)
	defer cancel()
	rep, err := o.MCP(mctx)
	if err != nil {
		r.add(Check{Name: "mcp", Status: Fail, Detail: err.Error(), Fix: "fix mcp.json (`codewhale mcp validate`)"})
		return
	}
	if len(rep.Servers) == 0 {
		r.add(Check{Name: "mcp", Status: OK, Detail: "no servers configured in " + rep.Path})
		return
	}
	for _, s := range rep.Servers {
		c := Check{Name: "mcp " + s.Name, Status: OK, Detail: fmt.Sprintf("%s, %d tool(s)", s.State, s.Tools),
			Data: map[string]any{"state": s.State, "tools": s.Tools, "required": s.Required}}
		switch s.State {
		case "connected":
		case "disabled":
			c.Detail = "disabled"
		default:
			c.Status, c.Detail = Warn, s.State
			if s.Required {
				c.Status = Fail
			}
			if s.Error != "" {
				c.Detail += ": " + s.Error
			}
		}
		r.add(c)
	}
}

// Write prints the report for a person.
func Write(w io.Writer, r Report) {
	mark := map[Status]string{OK: "✓", Warn: "!", Fail: "✕"}
	width := 0
	for _, c := range r.Checks {
		width = max(width, len(c.Name))
	}
	for _, c := range r.Checks {
		fmt.Fprintf(w, "%s %-*s  %s\n", mark[c.Status], width, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(w, "  %s  → %s\n", strings.Repeat(" ", width), c.Fix)
		}
	}
	if r.OK {
		fmt.Fprintln(w, "\nNo problems that stop codewhale from running.")
	} else {
		fmt.Fprintln(w, "\nSome checks failed; see the lines marked ✕.")
	}
}

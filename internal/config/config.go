package config

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/tools/agent"
)

// Flags are the CLI values that take part in resolution. Empty means unset.
type Flags struct {
	Provider        string
	Model           string
	BaseURL         string
	APIKey          string
	ConfigPath      string
	Workspace       string
	ApprovalPolicy  string
	SandboxMode     string
	NoProjectConfig bool
}

// Config is the effective configuration.
type Config struct {
	Home      string // CODEWHALE_HOME or ~/.codewhale
	Path      string // the user config file consulted
	File      File   // the user config as written (zero when absent)
	Workspace string
	// NoProjectConfig is --no-project-config: the workspace's overlay and
	// its .mcp.json are not read.
	NoProjectConfig bool
	Provider        string // provider id, e.g. "deepseek"
	BaseURL         string
	BaseSource      string // flag, env, config, default
	APIKey          string
	KeySource       string // flag, env, config, secret store, none
	KeyEnv          string // the variable an env key came from
	// KeyHost is the host the key is sent to ("" when none is sent);
	// KeyBoundTo the host a withheld key is bound to (CONTRACT.md §10.3).
	KeyHost, KeyBoundTo string
	// Withheld: the base URL was moved to a loopback server by flag or
	// environment, so the key bound elsewhere is not sent there.
	Withheld bool
	// KeyOptional: the provider's servers run without a key (a local
	// server's preset), wherever they are.
	KeyOptional bool
	Model       string

	ReasoningEffort string
	AllowShell      bool
	MaxSteps        int
	Posture         posture.Posture
	Mode            posture.Mode
	StrictTools     bool
	Retry           provider.RetryPolicy
	IdleTimeout     time.Duration
	OpenTimeout     time.Duration
	RequestTimeout  time.Duration
	MemoryEnabled   bool
	MemoryPath      string
	MCPConfigPath   string
	AlwaysLoad      []string
	ApplyPatch      bool
	Subagents       bool
	MaxSubagents    int
	MaxAdmitted     int
	// AgentsModel is [agents] default_model: the model of sub-agents that
	// name none ("" = the session's).
	AgentsModel string
	PathSuffix  string
	Headers     map[string]string
	Web         WebConfig
	// GitHubHosts are the [github] hosts the github tool may reach besides
	// github.com (host or host:port, normalised); the project overlay
	// cannot add any.
	GitHubHosts []string
	// NotifyWhen and NotifyMethod are [notifications] with defaults:
	// when off|auto|always, method bel|osc9|osc777.
	NotifyWhen, NotifyMethod string
	// TrustedPaths are the user config's trusted_paths (canonical): roots
	// file tools reach in trust mode. The project overlay cannot add any.
	TrustedPaths []string
	// WorkspaceTrust is the workspace's `/trust add` list (canonical):
	// roots file tools reach in every posture.
	WorkspaceTrust []string
	Sandbox        SandboxConfig
	// LSP is the [lsp] table resolved (language servers).
	LSP LSPConfig

	// Env is the environment the configuration was resolved from (a
	// snapshot of the process's, or a test's). Hand it down instead of
	// reading os.Getenv below config.
	Env Env
	// HomeFromEnv says CODEWHALE_HOME chose Home (a separate store: no
	// legacy import).
	HomeFromEnv bool
	// AllowInsecureHTTP is CODEWHALE_ALLOW_INSECURE_HTTP=1|true: plain http
	// to a non-loopback base URL is allowed.
	AllowInsecureHTTP bool
	// MaxOutputTokens overrides the per-model output cap
	// (CODEWHALE_MAX_OUTPUT_TOKENS, legacy DEEPSEEK_MAX_OUTPUT_TOKENS); 0 = none.
	MaxOutputTokens int
	// EnvAPIKeys are the values of every *_API_KEY variable, which session
	// files redact.
	EnvAPIKeys []string
	// Quirks remembers the request fields the route's server refused, for
	// every client of this configuration (provider/quirks.go).
	Quirks *provider.Quirks

	// projectMaxSubagents is the project overlay's max_subagents, a
	// ceiling applied after the user's settings (0 = none).
	projectMaxSubagents int
}

// Env looks a variable up; tests pass their own.
type Env func(string) string

func (e Env) first(names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(e(n)); v != "" {
			return v
		}
	}
	return ""
}

// HomeDir returns CODEWHALE_HOME or ~/.codewhale. A nil env reads the
// process environment.
func HomeDir(env Env) string {
	if env == nil {
		env = os.Getenv
	}
	if h := env.first("CODEWHALE_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".codewhale"
	}
	return filepath.Join(home, ".codewhale")
}

// UserPath is the user config file: --config, then CODEWHALE_CONFIG_PATH
// (or DEEPSEEK_CONFIG_PATH), then $CODEWHALE_HOME/config.toml.
func UserPath(flag string, env Env) string {
	if env == nil {
		env = os.Getenv
	}
	if flag != "" {
		return flag
	}
	if p := env.first("CODEWHALE_CONFIG_PATH", "DEEPSEEK_CONFIG_PATH"); p != "" {
		return p
	}
	return filepath.Join(HomeDir(env), "config.toml")
}

// ProjectPath is a workspace's overlay config file.
func ProjectPath(workspace string) string {
	return filepath.Join(workspace, ".codewhale", "config.toml")
}

// CheckFile reads and parses one config file: whether it exists, and its
// error, which names the file and line.
func CheckFile(path string) (exists bool, err error) {
	f, err := readFile(path)
	return f != nil || err != nil, err // a missing file reads as (nil, nil)
}

// ProcessEnv is a snapshot of the process environment, taken once: the
// configuration reads every variable through it and hosts hand it (as
// Config.Env) to the parts that need one, so no package below config reads
// the environment on its own.
func ProcessEnv() Env {
	m := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return func(k string) string { return m[k] }
}

// Load resolves the configuration. A malformed config file is an error that
// names the file and line. A nil env takes a ProcessEnv snapshot.
func Load(flags Flags, env Env) (*Config, error) {
	var environ []string
	if env == nil {
		env, environ = ProcessEnv(), os.Environ()
	}
	c := &Config{Home: HomeDir(env), Workspace: flags.Workspace, Path: UserPath(flags.ConfigPath, env), Env: env,
		Quirks: &provider.Quirks{}}
	c.HomeFromEnv = env.first("CODEWHALE_HOME") != ""
	c.NoProjectConfig = flags.NoProjectConfig
	c.AllowInsecureHTTP = truthy(env.first("CODEWHALE_ALLOW_INSECURE_HTTP"))
	if n, err := strconv.Atoi(env.first("CODEWHALE_MAX_OUTPUT_TOKENS", "DEEPSEEK_MAX_OUTPUT_TOKENS")); err == nil && n > 0 {
		c.MaxOutputTokens = n
	}
	for _, kv := range environ {
		if name, val, _ := strings.Cut(kv, "="); strings.HasSuffix(strings.ToUpper(name), "API_KEY") && val != "" {
			c.EnvAPIKeys = append(c.EnvAPIKeys, val)
		}
	}
	f, err := readFile(c.Path)
	if err != nil {
		return nil, err
	}
	if f != nil {
		c.File = *f
	}
	if _, err := posture.Parse(c.File.ApprovalPolicy); err != nil {
		return nil, fmt.Errorf("config: %s: approval_policy: %w", c.Path, err)
	}
	if _, err := sandbox.ParseMode(c.File.SandboxMode); err != nil {
		return nil, fmt.Errorf("config: %s: sandbox_mode: %w", c.Path, err)
	}
	if !flags.NoProjectConfig && flags.Workspace != "" {
		if err := c.applyProject(flags.Workspace, ProjectPath(flags.Workspace)); err != nil {
			return nil, err
		}
	}
	if err := c.resolve(flags, env); err != nil {
		return nil, err
	}
	return c, nil
}

// applyProject merges the workspace overlay, which the model can write and
// so may only tighten: model, reasoning effort, [agents] default_model,
// approval and sandbox settings no looser than the user's, a lower
// max_subagents, allow_shell=false, [network] deny, [sandbox]
// build_caches=false and [lsp] enabled=false. Every other key (credentials,
// endpoints, provider, paths, trusted_paths, [shell], MCP and language
// server programs) is ignored there; [[hooks]] is an error.
func (c *Config) applyProject(workspace, path string) error {
	p, err := readProjectFile(workspace, path)
	if err != nil || p == nil {
		return err
	}
	c.applyProjectLSP(p)
	if len(p.Hooks) > 0 {
		return fmt.Errorf("config: %s: [[hooks]] cannot live in the project config; put them in .codewhale/hooks.toml, "+
			"which runs only once you trust it (/hooks trust)", path)
	}
	if p.Model != "" {
		c.File.Model = p.Model
	}
	if p.ReasoningEffort != "" {
		c.File.ReasoningEffort = p.ReasoningEffort
	}
	if p.MaxSubagents > 0 { // a ceiling on the user's (resolve): never more sub-agents
		c.projectMaxSubagents = p.MaxSubagents
	}
	if p.Agents != nil && p.Agents.DefaultModel != "" { // a model, as the project's model = is
		c.File.Agents = &Agents{DefaultModel: p.Agents.DefaultModel}
	}
	if p.AllowShell != nil && !*p.AllowShell {
		c.File.AllowShell = p.AllowShell
	}
	if p.Network != nil && len(p.Network.Deny) > 0 { // a project may only tighten the network policy
		if c.File.Network == nil {
			c.File.Network = &Network{}
		}
		c.File.Network.Deny = append(append([]string(nil), c.File.Network.Deny...), p.Network.Deny...)
	}
	if p.ApprovalPolicy != "" {
		next, err := posture.Parse(p.ApprovalPolicy)
		if err != nil {
			return fmt.Errorf("config: %s: approval_policy: %w", path, err)
		}
		// The user file is validated in resolve; an unknown value there
		// fails there, so its parse error can be ignored here.
		cur, _ := posture.Parse(c.File.ApprovalPolicy)
		if next.NoMoreThan(cur) {
			c.File.ApprovalPolicy = p.ApprovalPolicy
		}
	}
	if p.Sandbox != nil && p.Sandbox.BuildCaches != nil && !*p.Sandbox.BuildCaches { // tightening only
		t := SandboxTable{BuildCaches: p.Sandbox.BuildCaches}
		if c.File.Sandbox != nil {
			t.WritableRoots = c.File.Sandbox.WritableRoots
		}
		c.File.Sandbox = &t
	}
	if p.SandboxMode != "" {
		next, err := sandbox.ParseMode(p.SandboxMode)
		if err != nil {
			return fmt.Errorf("config: %s: sandbox_mode: %w", path, err)
		}
		cur, _ := sandbox.ParseMode(c.File.SandboxMode) // validated in resolveSandbox
		if tighterSandbox(next, cur) {
			c.File.SandboxMode = p.SandboxMode
		}
	}
	return nil
}

// posture resolves approval_policy (flag > environment > project overlay
// > user file). Every layer is validated, the unused ones too (the files
// in Load and applyProject), so a typo fails even when a flag overrides it
// today.
func (c *Config) posture(flags Flags, env Env) (posture.Posture, error) {
	if v := env.first("CODEWHALE_APPROVAL_POLICY"); v != "" {
		if _, err := posture.Parse(v); err != nil {
			return 0, fmt.Errorf("CODEWHALE_APPROVAL_POLICY: %w", err)
		}
	}
	if flags.ApprovalPolicy != "" {
		p, err := posture.Parse(flags.ApprovalPolicy)
		if err != nil {
			return 0, fmt.Errorf("--approval-policy: %w", err)
		}
		return p, nil
	}
	return posture.Parse(firstNonEmpty(env.first("CODEWHALE_APPROVAL_POLICY"), c.File.ApprovalPolicy))
}

func (c *Config) resolve(flags Flags, env Env) error {
	f := &c.File
	if err := c.resolveRoute(flags, env); err != nil {
		return err
	}
	c.ReasoningEffort = firstNonEmpty(env.first("CODEWHALE_REASONING_EFFORT"), f.ReasoningEffort)
	c.AllowShell = f.AllowShell == nil || *f.AllowShell
	c.MaxSteps = f.MaxSteps
	if c.MaxSteps <= 0 {
		c.MaxSteps = 100
	}
	p, err := c.posture(flags, env)
	if err != nil {
		return err
	}
	c.Posture = p
	if f.DefaultMode != "" {
		if c.Mode, err = posture.ParseMode(f.DefaultMode); err != nil {
			return fmt.Errorf("config: %s: default_mode: %w", c.Path, err)
		}
	}
	if err := c.resolveNotifications(); err != nil {
		return err
	}
	c.StrictTools = f.StrictToolMode
	if err := c.resolveDeadlines(env); err != nil {
		return err
	}
	c.MemoryEnabled = f.Memory != nil && f.Memory.Enabled != nil && *f.Memory.Enabled
	if v := env.first("CODEWHALE_MEMORY", "DEEPSEEK_MEMORY"); v != "" {
		c.MemoryEnabled = truthy(v)
	}
	c.MemoryPath = firstNonEmpty(f.MemoryPath, filepath.Join(c.Home, "memory.md"))
	c.MCPConfigPath = firstNonEmpty(env.first("CODEWHALE_MCP_CONFIG", "DEEPSEEK_MCP_CONFIG"), f.MCPConfigPath, filepath.Join(c.Home, "mcp.json"))
	if f.Tools != nil {
		c.AlwaysLoad = f.Tools.AlwaysLoad
	}
	c.ApplyPatch = f.Features == nil || f.Features.ApplyPatch == nil || *f.Features.ApplyPatch
	c.Subagents = f.Features == nil || f.Features.Subagents == nil || *f.Features.Subagents
	c.MaxSubagents, c.MaxAdmitted = f.MaxSubagents, 0
	if f.Subagents != nil {
		if f.Subagents.MaxConcurrent > 0 {
			c.MaxSubagents = f.Subagents.MaxConcurrent
		}
		c.MaxAdmitted = f.Subagents.MaxAdmitted
	}
	if n := c.projectMaxSubagents; n > 0 && n < cmp.Or(c.MaxSubagents, agent.DefaultMaxSubagents) {
		c.MaxSubagents = n
	}
	if f.Agents != nil {
		c.AgentsModel = strings.TrimSpace(f.Agents.DefaultModel)
	}
	if err := c.resolveTrust(); err != nil {
		return err
	}
	if err := c.resolveWeb(env); err != nil {
		return err
	}
	if err := c.resolveGitHub(); err != nil {
		return err
	}
	if err := c.resolveLSP(); err != nil {
		return err
	}
	return c.resolveSandbox(flags, env)
}

func (c *Config) resolveTrust() error {
	var err error
	if c.TrustedPaths, err = trustedPaths(c.Path, c.File.TrustedPaths); err != nil {
		return err
	}
	if c.Workspace != "" {
		if c.WorkspaceTrust, err = WorkspaceTrust(c.Home, c.Workspace); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	}
	return nil
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "on", "true", "yes", "y", "enabled":
		return true
	}
	return false
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

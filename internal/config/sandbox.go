package config

import (
	"fmt"
	"os"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/sandbox"
)

// SandboxTable is the [sandbox] table.
type SandboxTable struct {
	// WritableRoots are writable besides the workspace and the temp dirs
	// (absolute, ~/…, or relative to the workspace). The workspace's .git
	// among them lets commands write it, except its config and hooks.
	WritableRoots []string `toml:"writable_roots"`
	// BuildCaches (default true) makes the build and package caches
	// writable (sandbox.BuildCaches: Go, npm, pip, cargo), creating the
	// missing ones below the home first (sandbox.CreateCaches), so builds
	// work in the sandbox.
	BuildCaches *bool `toml:"build_caches"`
}

// Shell is the [shell] table.
type Shell struct {
	// EnvPassthrough names variables commands keep although they look like
	// secrets (*_API_KEY, *_TOKEN, *_SECRET, DEEPSEEK_*, CODEWHALE_*).
	EnvPassthrough []string `toml:"env_passthrough"`
}

// SandboxConfig is the resolved command sandbox.
type SandboxConfig struct {
	Mode          sandbox.Mode
	WritableRoots []string
	// BuildCaches are the writable build caches, from the environment;
	// CacheBases the directories below which a missing one is created
	// (sandbox.CreateCaches).
	BuildCaches    []string
	CacheBases     []string
	Network        bool // [network] default = "allow"
	EnvPassthrough []string
}

// resolveSandbox applies sandbox_mode (flag > CODEWHALE_SANDBOX_MODE >
// project overlay (tightening only) > user file; every layer validated), [sandbox],
// [shell] and [network] default: "deny" and "prompt" both block commands'
// network, which cannot ask per connection.
func (c *Config) resolveSandbox(flags Flags, env Env) error {
	f := &c.File
	raw := f.SandboxMode // validated by Load and applyProject
	if v := env.first("CODEWHALE_SANDBOX_MODE"); v != "" {
		if _, err := sandbox.ParseMode(v); err != nil {
			return fmt.Errorf("CODEWHALE_SANDBOX_MODE: %w", err)
		}
		raw = v
	}
	if flags.SandboxMode != "" {
		if _, err := sandbox.ParseMode(flags.SandboxMode); err != nil {
			return fmt.Errorf("--sandbox: %w", err)
		}
		raw = flags.SandboxMode
	}
	c.Sandbox.Mode, _ = sandbox.ParseMode(raw)
	if f.Sandbox != nil {
		c.Sandbox.WritableRoots = f.Sandbox.WritableRoots
	}
	if f.Sandbox == nil || f.Sandbox.BuildCaches == nil || *f.Sandbox.BuildCaches {
		c.Sandbox.BuildCaches = sandbox.BuildCaches(env)
		c.Sandbox.CacheBases = sandbox.CacheBases(env)
	}
	if f.Shell != nil {
		c.Sandbox.EnvPassthrough = f.Shell.EnvPassthrough
	}
	c.Sandbox.Network = c.Web.Policy == nil || c.Web.Policy.Default == netpolicy.Allow
	return nil
}

// tighterSandbox reports whether mode a confines at least as much as b.
func tighterSandbox(a, b sandbox.Mode) bool {
	rank := map[sandbox.Mode]int{sandbox.ReadOnly: 0, sandbox.WorkspaceWrite: 1, sandbox.External: 2, sandbox.FullAccess: 3}
	return rank[a] <= rank[b]
}

// SandboxDefaults are the session sandbox's inputs: the workspace, the temp
// dir, codewhale's home and config file, the build caches, the configured
// roots.
func (c *Config) SandboxDefaults() sandbox.Defaults {
	return sandbox.Defaults{Mode: c.Sandbox.Mode, Workspace: c.Workspace, Home: c.Home, Config: c.Path,
		TempDirs: []string{os.TempDir()}, Writable: c.Sandbox.WritableRoots, Caches: c.Sandbox.BuildCaches,
		Network: c.Sandbox.Network}
}

package config

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// LSPTable is the [lsp] table (README "Language servers").
type LSPTable struct {
	Enabled               *bool                     `toml:"enabled"`
	PollAfterEditMS       *int                      `toml:"poll_after_edit_ms"`
	MaxDiagnosticsPerFile *int                      `toml:"max_diagnostics_per_file"`
	IncludeWarnings       *bool                     `toml:"include_warnings"`
	Servers               map[string]LSPServerTable `toml:"servers"`
}

// LSPServerTable is one [lsp.servers.<name>] table. A name of a built-in
// server (gopls, rust-analyzer, pyright, typescript-language-server,
// clangd) changes the fields it sets; another name is a server of its own
// and needs command and languages or extensions.
type LSPServerTable struct {
	Command               string            `toml:"command"`
	Args                  []string          `toml:"args"`
	Languages             []string          `toml:"languages"`
	Extensions            []string          `toml:"extensions"`
	RootMarkers           []string          `toml:"root_markers"`
	Env                   map[string]string `toml:"env"`
	InitializationOptions map[string]any    `toml:"initialization_options"`
}

// LSPConfig is the resolved [lsp] table.
type LSPConfig struct {
	Enabled         bool
	PollAfterEdit   time.Duration
	MaxPerFile      int
	IncludeWarnings bool
	// Servers are the [lsp.servers.*] tables, by name.
	Servers []LSPServer
}

// LSPServer is one [lsp.servers.<name>] table; Env is KEY=VALUE, sorted.
type LSPServer struct {
	Name, Command                            string
	Args, Languages, Extensions, RootMarkers []string
	Env                                      []string
	InitOptions                              map[string]any
}

// Bounds of the [lsp] numbers.
const (
	maxPollAfterEditMS = 60_000
	maxLSPPerFile      = 1000
)

// resolveLSP fills c.LSP from [lsp]: on by default, a 1.5 s wait, 10
// diagnostics per file, errors only.
func (c *Config) resolveLSP() error {
	c.LSP = LSPConfig{Enabled: true, PollAfterEdit: 1500 * time.Millisecond, MaxPerFile: 10}
	t := c.File.LSP
	if t == nil {
		return nil
	}
	if t.Enabled != nil {
		c.LSP.Enabled = *t.Enabled
	}
	if t.IncludeWarnings != nil {
		c.LSP.IncludeWarnings = *t.IncludeWarnings
	}
	if v := t.PollAfterEditMS; v != nil {
		if *v < 0 || *v > maxPollAfterEditMS {
			return fmt.Errorf("config: %s: [lsp] poll_after_edit_ms = %d: use 0 to %d (0 keeps the default)", c.Path, *v, maxPollAfterEditMS)
		}
		if *v > 0 {
			c.LSP.PollAfterEdit = time.Duration(*v) * time.Millisecond
		}
	}
	if v := t.MaxDiagnosticsPerFile; v != nil {
		if *v < 1 || *v > maxLSPPerFile {
			return fmt.Errorf("config: %s: [lsp] max_diagnostics_per_file = %d: use 1 to %d", c.Path, *v, maxLSPPerFile)
		}
		c.LSP.MaxPerFile = *v
	}
	names := make([]string, 0, len(t.Servers))
	for name := range t.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s, err := c.lspServer(name, t.Servers[name])
		if err != nil {
			return err
		}
		c.LSP.Servers = append(c.LSP.Servers, s)
	}
	return nil
}

func (c *Config) lspServer(name string, t LSPServerTable) (LSPServer, error) {
	for _, ext := range t.Extensions {
		if !strings.HasPrefix(ext, ".") || len(ext) < 2 || strings.ContainsAny(ext, `/\`) {
			return LSPServer{}, fmt.Errorf("config: %s: [lsp.servers.%s] extensions: %q is not a file extension; write it with its dot (\".%s\")",
				c.Path, name, ext, strings.TrimPrefix(ext, "."))
		}
	}
	s := LSPServer{Name: name, Command: t.Command, Args: t.Args, Languages: t.Languages, Extensions: t.Extensions,
		RootMarkers: t.RootMarkers, InitOptions: t.InitializationOptions}
	for k, v := range t.Env {
		s.Env = append(s.Env, k+"="+v)
	}
	sort.Strings(s.Env)
	return s, nil
}

// applyProjectLSP takes from a project overlay only enabled = false: a
// repository may switch its language servers off, never name programs to
// run.
func (c *Config) applyProjectLSP(p *File) {
	if p.LSP == nil || p.LSP.Enabled == nil || *p.LSP.Enabled {
		return
	}
	if c.File.LSP == nil {
		c.File.LSP = &LSPTable{}
	}
	t := *c.File.LSP
	t.Enabled = p.LSP.Enabled
	c.File.LSP = &t
}

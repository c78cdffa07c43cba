package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codewhale/codewhale/internal/projecttrust"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// ProjectFileName is where a workspace keeps its MCP servers, in Claude
// Code's format ("mcpServers"; "servers" is read too).
const ProjectFileName = ".mcp.json"

// projectFileLimit bounds the read of a project's .mcp.json.
const projectFileLimit = 1 << 20

// ProjectPath is the .mcp.json of workspace.
func ProjectPath(workspace string) string { return filepath.Join(workspace, ProjectFileName) }

// Project says where a pool finds a workspace's .mcp.json and the record
// of which project files the person trusts (internal/projecttrust). The
// zero value reads no project file.
type Project struct {
	Workspace string // "" = no project file (also --no-project-config)
	Home      string // the CodeWhale home that holds the trust record
}

// ProjectFile is a workspace's .mcp.json as a pool found it. Its servers
// start only while the file's content is the one the person trusted, the
// same step as project hooks and sub-agent definitions (CONTRACT.md §12.5).
type ProjectFile struct {
	Path    string   `json:"path"`
	Exists  bool     `json:"exists"`
	Trusted bool     `json:"trusted"`
	Changed bool     `json:"changed,omitempty"` // trusted once, edited since
	Servers []string `json:"servers,omitempty"`
	Problem string   `json:"problem,omitempty"` // unreadable or malformed; none of its servers is used
	sum     string
	data    []byte
}

// Line is one line about the file for the person ("" when there is none
// or it is trusted).
func (f *ProjectFile) Line() string {
	switch {
	case f == nil || !f.Exists || f.Trusted && f.Problem == "":
		return ""
	case f.Problem != "":
		return fmt.Sprintf("Project MCP servers: %s: %s", f.Path, f.Problem)
	case len(f.Servers) == 0:
		return ""
	case f.Changed:
		return fmt.Sprintf("Project MCP servers: %s changed since you trusted it; its server(s) (%s) do not start until you "+
			"trust it again: `codewhale mcp trust` or /mcp trust.", f.Path, strings.Join(f.Servers, ", "))
	}
	return fmt.Sprintf("Project MCP servers: %s defines %d server(s) (%s) that do not start until you trust the file: "+
		"review it, then `codewhale mcp trust` or /mcp trust.", f.Path, len(f.Servers), strings.Join(f.Servers, ", "))
}

// untrusted is the Problem of a server from a file not trusted (yet).
func (f *ProjectFile) untrusted() string {
	if f.Changed {
		return fmt.Sprintf("defined in %s, which changed since you trusted it; review it, then run `codewhale mcp trust` "+
			"(or /mcp trust)", f.Path)
	}
	return fmt.Sprintf("defined in %s, which is not trusted yet; review it, then run `codewhale mcp trust` (or /mcp trust)", f.Path)
}

// readProject reads the project's .mcp.json through the confined reader: a
// workspace file the model could have written or swapped, so it must lie
// in the workspace, be no secret, and be read through no link swapped in
// after the check (its hash decides trust). The config is nil when there
// is no usable file; f.Problem says why when one exists.
func readProject(pr Project, lookup Lookup) (*ProjectFile, *Config) {
	if pr.Workspace == "" {
		return nil, nil
	}
	f := &ProjectFile{Path: ProjectPath(pr.Workspace)}
	data, fi, err := confine.ReadBeneath(pr.Workspace, f.Path, projectFileLimit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, nil
	case errors.Is(err, confine.ErrEscape):
		f.Exists = true
		f.Problem = fmt.Sprintf("it resolves to %s, outside the workspace; project MCP servers are read only from inside it",
			confine.Resolve(f.Path))
		return f, nil
	case err != nil:
		f.Exists, f.Problem = true, err.Error()
		return f, nil
	case fi.Size() > projectFileLimit:
		f.Exists, f.Problem = true, fmt.Sprintf("it is %d bytes, over the %d-byte limit", fi.Size(), projectFileLimit)
		return f, nil
	}
	f.Exists, f.sum, f.data = true, projecttrust.Sum(data), data
	cfg, err := ParseConfigEnv(f.Path, data, lookup)
	if err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			f.Problem = ce.Msg
		} else {
			f.Problem = err.Error()
		}
		return f, nil
	}
	f.Servers = cfg.Names()
	trusted, err := projecttrust.Read(pr.Home)
	if err != nil {
		f.Problem = err.Error()
		return f, nil
	}
	if was, ok := trusted[projecttrust.Canonical(f.Path)]; ok {
		f.Trusted, f.Changed = was == f.sum, was != f.sum
	}
	return f, cfg
}

// mergeProject adds the project's servers to the user's. The person's own
// mcp.json wins a name both define (the project's entry is named in a
// warning); a server of a file not trusted is listed with the reason and
// never started. The project file's own "timeouts" apply to its servers.
func mergeProject(user *Config, f *ProjectFile, proj *Config) {
	user.Project = f
	if proj == nil {
		return
	}
	for _, name := range proj.Names() {
		s := proj.Servers[name]
		if own, ok := user.Servers[name]; ok {
			own.Warnings = append(own.Warnings, fmt.Sprintf("%s also defines a server '%s'; this entry is used", f.Path, name))
			continue
		}
		s.Timeouts = fill(s.Timeouts, proj.Timeouts)
		if !f.Trusted {
			s.Problem, s.Unset = f.untrusted(), nil
		}
		user.Servers[name] = s
	}
}

// LoadAll reads the person's mcp.json at path and, when pr names a
// workspace, its .mcp.json (CONTRACT.md §12.5).
func LoadAll(path string, pr Project) (*Config, error) {
	cfg, err := LoadConfig(path)
	if err != nil {
		return nil, err
	}
	f, proj := readProject(pr, nil)
	mergeProject(cfg, f, proj)
	return cfg, nil
}

// TrustProject records the project's .mcp.json, as it is on disk now, as
// trusted (projecttrust), so its servers start from the next Reload and in
// later sessions until the file changes. It returns a line for the person.
func TrustProject(pr Project) (string, error) {
	f, proj := readProject(pr, nil)
	switch {
	case f == nil:
		return "", errors.New("no workspace: there is no project .mcp.json to trust")
	case !f.Exists:
		return "", fmt.Errorf("%s does not exist; there is nothing to trust", f.Path)
	case f.Problem != "":
		return "", fmt.Errorf("%s: %s; fix it before trusting it", f.Path, f.Problem)
	case f.Trusted:
		return fmt.Sprintf("%s is already trusted.", f.Path), nil
	}
	if err := projecttrust.Record(pr.Home, map[string]string{projecttrust.Canonical(f.Path): f.sum}); err != nil {
		return "", fmt.Errorf("mcp: %w", err)
	}
	names := proj.Names()
	sort.Strings(names)
	return fmt.Sprintf("Trusted %s: its %d server(s) (%s) start from now on, and in later sessions until the file changes.",
		f.Path, len(names), strings.Join(names, ", ")), nil
}

// Project is the workspace's .mcp.json as the pool last read it (nil when
// the pool reads none).
func (p *Pool) Project() *ProjectFile {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cfg == nil {
		return nil
	}
	return p.cfg.Project
}

// TrustProject trusts the workspace's .mcp.json (TrustProject) and starts
// its servers: `/mcp trust`.
func (p *Pool) TrustProject(ctx context.Context) (string, error) {
	line, err := TrustProject(p.opts.Project)
	if err != nil {
		return "", err
	}
	// Only the project's servers restart; the person's keep running.
	var names []string
	if f := p.Project(); f != nil {
		names = f.Servers
	}
	if len(names) == 0 {
		return line, nil
	}
	return line, p.Reload(ctx, names...)
}

// AddProjectServer adds server name to the project's .mcp.json (created
// with "mcpServers", Claude Code's key, when absent), read through the
// confined reader like every read of it. A file that was trusted, or did
// not exist, stays trusted with the entry the person just added; a file
// not trusted stays so. The line says which.
func AddProjectServer(pr Project, name string, entry NewServer) (string, error) {
	raw, err := checkedEntry(name, entry)
	if err != nil {
		return "", err
	}
	before, _ := readProject(pr, nil)
	if before == nil {
		return "", errors.New("no workspace: a project-scope server needs one")
	}
	if before.Problem != "" {
		return "", fmt.Errorf("%s: %s; fix it before editing it", before.Path, before.Problem)
	}
	// The bytes edited are the ones whose trust was judged; the digest
	// recorded is of the bytes written, never of a later read.
	written, err := editData(before.Path, before.data, "mcpServers", addEdit(before.Path, name, raw))
	if err != nil {
		return "", err
	}
	if before.Exists && !before.Trusted {
		return fmt.Sprintf("Added MCP server '%s' to %s, which is not trusted: review it, then `codewhale mcp trust`.",
			name, before.Path), nil
	}
	sum := projecttrust.Sum(written)
	if err := projecttrust.Record(pr.Home, map[string]string{projecttrust.Canonical(before.Path): sum}); err != nil {
		return "", fmt.Errorf("mcp: %w", err)
	}
	return fmt.Sprintf("Added MCP server '%s' to %s (trusted with this content).", name, before.Path), nil
}

package projectctx

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/mcpname"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/projecttrust"
)

// Bounds of sub-agent definitions (CONTRACT.md §6.5).
const (
	maxAgentBytes   = 64 << 10
	maxAgentsPerDir = 100
	maxAgentNameLen = 64
)

// Agent is a sub-agent type a person defined: a Markdown file whose
// frontmatter names and describes it and whose body is the child's
// instructions (CONTRACT.md §6.5). Claude Code's `.claude/agents` files
// read as they are.
type Agent struct {
	Name         string
	Description  string
	Instructions string
	// Tools is the allow-list in codewhale's names (nil: every tool the
	// child's mode offers); FileReadOnly says File came only from Claude
	// Code's readers (Read, Grep, Glob, LS), so the child gets File
	// without its writes.
	Tools        []string
	FileReadOnly bool
	Model        string // "" = [agents] default_model, else the session's
	// ReasoningEffort is "" for the session's.
	ReasoningEffort string
	// Mode is the child's mode (nil: the built-in role's, else the
	// session's); it never widens Plan.
	Mode   *posture.Mode
	Path   string
	Source string // e.g. "project .claude/agents"
	// Project is set for a repository's definition, which runs only once
	// Trusted: the user recorded this content with /agents trust.
	Project bool
	Trusted bool
	// Notes are caveats shown with the definition (a Claude model alias
	// replaced, an argument pattern not enforced).
	Notes []string
	// Sum is the SHA-256 of the file, the digest /agents trust records.
	Sum string
}

// agentLoad carries what every definition of one load is checked against.
type agentLoad struct {
	known func(rule string) (ok, inPlan bool)
	home  string
	w     *watch
	trust map[string]string // read on the first project definition
	err   error
}

// loadAgents reads each source's *.md files; a name found in an earlier
// source shadows later ones. A file with any problem is reported and not
// loaded at all.
func loadAgents(srcs []source, l *agentLoad) (agents []Agent, problems []string) {
	sh := newShadowing[Agent](func(n string) string { return "sub-agent type " + n }, "sub-agent definitions", maxAgentsPerDir)
	for _, src := range srcs {
		entries, err := l.w.readDir(src.dir)
		if err != nil {
			continue
		}
		sh.next()
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || e.IsDir() || !strings.EqualFold(filepath.Ext(name), ".md") {
				continue
			}
			a, problem := readAgent(src, filepath.Join(src.dir, name), e.Type()&fs.ModeSymlink != 0, l)
			sh.offer(src.label, a.Name, a.Path, a, problem)
		}
	}
	if l.err != nil {
		sh.problems = append(sh.problems, "project sub-agent definitions are untrusted: "+l.err.Error())
	}
	return sh.admitted, sh.problems
}

// readAgent reads one definition; a non-empty problem means it is not
// loaded.
func readAgent(src source, path string, link bool, l *agentLoad) (Agent, string) {
	if link {
		l.w.lstat(path)
	}
	real, why := src.area.admit(path, !link)
	if why != "" {
		return Agent{}, fmt.Sprintf("%s: not read: %s", path, why)
	}
	data, fi, err := readReal(l.w.files, real, maxAgentBytes+1)
	if err != nil {
		return Agent{}, fmt.Sprintf("%s: not read: %v", path, err)
	}
	if !link {
		l.w.record(path, fi)
	}
	if fi.Size() > maxAgentBytes {
		return Agent{}, fmt.Sprintf("%s: %d bytes is more than the %d KiB a sub-agent definition may have", path, fi.Size(), maxAgentBytes>>10)
	}
	meta, body, ok := splitFrontmatter(string(data))
	if !ok {
		return Agent{}, fmt.Sprintf("%s: no frontmatter with a name and description", path)
	}
	fm, err := parseFrontmatter(path, meta)
	if err != nil {
		return Agent{}, err.Error()
	}
	a := Agent{Name: fm.Name, Description: fm.Description, Instructions: strings.TrimSpace(body), Path: path,
		Source: src.label, Project: src.area.home == "", Sum: projecttrust.Sum(data)}
	if a.Name == "" {
		a.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if problem := a.settle(fm, strings.Contains(src.label, ".claude/"), l.known); problem != "" {
		return Agent{}, path + ": " + problem
	}
	a.Trusted = !a.Project || l.trusted(real, a.Sum)
	return a, ""
}

// settle checks the frontmatter's values and fills in what they mean;
// claude says the file is Claude Code's, whose model names are its own.
func (a *Agent) settle(fm frontmatter, claude bool, known func(string) (bool, bool)) string {
	if !validName(a.Name) || strings.Contains(a.Name, ":") || len(a.Name) > maxAgentNameLen {
		return fmt.Sprintf("%q is not a usable sub-agent type name (lower-case letters, digits, '-', '_' and '.', at most %d)",
			a.Name, maxAgentNameLen)
	}
	if a.Description == "" {
		return "no description, so the model could not know when to use this type"
	}
	if fm.Mode != "" {
		m, err := posture.ParseMode(fm.Mode)
		if err != nil {
			return "frontmatter: mode: " + err.Error()
		}
		a.Mode = &m
	}
	a.permissionMode(fm.PermissionMode)
	if err := a.settleTools(fm.Tools, known); err != "" {
		return err
	}
	if e := strings.ToLower(fm.ReasoningEffort); e != "" && !slices.Contains(efforts, e) {
		return fmt.Sprintf("frontmatter: reasoning_effort: %q is not one of %s", fm.ReasoningEffort, strings.Join(efforts, ", "))
	}
	a.ReasoningEffort = strings.ToLower(fm.ReasoningEffort)
	a.Model = a.model(fm.Model, claude)
	return ""
}

// efforts are the reasoning tiers a definition may name.
var efforts = []string{"off", "low", "medium", "high", "max"}

// permissionMode reads Claude Code's permissionMode: plan narrows to Plan;
// every other value would change approvals, which a file never does.
func (a *Agent) permissionMode(v string) {
	switch {
	case v == "":
	case strings.EqualFold(v, "plan") && a.Mode == nil:
		plan := posture.Plan
		a.Mode = &plan
	case !strings.EqualFold(v, "plan"):
		a.Notes = append(a.Notes, fmt.Sprintf("permissionMode %q is ignored: a definition never changes approvals", v))
	}
}

// model is the child's model for a frontmatter value: Claude Code's
// inherit and its aliases (and, in its own files, its model ids) leave the
// choice to [agents] default_model or the session.
func (a *Agent) model(v string, claude bool) string {
	low := strings.ToLower(v)
	switch {
	case low == "" || low == "inherit":
		return ""
	case low == "sonnet" || low == "opus" || low == "haiku" || claude && strings.HasPrefix(low, "claude-"):
		a.Notes = append(a.Notes, fmt.Sprintf("model %q is Claude Code's; this type uses [agents] default_model or the session's model", v))
		return ""
	}
	return v
}

// settleTools maps the tools list onto codewhale's names and checks each
// against the registries; one unknown name refuses the whole definition.
func (a *Agent) settleTools(v any, known func(string) (bool, bool)) string {
	if v == nil {
		return ""
	}
	raw := toolList(v)
	a.Tools = []string{}
	readers, writers := false, false
	for _, r := range raw {
		name := r
		if i := strings.IndexByte(r, '('); i >= 0 {
			name = strings.TrimSpace(r[:i])
			a.Notes = append(a.Notes, fmt.Sprintf("tools %q: argument patterns are not enforced; all of %s is allowed", r, name))
		}
		switch {
		case slices.Contains(claudeReaders, name):
			readers = true
		case slices.Contains(claudeWriters, name) || name == "File":
			writers = true
		}
		name = ourToolName(name)
		if ok, inPlan := knownTool(known, name); !ok {
			return fmt.Sprintf("tools: %q is not a tool codewhale has (codewhale's names, or Claude Code's Read, Write, Edit, Grep, Glob, LS, Bash, WebFetch, WebSearch, Task, TodoWrite)", r)
		} else if !inPlan && a.Mode != nil && *a.Mode == posture.Plan {
			return fmt.Sprintf("tools: %s is never offered in Plan mode, which this definition asks for; remove one of them", name)
		}
		if !slices.Contains(a.Tools, name) {
			a.Tools = append(a.Tools, name)
		}
	}
	a.FileReadOnly = readers && !writers
	return ""
}

// Claude Code's file tools: the readers map to File without writes unless
// a writer is listed too.
var (
	claudeReaders = []string{"Read", "Grep", "Glob", "LS", "NotebookRead"}
	claudeWriters = []string{"Write", "Edit", "MultiEdit", "NotebookEdit"}
)

// ourToolName is a tools entry in codewhale's spelling: Claude Code's
// names mapped as commands map them, its MCP names (mcp__server__tool,
// mcp__server for every tool of a server) onto codewhale's, through the
// one definition of an MCP tool's model name (a long one is cut and
// hashed, a character the provider refuses replaced).
func ourToolName(name string) string {
	if ours, ok := claudeTools[name]; ok {
		return ours
	}
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		server, tool, found := strings.Cut(rest, "__")
		if !found {
			return mcpname.ModelServerPattern(server)
		}
		return mcpname.ModelToolName(server, tool)
	}
	return name
}

func knownTool(known func(string) (bool, bool), rule string) (ok, inPlan bool) {
	if known == nil {
		return true, true
	}
	return known(rule)
}

// trusted reports whether the record holds this content for real (the
// file's canonical path); the record is read once per load and watched,
// so a /agents trust reloads.
func (l *agentLoad) trusted(real, sum string) bool {
	if l.trust == nil && l.err == nil {
		if l.home != "" {
			l.w.lstat(projecttrust.Path(l.home))
		}
		l.trust, l.err = projecttrust.Read(l.home)
	}
	return l.trust[real] == sum
}

// Agent returns the sub-agent type named name.
func (s *State) Agent(name string) (*Agent, bool) {
	for i := range s.Agents {
		if s.Agents[i].Name == name {
			return &s.Agents[i], true
		}
	}
	return nil, false
}

// TrustAgents records every project definition's present content as
// trusted (a file edited since the session read it is read again first),
// reloads, and says what it trusted.
func (c *Context) TrustAgents() (string, error) {
	c.Refresh()
	var names []string
	sums := map[string]string{}
	for _, a := range c.State().Agents {
		if a.Project && !a.Trusted {
			names = append(names, a.Name)
			sums[projecttrust.Canonical(a.Path)] = a.Sum
		}
	}
	if len(names) == 0 {
		return "No untrusted project sub-agent definitions; nothing to trust.", nil
	}
	if err := projecttrust.Record(c.opts.Home, sums); err != nil {
		return "", err
	}
	c.Refresh()
	return fmt.Sprintf("Trusted %d project sub-agent type(s) (%s): they run from now on, and in later sessions until a file changes.",
		len(names), strings.Join(names, ", ")), nil
}

// agentChanges is the line saying which sub-agent types were added,
// removed or trusted between two loads ("" when none).
func agentChanges(old, next *State) string {
	names := func(s *State, trusted bool) []string {
		var out []string
		for _, a := range s.Agents {
			if !trusted || a.Trusted {
				out = append(out, a.Name)
			}
		}
		return out
	}
	d := nameDiff(names(old, false), names(next, false), "")
	var newly []string
	for _, n := range names(next, true) {
		if a, ok := old.Agent(n); ok && !a.Trusted {
			newly = append(newly, n+" trusted")
		}
	}
	if len(newly) > 0 {
		d = strings.Trim(d+", "+strings.Join(newly, ", "), ", ")
	}
	if d == "" {
		return ""
	}
	return "Sub-agent types changed: " + d + "."
}

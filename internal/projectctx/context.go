// Package projectctx is what a session reads from the repository and the
// user's CodeWhale home to shape the agent (CONTRACT.md §17): the project
// instructions (AGENTS.md and its fallbacks) that form a stable block of
// the system prompt, the user's slash commands, and the skills the model
// may load. Everything is read once per session, bounded, with receipts
// for what was cut; between turns a cheap look (one lstat per consulted
// path) notices edits and reloads, saying what changed.
package projectctx

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codewhale/codewhale/internal/tools/confine"
)

// Options say where to look.
type Options struct {
	Home      string // $CODEWHALE_HOME ("" = no global files)
	Workspace string
	// KnownTool checks a sub-agent definition's tools entry (a name or a
	// prefix* rule): whether a registry may hold it and whether Plan
	// offers it (toolset.KnownTool); nil accepts every name.
	KnownTool func(rule string) (ok, inPlan bool)
}

// State is one load: immutable once built, so the engine and the UI read
// it without locks.
type State struct {
	// Root is the repository root the instructions were read from (the
	// workspace outside a repository).
	Root         string
	Instructions []Instruction
	Commands     []Command
	Skills       []Skill
	// Agents are the sub-agent types people defined (CONTRACT.md §6.5);
	// AgentProblems says, one line each, which definitions were not loaded
	// and why (/agents and doctor show them).
	Agents        []Agent
	AgentProblems []string
	// Problems are one line each about files that could not be used
	// (unreadable, malformed frontmatter, shadowed names).
	Problems []string
	// Took is how long the load took.
	Took time.Duration
	// Generation counts loads: 1 for the first, +1 per reload.
	Generation int

	prompt string
	watch  *watch
}

// Context holds a session's current State.
type Context struct {
	opts Options
	mu   sync.Mutex // one reload at a time
	cur  atomic.Pointer[State]
}

// Load reads everything once.
func Load(o Options) *Context {
	c := &Context{opts: o}
	c.cur.Store(load(o, 1))
	return c
}

func load(o Options, gen int) *State {
	start := time.Now()
	w := newWatch()
	s := &State{Generation: gen, watch: w}
	ws, home := canonical(o.Workspace), ""
	if o.Home != "" {
		home = canonical(o.Home)
	}
	w.files = confine.NewSet(fsRoot(ws), fsRoot(home))
	defer w.files.Close()
	s.Root, s.Instructions = loadInstructions(home, ws, w)
	var p1, p2 []string
	if home != "" { // a home folder that links elsewhere is listed where it resolves: note the link
		w.lstat(filepath.Join(home, "commands"))
		w.lstat(filepath.Join(home, "skills"))
		w.lstat(filepath.Join(home, "agents"))
	}
	s.Commands, p1 = loadCommands(sources(home, ws, "commands"), w)
	s.Skills, p2 = loadSkills(sources(home, ws, "skills"), w)
	s.Problems = append(p1, p2...)
	s.Agents, s.AgentProblems = loadAgents(sources(home, ws, "agents"), &agentLoad{known: o.KnownTool, home: o.Home, w: w})
	s.prompt = joinBlocks(instructionsBlock(s.Instructions), skillsBlock(s.Skills))
	s.Took = time.Since(start)
	return s
}

func joinBlocks(blocks ...string) string {
	var kept []string
	for _, b := range blocks {
		if b != "" {
			kept = append(kept, b)
		}
	}
	return strings.Join(kept, "\n\n")
}

// State returns the current load.
func (c *Context) State() *State { return c.cur.Load() }

// Refresh looks for changes since the last load and, when there are any,
// reloads. It returns one line per kind of change for the user ("" when
// nothing changed). The engine calls it as each turn starts; the UI when
// a command it does not know is typed.
func (c *Context) Refresh() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.cur.Load()
	changed := old.watch.changed()
	if len(changed) == 0 {
		return nil
	}
	next := load(c.opts, old.Generation+1)
	c.cur.Store(next)
	return describeChanges(old, next, changed)
}

// PromptBlock is the system prompt's part for this load: the project
// instructions, then the skills list ("" when there are neither). It is the
// same string for the same files.
func (s *State) PromptBlock() string { return s.prompt }

// Command returns the user command named name.
func (s *State) Command(name string) (*Command, bool) {
	for i := range s.Commands {
		if s.Commands[i].Name == name {
			return &s.Commands[i], true
		}
	}
	return nil, false
}

// Skill returns the skill named name.
func (s *State) Skill(name string) (*Skill, bool) {
	for i := range s.Skills {
		if s.Skills[i].Name == name {
			return &s.Skills[i], true
		}
	}
	return nil, false
}

// SkillNames lists every skill name.
func (s *State) SkillNames() []string {
	out := make([]string, len(s.Skills))
	for i, sk := range s.Skills {
		out[i] = sk.Name
	}
	return out
}

func describeChanges(old, next *State, paths []string) []string {
	var out []string
	if files := instructionChanges(old, next, paths); files != "" {
		out = append(out, "Project instructions changed on disk ("+files+"); the new text applies from this turn.")
	}
	if d := nameDiff(commandNames(old), commandNames(next), "/"); d != "" {
		out = append(out, "User commands changed: "+d+".")
	}
	if d := nameDiff(old.SkillNames(), next.SkillNames(), ""); d != "" {
		out = append(out, "Skills changed: "+d+".")
	}
	if d := agentChanges(old, next); d != "" {
		out = append(out, d)
	}
	if len(out) == 0 && old.prompt != next.prompt {
		out = append(out, "Skills changed: a description was edited; the new list applies from this turn.")
	}
	return out
}

// instructionChanges names the instruction files that were added, removed
// or edited.
func instructionChanges(old, next *State, paths []string) string {
	was, now := map[string]bool{}, map[string]bool{}
	for _, in := range old.Instructions {
		was[in.Path] = true
	}
	for _, in := range next.Instructions {
		now[in.Path] = true
	}
	var parts []string
	for _, in := range next.Instructions {
		if !was[in.Path] {
			parts = append(parts, shortPath(next.Root, in.Path)+" added")
		} else if slices.Contains(paths, in.Path) {
			parts = append(parts, shortPath(next.Root, in.Path)+" edited")
		}
	}
	for _, in := range old.Instructions {
		if !now[in.Path] {
			parts = append(parts, shortPath(old.Root, in.Path)+" removed")
		}
	}
	return strings.Join(parts, ", ")
}

func commandNames(s *State) []string {
	out := make([]string, len(s.Commands))
	for i, c := range s.Commands {
		out[i] = c.Name
	}
	return out
}

func nameDiff(old, next []string, prefix string) string {
	var parts []string
	for _, n := range next {
		if !slices.Contains(old, n) {
			parts = append(parts, prefix+n+" added")
		}
	}
	for _, n := range old {
		if !slices.Contains(next, n) {
			parts = append(parts, prefix+n+" removed")
		}
	}
	return strings.Join(parts, ", ")
}

func shortPath(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// Report is the text of /context: which instruction files were loaded,
// their sizes, what was cut or skipped and why, the @-mentions left
// unexpanded, then the commands and skills with their sources.
func (s *State) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Project instructions (%s, read once; edits are picked up at the next turn):\n", s.instructionTotals())
	if len(s.Instructions) == 0 {
		fmt.Fprintf(&b, "  none — add AGENTS.md to the repository root (/init drafts one), or %s for every project\n",
			"$CODEWHALE_HOME/AGENTS.md")
	}
	for _, in := range s.Instructions {
		fmt.Fprintf(&b, "  %s (%s) — %s\n", in.Path, in.Scope, in.status())
		if len(in.Mentions) > 0 {
			fmt.Fprintf(&b, "    mentions not expanded: @%s\n", strings.Join(in.Mentions, ", @"))
		}
	}
	fmt.Fprintf(&b, "User commands: %d", len(s.Commands))
	if len(s.Commands) > 0 {
		b.WriteString(" — " + strings.Join(prefixed(commandNames(s), "/"), " "))
	}
	fmt.Fprintf(&b, "\nSkills: %d", len(s.Skills))
	if len(s.Skills) > 0 {
		b.WriteString(" — " + strings.Join(s.SkillNames(), " ") + " (/skills)")
	}
	fmt.Fprintf(&b, "\nSub-agent types: %d defined (/agents)", len(s.Agents))
	b.WriteString("\n")
	for _, p := range s.Problems {
		b.WriteString("Problem: " + p + "\n")
	}
	fmt.Fprintf(&b, "Loaded in %s.", s.Took.Round(10*time.Microsecond))
	return b.String()
}

func (s *State) instructionTotals() string {
	kept, files := 0, 0
	for _, in := range s.Instructions {
		if in.Skipped == "" {
			kept += in.Kept
			files++
		}
	}
	return fmt.Sprintf("%d file(s), %s in the system prompt of at most %d KiB", files, bytesText(kept), MaxInstructionTotalBytes>>10)
}

func (in *Instruction) status() string {
	switch {
	case in.Skipped != "":
		return in.Skipped
	case in.Cut != "":
		return fmt.Sprintf("cut: %s of %s kept", bytesText(in.Kept), bytesText(int(in.Size)))
	}
	return bytesText(in.Kept) + ", whole"
}

func bytesText(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}

func prefixed(names []string, p string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// Summary is the short form for /status: files and sizes in one line.
func (s *State) Summary() string {
	var names []string
	for _, in := range s.Instructions {
		n := shortPath(s.Root, in.Path)
		if in.Scope == "global" {
			n = "global AGENTS.md"
		}
		switch {
		case in.Skipped != "":
			n += " (skipped)"
		case in.Cut != "":
			n += " (cut)"
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return fmt.Sprintf("Project instructions: none · %d user command(s) · %d skill(s) (/context)", len(s.Commands), len(s.Skills))
	}
	return fmt.Sprintf("Project instructions: %s (%s) · %d user command(s) · %d skill(s) (/context)",
		strings.Join(names, ", "), s.instructionTotals(), len(s.Commands), len(s.Skills))
}

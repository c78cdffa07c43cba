package projectctx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/mcpname"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/cputime"
)

// fakeKnown stands in for toolset.KnownTool (which imports this package):
// a few built-ins, Plan's among them, and MCP names by their shape.
func fakeKnown(rule string) (ok, inPlan bool) {
	if strings.HasPrefix(rule, "mcp_") {
		return true, true
	}
	plan, ok := map[string]bool{"File": true, "Git": true, "Web": true, "agent": true, "work_update": true,
		"load_skill": true, "Bash": false, "Run": false}[rule]
	return ok, plan
}

func claudeReviewer(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "claude-agents", "code-reviewer.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A .claude/agents file copied from a public repository loads unchanged:
// its name, description and body; Claude Code's Read/Glob/Grep become File
// without writes beside Bash; its `sonnet` is left to the configuration,
// with a note. Coming from the repository, it waits for the trust step.
// README.md "Sub-agents": a .claude/agents file loads as it is, Read/Grep/Glob become File without writes, sonnet is left to [agents] default_model, and a repository's definition waits for trust.
func TestClaudeCodeDefinitionLoadsAsIs(t *testing.T) {
	t.Parallel()
	ws := repo(t, map[string]string{".claude/agents/code-reviewer.md": claudeReviewer(t)})
	s := Load(Options{Home: canonical(t.TempDir()), Workspace: ws, KnownTool: fakeKnown}).State()
	if len(s.AgentProblems) != 0 || len(s.Agents) != 1 {
		t.Fatalf("agents %+v, problems %q", s.Agents, s.AgentProblems)
	}
	a := s.Agents[0]
	if a.Name != "code-reviewer" || !strings.HasPrefix(a.Description, "Reviews code changes for correctness") ||
		!strings.HasPrefix(a.Instructions, "You are a focused code reviewer") || a.Source != "project .claude/agents" {
		t.Errorf("agent %+v", a)
	}
	if strings.Join(a.Tools, ",") != "File,Bash" || !a.FileReadOnly || a.Model != "" || a.Mode != nil {
		t.Errorf("tools %q read-only %v model %q mode %v", a.Tools, a.FileReadOnly, a.Model, a.Mode)
	}
	if len(a.Notes) != 1 || !strings.Contains(a.Notes[0], `model "sonnet" is Claude Code's`) {
		t.Errorf("notes %q", a.Notes)
	}
	if !a.Project || a.Trusted {
		t.Errorf("a repository's definition must wait for trust: project %v trusted %v", a.Project, a.Trusted)
	}
}

// Every kind of bad definition is reported with its file and reason and
// not loaded at all; a good one beside them loads.
// README.md "Sub-agents": a definition with an unknown tool or a bad field is not loaded at all and the report says why.
func TestBadDefinitionsAreReportedNotHalfLoaded(t *testing.T) {
	t.Parallel()
	home := canonical(t.TempDir())
	ws := repo(t, map[string]string{
		".codewhale/agents/ok.md":        "---\nname: ok\ndescription: fine\ntools: [File, Git]\nmode: plan\nreasoning_effort: low\nmodel: deepseek-v4-flash\n---\nBe fine.\n",
		".codewhale/agents/unknown.md":   "---\ndescription: x\ntools: Read, Frobnicate\n---\nbody\n",
		".codewhale/agents/planbash.md":  "---\ndescription: x\nmode: plan\ntools: File, Bash\n---\nbody\n",
		".codewhale/agents/nodesc.md":    "---\nname: nodesc\n---\nbody\n",
		".codewhale/agents/badname.md":   "---\nname: Code Reviewer\ndescription: x\n---\nbody\n",
		".codewhale/agents/badmode.md":   "---\ndescription: x\nmode: yolo\n---\nbody\n",
		".codewhale/agents/badeffort.md": "---\ndescription: x\nreasoning_effort: ludicrous\n---\nbody\n",
		".codewhale/agents/plain.md":     "no frontmatter at all\n",
		".codewhale/agents/notes.txt":    "not a definition\n",
	})
	s := Load(Options{Home: home, Workspace: ws, KnownTool: fakeKnown}).State()
	if len(s.Agents) != 1 || s.Agents[0].Name != "ok" {
		t.Fatalf("agents %+v", s.Agents)
	}
	ok := s.Agents[0]
	if ok.Mode == nil || *ok.Mode != posture.Plan || ok.ReasoningEffort != "low" || ok.Model != "deepseek-v4-flash" ||
		strings.Join(ok.Tools, ",") != "File,Git" || ok.FileReadOnly {
		t.Errorf("ok = %+v", ok)
	}
	problems := strings.Join(s.AgentProblems, "\n")
	for _, want := range []string{`unknown.md: tools: "Frobnicate" is not a tool codewhale has`,
		"planbash.md: tools: Bash is never offered in Plan mode", "nodesc.md: no description",
		`badname.md: "Code Reviewer" is not a usable sub-agent type name`, "badmode.md: frontmatter: mode: unknown mode",
		`badeffort.md: frontmatter: reasoning_effort: "ludicrous"`, "plain.md: no frontmatter"} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems lack %q:\n%s", want, problems)
		}
	}
	if strings.Contains(problems, "notes.txt") || len(s.AgentProblems) != 7 {
		t.Errorf("problems:\n%s", problems)
	}
}

// The project's .codewhale shadows its .claude, which shadows the home;
// home definitions need no trust; Claude Code's permissionMode plan
// narrows, its MCP names map onto codewhale's.
// README.md "Sub-agents": definitions come from .codewhale/agents/, .claude/agents/ and $CODEWHALE_HOME/agents/, and the home's need no trust.
func TestDefinitionSourcesShadowAndHomeIsTrusted(t *testing.T) {
	t.Parallel()
	home := canonical(t.TempDir())
	write(t, home, map[string]string{
		"agents/reviewer.md": "---\ndescription: home reviewer\n---\nhome\n",
		"agents/mine.md":     "---\ndescription: mine\npermissionMode: plan\ntools: mcp__github__search_code, mcp__jira, mcp__my.db__xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n---\nmine\n",
		"agents/wild.md":     "---\ndescription: wild\npermissionMode: bypassPermissions\n---\nwild\n",
	})
	ws := repo(t, map[string]string{
		".codewhale/agents/reviewer.md": "---\ndescription: project reviewer\n---\nproject\n",
		".claude/agents/reviewer.md":    "---\ndescription: claude reviewer\n---\nclaude\n",
	})
	s := Load(Options{Home: home, Workspace: ws, KnownTool: fakeKnown}).State()
	r, _ := s.Agent("reviewer")
	if r == nil || r.Description != "project reviewer" || r.Trusted {
		t.Fatalf("reviewer = %+v", r)
	}
	if len(s.AgentProblems) != 2 || !strings.Contains(s.AgentProblems[0], "is shadowed by the one in "+filepath.Join(ws, ".codewhale", "agents", "reviewer.md")) {
		t.Errorf("problems %q", s.AgentProblems)
	}
	mine, _ := s.Agent("mine")
	if mine == nil || !mine.Trusted || mine.Project || mine.Mode == nil || *mine.Mode != posture.Plan ||
		strings.Join(mine.Tools, ",") != "mcp_github_search_code,mcp_jira_*,"+mcpname.ModelToolName("my.db", strings.Repeat("x", 70)) ||
		len(mine.Tools[2]) > mcpname.MaxModelNameLen {
		t.Errorf("mine = %+v", mine)
	}
	if wild, _ := s.Agent("wild"); wild == nil || wild.Mode != nil || len(wild.Notes) != 1 ||
		!strings.Contains(wild.Notes[0], "never changes approvals") {
		t.Errorf("wild = %+v", wild)
	}
}

// /agents trust records the present content of the project's definitions;
// the next load finds them trusted, an edit makes one untrusted again, and
// each change is reported between turns.
// README.md "Sub-agents": /agents trust records the definitions' content and an edit needs a new trust.
func TestTrustAgentsRecordsContentAndAnEditRevokesIt(t *testing.T) {
	t.Parallel()
	home := canonical(t.TempDir())
	ws := repo(t, map[string]string{".claude/agents/code-reviewer.md": claudeReviewer(t),
		".codewhale/agents/fixer.md": "---\ndescription: fixes\nmode: operate\n---\nFix.\n"})
	c := Load(Options{Home: home, Workspace: ws, KnownTool: fakeKnown})
	msg, err := c.TrustAgents()
	if err != nil || !strings.Contains(msg, "Trusted 2 project sub-agent type(s) (fixer, code-reviewer)") {
		t.Fatalf("trust: %q %v", msg, err)
	}
	for _, a := range c.State().Agents {
		if !a.Trusted {
			t.Errorf("%s is not trusted after /agents trust", a.Name)
		}
	}
	if again := Load(Options{Home: home, Workspace: ws, KnownTool: fakeKnown}).State(); !again.Agents[0].Trusted {
		t.Error("a later session does not see the trust")
	}
	path := filepath.Join(ws, ".codewhale", "agents", "fixer.md")
	if err := os.WriteFile(path, []byte("---\ndescription: fixes, edited\nmode: operate\n---\nFix harder.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Refresh()
	if f, _ := c.State().Agent("fixer"); f == nil || f.Trusted || f.Description != "fixes, edited" {
		t.Errorf("edited fixer = %+v", f)
	}
	if msg, _ := c.TrustAgents(); !strings.Contains(msg, "(fixer)") {
		t.Errorf("re-trust: %q", msg)
	}
	if f, _ := c.State().Agent("fixer"); f == nil || !f.Trusted {
		t.Errorf("re-trusted fixer = %+v", f)
	}
}

// BenchmarkLoadAgents100 is a session start in a repository with 100
// sub-agent definitions (50 in .codewhale/agents, 50 in .claude/agents),
// against the same start without them (BenchmarkLoadAgents0): the
// difference is what definitions add (CONTRACT.md §6.5: under 5 ms).
func BenchmarkLoadAgents100(b *testing.B) { benchAgents(b, 100) }

// BenchmarkLoadAgents0 is the reference: the same repository, no
// definitions.
func BenchmarkLoadAgents0(b *testing.B) { benchAgents(b, 0) }

// BenchmarkLoadAgents100Reference reads the same 100 files with
// os.ReadFile after listing their two folders: the floor a loader that
// reads every file cannot go below.
func BenchmarkLoadAgents100Reference(b *testing.B) {
	root := agentFixture(b, 100)
	dirs := []string{filepath.Join(root, ".codewhale", "agents"), filepath.Join(root, ".claude", "agents")}
	defer cputime.PerOp(b)()
	for range b.N {
		for _, d := range dirs {
			entries, err := os.ReadDir(d)
			if err != nil {
				b.Fatal(err)
			}
			for _, e := range entries {
				if _, err := os.ReadFile(filepath.Join(d, e.Name())); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

func benchAgents(b *testing.B, n int) {
	root, home := agentFixture(b, n), canonical(b.TempDir())
	defer cputime.PerOp(b)()
	for range b.N {
		if s := Load(Options{Home: home, Workspace: root, KnownTool: fakeKnown}).State(); len(s.Agents) != n {
			b.Fatalf("loaded %d agents (%q)", len(s.Agents), s.AgentProblems)
		}
	}
}

// agentFixture is a repository with n definitions in Claude Code's form.
func agentFixture(b *testing.B, n int) string {
	root := canonical(b.TempDir())
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n", "AGENTS.md": "# Root\n"}
	for i := range n {
		dir := ".codewhale/agents"
		if i%2 == 1 {
			dir = ".claude/agents"
		}
		files[filepath.Join(dir, fmt.Sprintf("agent%03d.md", i))] = fmt.Sprintf("---\nname: agent%03d\n"+
			"description: Reviews changes of kind %d for correctness and missing tests.\ntools: Read, Grep, Glob, Bash\n"+
			"model: inherit\n---\n%s", i, i, strings.Repeat("Check one more thing carefully.\n", 40))
	}
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// Between turns a new definition and a trust are each one line.
func TestAgentChangesAreReported(t *testing.T) {
	t.Parallel()
	home := canonical(t.TempDir())
	ws := repo(t, map[string]string{".codewhale/agents/a.md": "---\ndescription: a\n---\nA.\n"})
	c := Load(Options{Home: home, Workspace: ws, KnownTool: fakeKnown})
	write(t, ws, map[string]string{".codewhale/agents/b.md": "---\ndescription: b\n---\nB.\n"})
	if got := strings.Join(c.Refresh(), "\n"); got != "Sub-agent types changed: b added." {
		t.Errorf("after adding b: %q", got)
	}
	old := c.State()
	if _, err := c.TrustAgents(); err != nil {
		t.Fatal(err)
	}
	if got := agentChanges(old, c.State()); got != "Sub-agent types changed: a trusted, b trusted." {
		t.Errorf("after trusting: %q", got)
	}
}

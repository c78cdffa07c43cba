package toolset_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/tools/tasks"
	"github.com/codewhale/codewhale/internal/tools/web"
	"github.com/codewhale/codewhale/internal/toolset"
)

// services is a full session's services with real stores in temp dirs.
func services(t *testing.T, memory bool) *toolset.Services {
	t.Helper()
	dir := t.TempDir()
	s := toolset.NewServices(toolset.Options{Workspace: dir, Home: dir, MemoryEnabled: memory, SessionID: "s"})
	jm, err := jobs.NewManager(jobs.Options{StateDir: filepath.Join(dir, "jobs")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(jm.Close)
	store, _, err := tasks.Open(filepath.Join(dir, "tasks"))
	if err != nil {
		t.Fatal(err)
	}
	s.Jobs, s.Tasks = jm, store
	s.Agents = agent.NewManager(agent.Options{})
	return s
}

func firstRequest(s *toolset.Services, mode posture.Mode) (*tools.Registry, *catalog.Catalog, []string) {
	env := engine.TurnEnv{Mode: mode, AllowShell: true}
	ts := s.Toolset(env)
	c := catalog.Build(ts.Registry, ts.MCP, catalog.Options{Mode: mode, AllowShell: true})
	var names []string
	for _, t := range c.RequestTools() {
		names = append(names, t.Name)
	}
	return ts.Registry, c, names
}

// CONTRACT.md §16, §15.1 and §15.2: the default-active sets, the first checks the contract requires.
// CONTRACT.md §4.2: the default-active set is nine names with memory on, eight with it off; and (CONTRACT.md §4.6) Plan's first
// request is exactly File, Git, agent, tasks, work_update, tool_search.
// CONTRACT.md §15: settled decisions 1 and 2: the default-active sets and Plan's exact set.
// README.md "Tools": the first request carries Bash, File, Git, Run, agent, remember, tasks, work_update and tool_search in that order, nine names with memory on and eight without.
func TestDefaultActiveSets(t *testing.T) {
	t.Parallel()
	_, _, on := firstRequest(services(t, true), posture.Act)
	if got := strings.Join(on, ","); got != "Bash,File,Git,Run,agent,remember,tasks,work_update,tool_search" {
		t.Errorf("Act, memory on: %s", got)
	}
	_, _, off := firstRequest(services(t, false), posture.Act)
	if got := strings.Join(off, ","); got != "Bash,File,Git,Run,agent,tasks,work_update,tool_search" {
		t.Errorf("Act, memory off: %s", got)
	}
	_, _, op := firstRequest(services(t, true), posture.Operate)
	if strings.Join(op, ",") != strings.Join(on, ",") {
		t.Errorf("Operate differs from Act: %v", op)
	}
	_, c, plan := firstRequest(services(t, true), posture.Plan)
	if got := strings.Join(plan, ","); got != "File,Git,agent,tasks,work_update,tool_search" {
		t.Errorf("Plan: %s", got)
	}
	file, _ := c.Lookup("File")
	enum := file.Tool.InputSchema["properties"].(map[string]any)["action"].(map[string]any)["enum"]
	if b, _ := json.Marshal(enum); string(b) != `["read","list","search_name","search_content"]` {
		t.Errorf("Plan File actions %s", b)
	}
}

// Check 3: deferred but findable.
// CONTRACT.md §4.9: update_plan and handle_read are deferred, not in the first request, and found by tool_search.
// CONTRACT.md §6.9: update_plan is model-visible, deferred and reached through tool_search.
func TestDeferredToolsAreFindable(t *testing.T) {
	t.Parallel()
	_, c, first := firstRequest(services(t, true), posture.Act)
	for _, name := range []string{"update_plan", "handle_read"} {
		if slices.Contains(first, name) {
			t.Errorf("%s is in the first request", name)
		}
		e, ok := c.Lookup(name)
		if !ok || !e.Deferred() {
			t.Fatalf("%s is not a deferred catalog entry", name)
		}
		res, err := c.Search("tool_search", json.RawMessage(`{"query":"`+strings.ReplaceAll(name, "_", " ")+`"}`))
		if err != nil || !slices.Contains(res.References, name) {
			t.Errorf("tool_search does not find %s: %v %v", name, res, err)
		}
	}
}

// Check 4 and 6: removed spellings are not registered and nothing guesses.
// CONTRACT.md §3.4: every removed spelling is unregistered, absent from the catalog and unresolvable, and apply_patch
// resolves to itself.
func TestRemovedSpellingsAndExactResolve(t *testing.T) {
	t.Parallel()
	reg, c, _ := firstRequest(services(t, true), posture.Act)
	removed := []string{"exec_shell", "exec_shell_wait", "exec_wait", "exec_shell_interact", "exec_interact", "exec_shell_cancel",
		"read_file", "list_dir", "grep_files", "file_search", "write_file", "edit_file",
		"git_status", "git_diff", "git_log", "git_show", "git_blame", "run_tests", "run_verifiers",
		"web_search", "fetch_url", "wait_for_dev_server", "agents", "read", "read_file_extra", "Fil", "bash", "BASH", "file"}
	for _, name := range removed {
		if reg.Contains(name) {
			t.Errorf("%s is registered", name)
		}
		if _, ok := c.Lookup(name); ok {
			t.Errorf("%s is in the catalog", name)
		}
		if _, ok := reg.Resolve(name); ok {
			t.Errorf("%s resolved", name)
		}
		_, err := reg.Execute(context.Background(), &tools.Context{Workspace: t.TempDir()}, name, json.RawMessage(`{"path":"x"}`))
		if err == nil || !strings.Contains(err.Error(), "tool '"+name+"' is not registered") {
			t.Errorf("Execute(%s): %v", name, err)
		}
	}
	if got, ok := reg.Resolve("apply_patch"); !ok || got != "apply_patch" {
		t.Error("apply_patch must resolve to itself")
	}
}

// Check 5: the MUST replay aliases are hidden, unsearchable, and behave
// like their canonical action.
// CONTRACT.md §3.5: the replay aliases are registered hidden, keep an enforced legacy schema, and run their canonical
// action (task_list = tasks list, todo_write writes the one ledger).
func TestReplayAliases(t *testing.T) {
	t.Parallel()
	s := services(t, true)
	reg, c, _ := firstRequest(s, posture.Act)
	aliases := []string{"apply_patch", "task_create", "task_list", "task_read", "todo_write", "checklist_write",
		"todo_add", "checklist_add", "todo_update", "checklist_update", "todo_list", "checklist_list"}
	for _, a := range aliases {
		tool, ok := reg.Get(a)
		if !ok || tool.ModelVisible() {
			t.Errorf("%s: registered=%v visible=%v", a, ok, ok && tool.ModelVisible())
			continue
		}
		if _, ok := c.Lookup(a); ok {
			t.Errorf("%s reached the catalog", a)
		}
		res, _ := c.Search("tool_search", json.RawMessage(`{"query":"`+a+`"}`))
		if slices.Contains(res.References, a) {
			t.Errorf("tool_search found %s", a)
		}
	}
	// Their schemas are built on first read (tools.Spec.SchemaFunc) and
	// still enforced.
	for _, a := range aliases {
		if tool, ok := reg.Get(a); ok && tool.InputSchema()["type"] != "object" {
			t.Errorf("%s: schema %v", a, tool.InputSchema())
		}
	}
	for name, in := range map[string]string{
		"todo_update": `{"id": 0, "status": "completed"}`,
		"todo_add":    `{"status": "pending"}`,
		"task_read":   `{"task_id": 7}`,
		"apply_patch": `{"path": "a.txt", "patch": "@@ -1 +1 @@\n-a\n+b\n", "fuzz": "three"}`,
		"update_plan": `{"objective": ["not", "a", "string"]}`,
	} {
		if _, err := reg.Prepare(name, json.RawMessage(in)); err == nil || tools.AsError(err).Kind != tools.KindInvalidInput {
			t.Errorf("%s %s: want a schema refusal, got %v", name, in, err)
		}
	}
	tc := &tools.Context{Workspace: s.Workspace}
	viaAlias, err := reg.Execute(context.Background(), tc, "task_list", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := reg.Execute(context.Background(), tc, "tasks", json.RawMessage(`{"action":"list"}`))
	if err != nil || viaAlias.Content != canonical.Content {
		t.Errorf("task_list{} != tasks{action:list}: %q vs %q (%v)", viaAlias.Content, canonical.Content, err)
	}
	if _, err := reg.Execute(context.Background(), tc, "todo_write", json.RawMessage(`{"todos":[{"content":"a","status":"in_progress"}]}`)); err != nil {
		t.Fatal(err)
	}
	if got := s.WorkState(); !strings.Contains(got, "[~] #1 a") {
		t.Errorf("todo_write did not write the one ledger: %q", got)
	}
}

// The registry's model-visible tools all carry a schema the validator
// compiles, and every default-active name registered this turn is eager.
// CONTRACT.md §4.2: every registered default-active name is eager and every other built-in deferred.
func TestCatalogConsistency(t *testing.T) {
	t.Parallel()
	reg, c, _ := firstRequest(services(t, true), posture.Act)
	for _, e := range c.Entries() {
		if e.Origin != catalog.OriginBuiltin {
			continue
		}
		if _, ok := reg.Get(e.Tool.Name); !ok {
			t.Errorf("catalog entry %s has no registry handler", e.Tool.Name)
		}
		if catalog.IsDefaultActive(e.Tool.Name) == e.Deferred() {
			t.Errorf("%s: deferred=%v", e.Tool.Name, e.Deferred())
		}
		if err := tools.Validate(e.Tool.Name, e.Tool.InputSchema, json.RawMessage(`{}`)); err != nil && strings.Contains(err.Error(), "compile") {
			t.Errorf("%s schema: %v", e.Tool.Name, err)
		}
	}
}

// The Web tool is deferred, found by what people ask for, and its removed
// single-purpose spellings stay unregistered.
// CONTRACT.md §6.10: Web is deferred and found through tool_search.
// README.md "Web and GitHub": Web is deferred in Act and Plan and tool_search finds it for "web search" and "fetch url".
func TestWebIsDeferredAndFindable(t *testing.T) {
	t.Parallel()
	s := services(t, true)
	s.Web = web.New(web.Options{})
	for _, mode := range []posture.Mode{posture.Act, posture.Plan} {
		reg, c, first := firstRequest(s, mode)
		if slices.Contains(first, "Web") {
			t.Fatalf("%v: Web is in the first request", mode)
		}
		if e, ok := c.Lookup("Web"); !ok || !e.Deferred() {
			t.Fatalf("%v: Web is not a deferred entry", mode)
		}
		for _, q := range []string{"web search", "fetch url", "documentation online", "search the internet"} {
			res, err := c.Search("tool_search", json.RawMessage(`{"query":"`+q+`"}`))
			if err != nil || len(res.References) == 0 || res.References[0] != "Web" {
				t.Errorf("%v: tool_search %q: %v %v", mode, q, res, err)
			}
		}
		for _, gone := range []string{"web_search", "fetch_url", "wait_for_dev_server"} {
			if reg.Contains(gone) {
				t.Errorf("%s is registered", gone)
			}
		}
	}
}

// lsp is deferred in every mode, found by what people ask for, and absent
// when [lsp] enabled = false.
// README.md "Language servers": lsp is deferred and absent with [lsp] enabled = false.
func TestLSPIsDeferredAndFindable(t *testing.T) {
	t.Parallel()
	s := services(t, true)
	s.LSP = lsp.New(lsp.Options{Config: lsp.Config{Enabled: true}})
	for _, mode := range []posture.Mode{posture.Act, posture.Plan} {
		_, c, first := firstRequest(s, mode)
		if slices.Contains(first, "lsp") {
			t.Fatalf("%v: lsp is in the first request", mode)
		}
		if e, ok := c.Lookup("lsp"); !ok || !e.Deferred() {
			t.Fatalf("%v: lsp is not a deferred entry", mode)
		}
		for _, q := range []string{"language server", "go to definition", "references", "diagnostics", "rename symbol"} {
			res, err := c.Search("tool_search", json.RawMessage(`{"query":"`+q+`"}`))
			if err != nil || len(res.References) == 0 || res.References[0] != "lsp" {
				t.Errorf("%v: tool_search %q: %v %v", mode, q, res, err)
			}
		}
	}
	s.LSP = lsp.New(lsp.Options{Config: lsp.Config{Enabled: false}})
	if reg, _, _ := firstRequest(s, posture.Act); reg.Contains("lsp") {
		t.Fatal("lsp is registered with [lsp] enabled = false")
	}
}

// github is deferred, offers only its read actions in Plan, and its replay
// aliases stay hidden from the catalog and from tool_search.
// CONTRACT.md §3.6: tool_search finds and loads github but never its aliases, which stay out of the catalog
// every request is built from.
// README.md "Web and GitHub": github is deferred, Plan offers only its read actions, and the github_* replay spellings are registered but never advertised.
func TestGitHubFamily(t *testing.T) {
	t.Parallel()
	s := services(t, true)
	for _, mode := range []posture.Mode{posture.Act, posture.Plan} {
		reg, c, first := firstRequest(s, mode)
		if slices.Contains(first, "github") {
			t.Fatalf("%v: github in the first request", mode)
		}
		if e, ok := c.Lookup("github"); !ok || !e.Deferred() {
			t.Fatalf("%v: github is not deferred", mode)
		}
		for _, q := range []string{"github issue", "pull request"} {
			res, err := c.Search("tool_search", json.RawMessage(`{"query":"`+q+`"}`))
			if err != nil || len(res.References) == 0 || res.References[0] != "github" {
				t.Errorf("%v: tool_search %q: %v", mode, q, res)
			}
			for _, ref := range res.References {
				if strings.HasPrefix(ref, "github_") {
					t.Errorf("alias %s found by tool_search", ref)
				}
			}
		}
		aliases := []string{"github_issue_context", "github_pr_context"}
		if mode == posture.Act {
			aliases = append(aliases, "github_comment", "github_close_issue", "github_close_pr")
		} else if reg.Contains("github_comment") {
			t.Error("Plan registers github_comment")
		}
		for _, a := range aliases {
			tool, ok := reg.Get(a)
			if !ok || tool.ModelVisible() {
				t.Errorf("%v: alias %s registered=%v visible", mode, a, ok)
			}
			if _, ok := c.Lookup(a); ok {
				t.Errorf("%v: alias %s in the catalog", mode, a)
			}
		}
		gh, _ := reg.Get("github")
		schema, _ := json.Marshal(gh.InputSchema())
		if mode == posture.Plan && strings.Contains(string(schema), "close_issue") {
			t.Errorf("Plan's github schema offers close_issue: %s", schema)
		}
	}
}

// automation is deferred, read-only in Plan, found by what people ask for,
// and its replay aliases stay hidden.
// README.md "Automations": automation is deferred and Plan offers only list and read.
func TestAutomationFamily(t *testing.T) {
	t.Parallel()
	s := services(t, true)
	store, err := auto.Open(filepath.Join(t.TempDir(), "automations"))
	if err != nil {
		t.Fatal(err)
	}
	s.Automations = store
	for _, mode := range []posture.Mode{posture.Act, posture.Plan} {
		reg, c, first := firstRequest(s, mode)
		if slices.Contains(first, "automation") {
			t.Fatalf("%v: automation in the first request", mode)
		}
		if e, ok := c.Lookup("automation"); !ok || !e.Deferred() {
			t.Fatalf("%v: automation not deferred", mode)
		}
		for _, q := range []string{"schedule recurring", "cron"} {
			res, err := c.Search("tool_search", json.RawMessage(`{"query":"`+q+`"}`))
			if err != nil || len(res.References) == 0 || res.References[0] != "automation" {
				t.Errorf("%v: tool_search %q: %v", mode, q, res)
			}
		}
		if _, ok := reg.Get("automation_list"); !ok {
			t.Errorf("%v: automation_list not registered", mode)
		}
		if _, ok := c.Lookup("automation_list"); ok {
			t.Errorf("%v: alias in the catalog", mode)
		}
		if _, ok := reg.Get("automation_create"); ok == (mode == posture.Plan) {
			t.Errorf("%v: automation_create registered=%v", mode, ok)
		}
	}
	if c := toolset.Ceiling(engine.TurnEnv{Posture: posture.Ask, AllowShell: true}); c.AutoApprove || !c.AllowShell || c.TrustMode {
		t.Errorf("Ask ceiling %+v", c)
	}
	if c := toolset.Ceiling(engine.TurnEnv{Posture: posture.FullAccess}); !c.AutoApprove || !c.AllowShell || !c.TrustMode {
		t.Errorf("Full Access ceiling %+v", c)
	}
}

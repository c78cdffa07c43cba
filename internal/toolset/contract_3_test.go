package toolset_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/testutil/fstree"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/tools/rlm"
	"github.com/codewhale/codewhale/internal/tools/web"
	"github.com/codewhale/codewhale/internal/toolset"
)

// fullServices is a session with every optional service: Web, rlm,
// automations, language servers and one skill, besides services' stores.
func fullServices(t *testing.T) *toolset.Services {
	t.Helper()
	s := services(t, true)
	s.Web, s.RLM = web.New(web.Options{}), rlm.New(rlm.Options{})
	store, err := auto.Open(filepath.Join(t.TempDir(), "automations"))
	if err != nil {
		t.Fatal(err)
	}
	s.Automations = store
	s.LSP = lsp.New(lsp.Options{Config: lsp.Config{Enabled: true}})
	fstree.Write(t, s.Workspace, map[string]string{".codewhale/skills/s/SKILL.md": "---\ndescription: a skill\n---\nDo it.\n"})
	ctx := projectctx.Load(projectctx.Options{Workspace: s.Workspace})
	s.Skills = func() *projectctx.State { return ctx.State() }
	return s
}

// everyEnv is each mode, under Ask and under Full Access, shell allowed.
var everyEnv = []engine.TurnEnv{
	{Mode: posture.Plan, AllowShell: true}, {Mode: posture.Act, AllowShell: true}, {Mode: posture.Operate, AllowShell: true},
	{Mode: posture.Plan, Posture: posture.FullAccess}, {Mode: posture.Act, Posture: posture.FullAccess},
}

// enum is a schema's action list, or nil.
func enum(tl tools.Tool) []string {
	props, _ := tl.InputSchema()["properties"].(map[string]any)
	action, _ := props["action"].(map[string]any)
	var out []string
	for _, v := range asList(action["enum"]) {
		out = append(out, v.(string))
	}
	return out
}

func asList(v any) []any {
	switch l := v.(type) {
	case []any:
		return l
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out
	}
	return nil
}

// CONTRACT.md §2.1: every built-in tool is typed — it decides each call's
// policy in Prepare — in every mode and posture, aliases included.
func TestContract21EveryBuiltinToolIsTyped(t *testing.T) {
	t.Parallel()
	s := fullServices(t)
	for _, env := range everyEnv {
		for _, tl := range s.Registry(env).Tools() {
			if _, ok := tl.(tools.Preparer); !ok {
				t.Errorf("%v: %s has no Prepare", env.Mode, tl.Name())
			}
		}
	}
}

// CONTRACT.md §2.4: File, Git, Run and Web require `action` and refuse a
// call without one, the families in their short words (a non-string
// action too), each listing what this instance runs (Plan's lists
// included); Bash runs `run`; and every family refuses a key outside the
// action's row before anything runs, in the shared words unless it words
// the refusal itself (File, Run, agent).
func TestContract24FamiliesOfTheRegistry(t *testing.T) {
	t.Parallel()
	s := fullServices(t)
	seen := map[string]bool{}
	for _, mode := range []posture.Mode{posture.Plan, posture.Act} {
		reg := s.Registry(engine.TurnEnv{Mode: mode, AllowShell: true})
		for _, tl := range reg.Tools() {
			actions := enum(tl)
			if len(actions) == 0 || !tl.ModelVisible() || tl.Name() == "remember" {
				continue // remember's action is a value of a single-purpose tool
			}
			seen[tl.Name()] = true
			list := strings.Join(actions, ", ")
			missing := map[string]string{
				"File": "File requires an `action` parameter; nothing was run. Pass one of: " + list + ".",
				"Git":  "Git requires an `action` parameter; nothing was run. Pass one of: " + list + ".",
				"Run":  "Run requires an `action` parameter; nothing was run. Pass one of: " + list + ".",
				"Web":  "Web requires an `action` parameter; nothing was run. Pass one of: " + list + ".",
			}
			for _, fam := range []string{"tasks", "github", "automation", "rlm"} {
				missing[fam] = fam + ": missing `action` (one of: " + list + ")"
			}
			if want, ok := missing[tl.Name()]; ok {
				required := asList(tl.InputSchema()["required"])
				if !slices.Contains(required, any("action")) {
					t.Errorf("%v %s: action is not required: %v", mode, tl.Name(), required)
				}
				for _, in := range []string{`{}`, `{"path":"a"}`} {
					if _, err := reg.Prepare(tl.Name(), json.RawMessage(in)); err == nil || tools.AsError(err).Msg != want {
						t.Errorf("%v %s %s: %v\nwant %s", mode, tl.Name(), in, err, want)
					}
				}
			}
			if strings.Contains(missing[tl.Name()], ": missing") {
				if _, err := reg.Prepare(tl.Name(), json.RawMessage(`{"action":5}`)); err == nil || tools.AsError(err).Msg != missing[tl.Name()] {
					t.Errorf("%v %s: a non-string action: %v", mode, tl.Name(), err)
				}
			}
			for _, a := range actions {
				extra := "" // tasks resolves a missing task_id (to the active task) first
				if tl.Name() == "tasks" && (a == "read" || a == "cancel") {
					extra = `"task_id":"t1",`
				}
				_, err := reg.Prepare(tl.Name(), json.RawMessage(`{`+extra+`"action":"`+a+`","zzz_unknown":1}`))
				if err == nil || tools.AsError(err).Kind != tools.KindInvalidInput || !strings.Contains(err.Error(), "zzz_unknown") {
					t.Errorf("%v %s %s: an unknown key: %v", mode, tl.Name(), a, err)
					continue
				}
				want := tl.Name() + " " + a + " does not take `zzz_unknown`; nothing was run. Its fields are: action"
				if own := tl.Name() == "File" || tl.Name() == "Run" || tl.Name() == "agent"; !own && !strings.HasPrefix(tools.AsError(err).Msg, want) {
					t.Errorf("%v %s %s: %q\nwant it to start %q", mode, tl.Name(), a, tools.AsError(err).Msg, want)
				}
			}
		}
	}
	for _, fam := range []string{"Bash", "File", "Git", "Run", "Web", "agent", "automation", "github", "lsp", "rlm", "tasks"} {
		if !seen[fam] {
			t.Errorf("the family %s was not checked", fam)
		}
	}
	reg := s.Registry(engine.TurnEnv{Mode: posture.Act, AllowShell: true})
	bash, _ := reg.Get("Bash")
	if slices.Contains(asList(bash.InputSchema()["required"]), any("action")) {
		t.Error("Bash requires action; it defaults to run")
	}
	c, err := reg.Prepare("Bash", json.RawMessage(`{"command":"echo contract"}`))
	if err != nil || !strings.Contains(string(c.Input), `"action":"run"`) {
		t.Errorf("Bash without action: %v %s; want run", err, c.Input)
	}
}

// CONTRACT.md §3.2: the rows that depend on a service or switch: File on
// its read-before-edit store, agent on the depth, rlm on its service,
// lsp on [lsp] enabled and load_skill on a skill (both in Plan too), and
// handle_read in Plan on the handle store alone.
// README.md "rlm: Python over big content": rlm is not offered in Plan.
func TestContract32ConditionalRows(t *testing.T) {
	t.Parallel()
	for _, mode := range []posture.Mode{posture.Plan, posture.Act} {
		env := engine.TurnEnv{Mode: mode, AllowShell: true}
		full := fullServices(t).Registry(env)
		for _, name := range []string{"lsp", "load_skill", "handle_read", "File", "agent"} {
			if !full.Contains(name) {
				t.Errorf("%v: %s is not registered with its service", mode, name)
			}
		}
		if full.Contains("rlm") != (mode != posture.Plan) {
			t.Errorf("%v: rlm registered = %v", mode, full.Contains("rlm"))
		}
		bare := services(t, true)
		bare.ReadStamps, bare.RLM, bare.Agents = nil, nil, agent.NewManager(agent.Options{Depth: 1, MaxDepth: 1})
		reg := bare.Registry(env)
		for _, name := range []string{"lsp", "load_skill", "File", "agent", "rlm"} {
			if reg.Contains(name) {
				t.Errorf("%v: %s is registered without its service", mode, name)
			}
		}
		if !reg.Contains("handle_read") {
			t.Errorf("%v: handle_read needs only the handle store", mode)
		}
	}
}

// turnResults runs one turn of a real engine over s's registry in which
// the model calls names, and returns what each call got back.
func turnResults(t *testing.T, s *toolset.Services, names ...string) []engine.ToolOutcome {
	t.Helper()
	var calls []fakemodel.Call
	for i, n := range names {
		calls = append(calls, fakemodel.Call{ID: "c" + string(rune('a'+i)), Name: n, Args: `{}`})
	}
	srv := fakemodel.New(t, fakemodel.Tools(calls...), fakemodel.Text("done"))
	retry := provider.RetryPolicy{Enabled: true, MaxRetries: 3, InitialDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, ExponentialBase: 2}
	e := engine.New(engine.Options{Workspace: s.Workspace, Model: "deepseek-v4-pro", AutoApprove: true, Tools: s.Toolset,
		NewClient: func(model string) (*provider.Client, error) {
			return provider.New(provider.Config{BaseURL: srv.URL, Model: model, Retry: retry})
		}})
	ctx, cancel := context.WithCancel(context.Background())
	go e.Run(ctx)
	t.Cleanup(func() {
		cancel()
		for range e.Events() {
		}
	})
	e.Submit(engine.SendMessage{Content: "go"})
	var out []engine.ToolOutcome
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-e.Events():
			switch ev := ev.(type) {
			case engine.ToolCallComplete:
				out = append(out, ev.Result)
			case engine.TurnComplete:
				return out
			}
		case <-timeout:
			t.Fatal("the turn did not complete")
		}
	}
}

// CONTRACT.md §3.3: the engine answers a name with no execution path with
// the registry's text and one hint, word for word: the Bash rename per
// action, the To-do hint, the suggestions, or the fallback.
func TestContract33UnknownNameHints(t *testing.T) {
	t.Parallel()
	s := toolset.NewServices(toolset.Options{Workspace: t.TempDir()})
	names := []string{"exec_shell_wait", "exec_shell_cancel", "todos", "plan_item", "work_updates", "qqqqqqqqqqqq"}
	res := turnResults(t, s, names...)
	want := []string{
		"tool 'exec_shell_wait' is not registered. `exec_shell` was renamed to `Bash` — call `Bash` with action \"wait\" instead. " +
			"If `Bash` is also absent: shell is unavailable in Plan mode or with allow_shell = false; " +
			"`/config allow_shell true` (`--save` to persist) restores it next turn.",
		"tool 'exec_shell_cancel' is not registered. `exec_shell` was renamed to `Bash` — call `Bash` with action \"cancel\" instead.",
		"tool 'todos' is not registered. To-do entries are not separate tool calls: send the whole list in one `work_update` " +
			"call with a `todos` array of {content, status}.",
		"tool 'plan_item' is not registered. To-do entries are not separate tool calls:",
		"tool 'work_updates' is not registered. Did you mean: work_update? These are suggestions only; call a listed tool " +
			"by its exact name, or use tool_search with a short query.",
		"tool 'qqqqqqqqqqqq' is not registered. Verify mode/feature flags, or use tool_search with a short query.",
	}
	if len(res) != len(want) {
		t.Fatalf("%d results for %d calls", len(res), len(want))
	}
	for i, r := range res {
		if !r.IsError || !strings.Contains(r.Content, want[i]) {
			t.Errorf("%s:\n got %q\nwant %q", names[i], r.Content, want[i])
		}
	}
	if got := s.WorkState(); got != "" {
		t.Errorf("a near-miss reached work_update: %q", got)
	}
}

// CONTRACT.md §3.4: no removed spelling is registered in any mode or
// posture, with every service present.
func TestContract34RemovedInEveryMode(t *testing.T) {
	t.Parallel()
	removed := []string{"exec_shell", "exec_shell_wait", "exec_wait", "exec_shell_interact", "exec_interact",
		"exec_shell_cancel", "read_file", "list_dir", "grep_files", "file_search", "write_file", "edit_file", "git_status",
		"git_diff", "git_log", "git_show", "git_blame", "run_tests", "run_verifiers", "web_search", "fetch_url",
		"wait_for_dev_server"}
	s := fullServices(t)
	for _, env := range everyEnv {
		reg := s.Registry(env)
		for _, name := range removed {
			if _, ok := reg.Resolve(name); ok {
				t.Errorf("%v %v: %s is registered", env.Mode, env.Posture, name)
			}
		}
	}
}

// CONTRACT.md §3.5: every hidden alias publishes a schema without
// `action`, built on first read (no schema held beforehand); each action
// alias runs its one action (the refusal of an unknown key names it); and
// Plan keeps only the read aliases.
func TestContract35AliasesOfTheRegistry(t *testing.T) {
	t.Parallel()
	s := fullServices(t)
	plan := map[string]bool{}
	for _, mode := range []posture.Mode{posture.Plan, posture.Act} {
		reg := s.Registry(engine.TurnEnv{Mode: mode, AllowShell: true})
		for _, tl := range reg.Tools() {
			if tl.ModelVisible() {
				continue
			}
			if mode == posture.Plan {
				plan[tl.Name()] = true
			}
			if spec := reflect.ValueOf(tl).Elem().FieldByName("Spec"); !spec.IsValid() ||
				!spec.FieldByName("Schema").IsNil() || spec.FieldByName("SchemaFunc").IsNil() {
				t.Errorf("%s: its schema is not built on first read", tl.Name())
			}
			schema := tl.InputSchema()
			props, _ := schema["properties"].(map[string]any)
			if _, ok := props["action"]; ok || slices.Contains(asList(schema["required"]), any("action")) {
				t.Errorf("%v %s: the schema has action: %v", mode, tl.Name(), schema)
			}
			for _, fam := range []string{"github", "automation", "rlm"} {
				action, ok := strings.CutPrefix(tl.Name(), fam+"_")
				if !ok {
					continue
				}
				_, err := reg.Prepare(tl.Name(), json.RawMessage(`{"action":"bogus","zzz_unknown":1}`))
				if want := fam + " " + action + " does not take `zzz_unknown`"; err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %v; want the refusal of %s %s", tl.Name(), err, fam, action)
				}
			}
		}
	}
	want := []string{"automation_list", "automation_read", "checklist_add", "checklist_list", "checklist_update",
		"checklist_write", "github_issue_context", "github_pr_context", "task_list", "task_read", "todo_add", "todo_list",
		"todo_update", "todo_write"}
	if got := slices.Sorted(func(yield func(string) bool) {
		for n := range plan {
			if !yield(n) {
				return
			}
		}
	}); !slices.Equal(got, want) {
		t.Errorf("Plan's aliases %v\nwant %v", got, want)
	}
}

// CONTRACT.md §3.6: the catalog holds exactly APITools and tool_search;
// a search that matches everything finds no hidden name, and loading all
// it finds brings none into the request.
func TestContract36HiddenStaysHidden(t *testing.T) {
	t.Parallel()
	s := fullServices(t)
	for _, mode := range []posture.Mode{posture.Plan, posture.Act} {
		reg := s.Registry(engine.TurnEnv{Mode: mode, AllowShell: true})
		var visible []string
		for _, pt := range reg.APITools() {
			visible = append(visible, pt.Name)
		}
		c := catalog.Build(reg, catalog.MCPInfo{}, catalog.Options{Mode: mode, AllowShell: true})
		if got := c.Names(); !slices.Equal(got, append(slices.Clone(visible), "tool_search")) {
			t.Errorf("%v: catalog %v\nwant APITools %v and tool_search", mode, got, visible)
		}
		res, err := c.Search("tool_search", json.RawMessage(`{"query":".","match":"regex","max_results":100}`))
		if err != nil || len(res.References) == 0 {
			t.Fatalf("%v: search everything: %v %v", mode, res, err)
		}
		for _, name := range visible {
			if e, _ := c.Lookup(name); e.Deferred() && !slices.Contains(res.References, name) {
				t.Errorf("%v: the search for everything missed %s", mode, name)
			}
		}
		c.Activate(res.References...)
		for _, pt := range c.RequestTools() {
			if tl, _ := reg.Get(pt.Name); tl != nil && !tl.ModelVisible() {
				t.Errorf("%v: hidden %s reached the request", mode, pt.Name)
			}
		}
		for _, ref := range res.References {
			if tl, _ := reg.Get(ref); tl != nil && !tl.ModelVisible() {
				t.Errorf("%v: tool_search found hidden %s", mode, ref)
			}
		}
	}
}

// CONTRACT.md §3.7: there are no plugin tools: with every service present
// and no MCP server, each registered name is a built-in the sub-agent
// loader knows (toolset.KnownTool), nothing else.
func TestContract37OnlyBuiltins(t *testing.T) {
	t.Parallel()
	s := fullServices(t)
	for _, env := range everyEnv {
		for _, name := range s.Registry(env).Names() {
			if ok, _ := toolset.KnownTool(name); !ok || strings.HasPrefix(name, "mcp_") {
				t.Errorf("%v: %s is no built-in", env.Mode, name)
			}
		}
	}
}

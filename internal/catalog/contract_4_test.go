package catalog_test

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/testutil/fstree"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/tools/rlm"
	"github.com/codewhale/codewhale/internal/tools/tasks"
	"github.com/codewhale/codewhale/internal/tools/web"
	"github.com/codewhale/codewhale/internal/toolset"
)

// described is a registry of fixtures with their own descriptions.
func described(pairs ...string) *tools.Registry {
	reg := tools.NewRegistry()
	for i := 0; i+1 < len(pairs); i += 2 {
		reg.Register(&fixture{tools.Spec{ToolName: pairs[i], Desc: pairs[i+1],
			Schema: map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}}})
	}
	return reg
}

// everything is a session's services with every optional tool present:
// jobs, tasks, sub-agents, Web, rlm, automations, language servers and a
// skill; mcp registers fixture MCP adapters after the built-ins.
func everything(t *testing.T, memory bool, mcp catalog.MCPInfo) *toolset.Services {
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
	autos, err := auto.Open(filepath.Join(dir, "automations"))
	if err != nil {
		t.Fatal(err)
	}
	s.Jobs, s.Tasks, s.Automations = jm, store, autos
	s.Agents = agent.NewManager(agent.Options{})
	s.Web, s.RLM = web.New(web.Options{}), rlm.New(rlm.Options{})
	s.LSP = lsp.New(lsp.Options{Config: lsp.Config{Enabled: true}})
	fstree.Write(t, dir, map[string]string{".codewhale/skills/s/SKILL.md": "---\ndescription: a skill\n---\nDo it.\n"})
	pc := projectctx.Load(projectctx.Options{Workspace: dir})
	s.Skills = func() *projectctx.State { return pc.State() }
	s.Extra = func(reg *tools.Registry, _ engine.TurnEnv) {
		for name := range mcp.Servers {
			reg.Register(&fixture{tools.Spec{ToolName: name, Desc: "An MCP tool.", Schema: map[string]any{"type": "object"}}})
		}
	}
	s.MCPInfo = func() catalog.MCPInfo { return mcp }
	return s
}

// build is the catalog a turn in env builds from s.
func build(s *toolset.Services, env engine.TurnEnv) *catalog.Catalog {
	ts := s.Toolset(env)
	return catalog.Build(ts.Registry, ts.MCP, catalog.Options{Mode: env.Mode, Posture: env.Posture, AllowShell: env.AllowShell})
}

// CONTRACT.md §4.1: a native name in always_load and a tool_search spelling are eager; MCP entries follow the
// native block, so MCP churn never moves a native entry; a denied tool_search is not appended again; when the lists
// leave only deferred entries the first is active; a load never moves the eager head, and loads sort among
// themselves in catalog order; a catalog the lists empty sends no tools field.
func TestContractPerTurnBuild(t *testing.T) {
	t.Parallel()
	reg := registry("File", "Web", "update_plan", "lsp", "tool_search_tool_bm25")
	c := catalog.Build(reg, catalog.MCPInfo{}, catalog.Options{AlwaysLoad: []string{"lsp"}})
	if got := names(c.RequestTools()); got != "File,lsp,tool_search_tool_bm25,tool_search" {
		t.Errorf("always_load and the tool_search spelling must be eager: %s", got)
	}

	// MCP churn: whatever MCP tools come and go, the native entries keep their
	// place and bytes.
	native := func(mcp ...string) []byte {
		all := append([]string{"Bash", "File", "zeta"}, mcp...)
		info := catalog.MCPInfo{Servers: map[string]string{}}
		for _, m := range mcp {
			info.Servers[m] = "s"
		}
		c := catalog.Build(registry(all...), info, catalog.Options{})
		es := c.Entries()
		if last := es[len(es)-1]; last.Tool.Name != catalog.ToolSearchName || last.Origin != catalog.OriginSynthetic {
			t.Errorf("tool_search is not last: %s", last.Tool.Name)
		}
		var b bytes.Buffer
		for _, e := range es[:3] {
			if e.Origin != catalog.OriginBuiltin {
				t.Errorf("%s in the native block is %s", e.Tool.Name, e.Origin)
			}
			raw, _ := json.Marshal(e.Tool)
			b.Write(raw)
		}
		return b.Bytes()
	}
	if a, b := native(), native("mcp_a_a", "mcp_b_b", "mcp_0"); !bytes.Equal(a, b) {
		t.Error("MCP tools moved or changed a native entry")
	}

	for _, deny := range []string{"TOOL_SEARCH", "tool_*"} {
		c := catalog.Build(reg, catalog.MCPInfo{}, catalog.Options{Deny: []string{deny}})
		if _, ok := c.Lookup(catalog.ToolSearchName); ok || c.IsActive(catalog.ToolSearchName) {
			t.Errorf("deny %s: tool_search came back", deny)
		}
	}

	only := catalog.Build(reg, catalog.MCPInfo{}, catalog.Options{Allow: []string{"Web", "update_plan"}})
	if got := names(only.RequestTools()); got != "Web" || only.IsActive("update_plan") {
		t.Errorf("only deferred entries left: request %q, want the first entry alone", got)
	}
	if none := catalog.Build(reg, catalog.MCPInfo{}, catalog.Options{Deny: []string{"*"}}); none.RequestTools() != nil || len(none.Entries()) != 0 {
		t.Error("a catalog the lists emptied must send no tools field")
	}

	c = catalog.Build(registry("Bash", "File", "a_deferred", "m_deferred", "z_deferred"), catalog.MCPInfo{}, catalog.Options{})
	head, _ := json.Marshal(c.RequestTools())
	head = head[:len(head)-1] // the eager entries, without the closing bracket
	for _, step := range []struct{ load, want string }{
		{"m_deferred", "Bash,File,tool_search,m_deferred"},
		{"z_deferred", "Bash,File,tool_search,m_deferred,z_deferred"},
		{"a_deferred", "Bash,File,tool_search,a_deferred,m_deferred,z_deferred"},
	} {
		c.Activate(step.load)
		sent := c.RequestTools()
		raw, _ := json.Marshal(sent)
		if got := names(sent); got != step.want || !bytes.HasPrefix(raw, head) {
			t.Errorf("after loading %s: %s (head kept: %v)", step.load, got, bytes.HasPrefix(raw, head))
		}
	}
}

// CONTRACT.md §4.2: the one default-active list; with every optional service present, exactly update_plan,
// handle_read, Web, github, automation, rlm, lsp, read_media and load_skill are deferred among the built-ins; a
// default-active name not registered this turn is simply absent.
func TestContractDefaultActive(t *testing.T) {
	t.Parallel()
	if got := strings.Join(catalog.DefaultActiveNativeTools, ","); got != "Bash,File,Git,Run,agent,remember,tasks,work_update" {
		t.Errorf("DefaultActiveNativeTools %s", got)
	}
	c := build(everything(t, true, catalog.MCPInfo{}), engine.TurnEnv{Mode: posture.Act, AllowShell: true})
	var deferred []string
	for _, e := range c.Entries() {
		if e.Origin == catalog.OriginBuiltin && e.Deferred() {
			deferred = append(deferred, e.Tool.Name)
		}
		if e.Deferred() == catalog.IsDefaultActive(e.Tool.Name) {
			t.Errorf("%s: deferred %v", e.Tool.Name, e.Deferred())
		}
	}
	slices.Sort(deferred)
	if got := strings.Join(deferred, ","); got != "Web,automation,github,handle_read,load_skill,lsp,read_media,rlm,update_plan" {
		t.Errorf("deferred built-ins %s", got)
	}
	off := build(everything(t, false, catalog.MCPInfo{}), engine.TurnEnv{Mode: posture.Act, AllowShell: true})
	if got := names(off.RequestTools()); got != "Bash,File,Git,Run,agent,tasks,work_update,tool_search" {
		t.Errorf("memory off: %s", got)
	}
	few := catalog.Build(registry("File", "Web", "tasks"), catalog.MCPInfo{}, catalog.Options{})
	if got := names(few.RequestTools()); got != "File,tasks,tool_search" {
		t.Errorf("unregistered default-active names: %s", got)
	}
}

// CONTRACT.md §4.3: the synthetic entry word for word, always eager and last, and never a registry entry.
// README.md "Tools": tool_search matches by bm25 or regex and returns 20 results by default.
func TestContractToolSearchEntry(t *testing.T) {
	t.Parallel()
	reg := registry("File", "Web")
	c := catalog.Build(reg, catalog.MCPInfo{}, catalog.Options{Mode: posture.Plan})
	e, ok := c.Lookup(catalog.ToolSearchName)
	if !ok || e.Deferred() || !c.IsActive(catalog.ToolSearchName) || e.Origin != catalog.OriginSynthetic || reg.Contains(catalog.ToolSearchName) {
		t.Fatalf("tool_search: present %v, deferred %v, origin %v", ok, ok && e.Deferred(), e)
	}
	raw, _ := json.Marshal(e.Tool)
	want := `{"type":"tool_search_20251119","name":"tool_search","description":"Search deferred tool definitions and return matching tool references.",` +
		`"input_schema":{"properties":{"match":{"default":"bm25","enum":["bm25","regex"],"type":"string"},` +
		`"max_results":{"default":20,"maximum":100,"minimum":1,"type":"integer"},` +
		`"query":{"description":"Search query for tool discovery.","type":"string"}},"required":["query"],"type":"object"},` +
		`"allowed_callers":["direct"],"defer_loading":false}`
	if string(raw) != want {
		t.Errorf("entry\n got %s\nwant %s", raw, want)
	}
}

// CONTRACT.md §4.3: the haystack holds description and schema too; bm25 scores +1 per term in the haystack and +2
// more in the name, best first, ties by name, zero scores left out; regex returns hits in catalog order; the legacy
// names force their mode; a deferred hit is loaded and an eager one referenced; a hit beyond catalog.MaxActive is an
// unavailable reference saying so.
func TestContractToolSearchMatching(t *testing.T) {
	t.Parallel()
	reg := described(
		"foo_tool", "Nothing to see.",
		"bar_x", "Nothing here either.",
		"zz", "Does foo and bar.",
		"quiet", "Unrelated.",
		"zeta_probe", "Probe.",
		"mcp_a_probe", "Probe.",
		"File", "Files.")
	c := catalog.Build(reg, catalog.MCPInfo{Servers: map[string]string{"mcp_a_probe": "a"}}, catalog.Options{})
	res, err := c.Search("tool_search", json.RawMessage(`{"query":"FOO bar"}`))
	if err != nil || strings.Join(res.References, ",") != "bar_x,foo_tool,zz" {
		t.Errorf("bm25: %v %v (bar_x and foo_tool score 3 and tie by name, zz scores 2, quiet 0)", res, err)
	}
	if res, _ = c.Search("tool_search", json.RawMessage(`{"query":"probe"}`)); strings.Join(res.References, ",") != "mcp_a_probe,zeta_probe" {
		t.Errorf("bm25 ties by name across blocks: %v", res.References)
	}
	if res, _ = c.Search("tool_search", json.RawMessage(`{"query":"probe","match":"regex"}`)); strings.Join(res.References, ",") != "zeta_probe,mcp_a_probe" {
		t.Errorf("regex keeps catalog order: %v", res.References)
	}
	if res, _ = c.Search("tool_search", json.RawMessage(`{"query":"unrelated\\.\\n\\{","match":"regex"}`)); strings.Join(res.References, ",") != "quiet" {
		t.Errorf("the description and schema lines: %v", res.References)
	}
	// The legacy bm25 name ignores match: "(" is no regex error there.
	if _, err := c.Search("tool_search_tool_bm25", json.RawMessage(`{"query":"(","match":"regex"}`)); err != nil {
		t.Errorf("tool_search_tool_bm25 ran a regex: %v", err)
	}
	if _, err := c.Search("tool_search_tool_regex", json.RawMessage(`{"query":"(","match":"bm25"}`)); err == nil {
		t.Error("tool_search_tool_regex ran bm25")
	}
	c = catalog.Build(reg, catalog.MCPInfo{}, catalog.Options{})
	res, _ = c.Search("tool_search", json.RawMessage(`{"query":"files zz"}`))
	if strings.Join(res.References, ",") != "zz,File" || strings.Join(res.Loaded, ",") != "zz" || !c.IsActive("zz") {
		t.Errorf("an eager hit is referenced, a deferred one loaded: %+v", res)
	}

	var many []string
	for i := range catalog.MaxActive + 10 {
		many = append(many, fmt.Sprintf("t%03d", i))
	}
	full := catalog.Build(registry(many...), catalog.MCPInfo{}, catalog.Options{})
	res, _ = full.Search("tool_search", json.RawMessage(`{"query":"^t","match":"regex","max_results":100}`))
	res2, _ := full.Search("tool_search", json.RawMessage(`{"query":"^t(0[4-9]|1)","match":"regex","max_results":100}`))
	if len(full.RequestTools()) != catalog.MaxActive || len(res.Unavailable) != 0 || len(res2.Unavailable) == 0 {
		t.Fatalf("%d tools sent, unavailable %d then %d", len(full.RequestTools()), len(res.Unavailable), len(res2.Unavailable))
	}
	if u := res2.Unavailable[0]; u["type"] != "unavailable_tool_reference" ||
		!strings.Contains(u["reason"].(string), "already carries the most tools it may (128)") {
		t.Errorf("over the cap: %v", u)
	}
}

// CONTRACT.md §4.3: a missing Bash or File that matches fills a spare slot with an unavailable reference naming its
// gate, a user command's allowed-tools and Full Access's shell included; no spare slot, no reference; the exact
// compact content, each reference's keys in the contract's order.
func TestContractToolSearchNamesTheGate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		reg  []string
		opts catalog.Options
		want string
	}{
		{"plan", []string{"File"}, catalog.Options{Mode: posture.Plan, AllowShell: true}, "Bash is unavailable in Plan mode; switch to Act mode (`/mode act`) to run commands"},
		{"denied", []string{"Bash", "File"}, catalog.Options{AllowShell: true, Deny: []string{"BASH"}}, "Bash is in the disallowed-tools list"},
		{"not allowed", []string{"Bash", "File"}, catalog.Options{AllowShell: true, Allow: []string{"F*", "tool_search"}}, "Bash is not in the allowed-tools list for the current command"},
		{"command's list", []string{"Bash", "File"}, catalog.Options{AllowShell: true, CommandAllow: []string{"File", "tool_search"}}, "Bash is not in the allowed-tools list for the current command"},
		{"shell off", []string{"File"}, catalog.Options{}, "shell is disabled (allow_shell = false); `/config allow_shell true` restores it next turn"},
		{"Full Access, no job manager", []string{"File"}, catalog.Options{Posture: posture.FullAccess}, "Bash is not registered this turn"},
	} {
		c := catalog.Build(registry(tc.reg...), catalog.MCPInfo{}, tc.opts)
		res, err := c.Search("tool_search", json.RawMessage(`{"query":"shell"}`))
		if err != nil || len(res.Unavailable) != 1 || res.Unavailable[0]["tool_name"] != "Bash" || res.Unavailable[0]["reason"] != tc.want {
			t.Errorf("%s: %v %v", tc.name, res, err)
		}
	}
	for _, tc := range []struct {
		opts catalog.Options
		want string
	}{
		{catalog.Options{Deny: []string{"file"}}, "File is in the disallowed-tools list"},
		{catalog.Options{CommandAllow: []string{"Git", "tool_search"}}, "File is not in the allowed-tools list for the current command"},
	} {
		c := catalog.Build(registry("Bash", "File", "Git"), catalog.MCPInfo{}, tc.opts)
		res, _ := c.Search("tool_search", json.RawMessage(`{"query":"workspace files"}`))
		if got := fmt.Sprint(res.Unavailable); !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %s", tc.opts, got)
		}
	}
	c := catalog.Build(registry("File", "shell_notes"), catalog.MCPInfo{}, catalog.Options{Mode: posture.Plan})
	res, _ := c.Search("tool_search", json.RawMessage(`{"query":"shell","max_results":1}`))
	if strings.Join(res.References, ",") != "shell_notes" || len(res.Unavailable) != 0 {
		t.Errorf("no spare slot: %+v", res)
	}
	res, _ = c.Search("tool_search", json.RawMessage(`{"query":"shell notes"}`))
	want := `{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"shell_notes"}],` +
		`"unavailable_tool_references":[{"type":"unavailable_tool_reference","tool_name":"Bash","reason":"Bash is unavailable ` +
		"in Plan mode; switch to Act mode (`/mode act`) to run commands\"}]}"
	if got := res.Content(); got != want {
		t.Errorf("content\n got %s\nwant %s", got, want)
	}
}

// CONTRACT.md §4.4: a load lasts for the rest of the turn: every later request of the turn carries the tool, and
// loading it again adds nothing (the engine's auto-load and its status: internal/engine/gates_test.go).
func TestContractDirectLoadLastsTheTurn(t *testing.T) {
	t.Parallel()
	c := catalog.Build(registry("File", "update_plan"), catalog.MCPInfo{}, catalog.Options{})
	if got := c.Activate("update_plan"); strings.Join(got, ",") != "update_plan" {
		t.Fatalf("activate: %v", got)
	}
	for step := range 3 {
		if got := names(c.RequestTools()); got != "File,tool_search,update_plan" || c.Activate("update_plan") != nil {
			t.Errorf("step %d: %s", step, got)
		}
	}
}

// CONTRACT.md §4.5: File's actions follow the mode in the catalog a turn builds (Operate as Act, the patch feature
// adds patch), and Full Access adds no tool a mode removed.
// CONTRACT.md §4.6: with every optional service and an MCP server present, Plan's first request is exactly File
// (read-only), Git, agent, tasks, work_update, tool_search in every posture, Full Access included: it makes no MCP
// tool eager there; a read helper stays eager.
// README.md "Modes and permissions": in Plan File offers only read/list/search_name/search_content, Bash and Run are gone, and the first request carries File, Git, agent, tasks, work_update, tool_search.
func TestContractModeFiltering(t *testing.T) {
	t.Parallel()
	actions := func(c *catalog.Catalog) string {
		e, ok := c.Lookup("File")
		if !ok {
			return "no File"
		}
		b, _ := json.Marshal(e.Tool.InputSchema["properties"].(map[string]any)["action"].(map[string]any)["enum"])
		return string(b)
	}
	mcp := catalog.MCPInfo{Servers: map[string]string{"mcp_db_drop": "db", "mcp_db_query": "db"}}
	s := everything(t, true, mcp)
	for _, p := range []posture.Posture{posture.Ask, posture.AutoReview, posture.FullAccess} {
		for mode, want := range map[posture.Mode]string{
			posture.Plan:    `["read","list","search_name","search_content"]`,
			posture.Act:     `["read","list","search_name","search_content","write","edit","patch"]`,
			posture.Operate: `["read","list","search_name","search_content","write","edit","patch"]`,
		} {
			c := build(s, engine.TurnEnv{Mode: mode, Posture: p, AllowShell: true})
			if got := actions(c); got != want {
				t.Errorf("%v %v: File actions %s", p, mode, got)
			}
			if mode != posture.Plan {
				continue
			}
			if got := names(c.RequestTools()); got != "File,Git,agent,tasks,work_update,tool_search" {
				t.Errorf("%v Plan: first request %s", p, got)
			}
			for _, gone := range []string{"Bash", "Run", "remember", "rlm"} {
				if _, ok := c.Lookup(gone); ok {
					t.Errorf("%v Plan: %s is in the catalog", p, gone)
				}
			}
		}
	}
	s.ApplyPatch = false
	if got := actions(build(s, engine.TurnEnv{Mode: posture.Act})); got != `["read","list","search_name","search_content","write","edit"]` {
		t.Errorf("patch off: %s", got)
	}
	helper := catalog.MCPInfo{Servers: map[string]string{"mcp_db_drop": "db", "list_mcp_resources": "db"},
		Helpers: map[string]bool{"list_mcp_resources": true}}
	c := build(everything(t, true, helper), engine.TurnEnv{Mode: posture.Plan, Posture: posture.FullAccess})
	if got := names(c.RequestTools()); got != "File,Git,agent,tasks,work_update,list_mcp_resources,tool_search" {
		t.Errorf("Plan, Full Access, a resource server: %s", got)
	}
}

// CONTRACT.md §4.8: a rule is a name or prefix*, matched ASCII case-insensitively and nothing more (no Unicode
// folding), and deny wins over allow in the catalog (the dispatch texts: internal/engine/gates_test.go; the narrowed
// `codewhale tools`: cmd/codewhale/e2e_test.go).
func TestContractMatchRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rule, name string
		want       bool
	}{
		{"bash", "Bash", true}, {"BASH", "Bash", true}, {"Bash", "Bash", true}, {"Bas", "Bash", false},
		{"Bash", "Bas", false}, {"ba*", "Bash", true}, {"UPDATE_*", "update_plan", true}, {"*", "anything", true},
		{"update_plan*", "update", false}, {"mcp_*_x", "mcp_a_x", false}, {"mcp_*_x", "mcp_*_x", true},
		{"\u212aeep", "keep", false}, {"ba\u017fh", "bash", false}, {"\u017f*", "sx", false}, {"bash*", "bash", true},
	} {
		if got := catalog.MatchRule(tc.rule, tc.name); got != tc.want {
			t.Errorf("MatchRule(%q, %q) = %v", tc.rule, tc.name, got)
		}
	}
	c := catalog.Build(registry("Bash", "File", "Git"), catalog.MCPInfo{},
		catalog.Options{Allow: []string{"*"}, Deny: []string{"g*"}, CommandAllow: []string{"File", "Git", "tool_search"}})
	if got := names(c.RequestTools()); got != "File,tool_search" {
		t.Errorf("deny, allow and the command's list: %s", got)
	}
}

// CONTRACT.md §4.9: the first request of a turn in Act with memory on carries the nine in byte order with
// tool_search last; Web, handle_read, update_plan and MCP tools are deferred and not sent; once tool_search returns
// update_plan the request is the same nine followed by update_plan.
func TestContractExample(t *testing.T) {
	t.Parallel()
	s := everything(t, true, catalog.MCPInfo{Servers: map[string]string{"mcp_db_query": "db"}})
	c := build(s, engine.TurnEnv{Mode: posture.Act, AllowShell: true})
	nine := "Bash,File,Git,Run,agent,remember,tasks,work_update,tool_search"
	if got := names(c.RequestTools()); got != nine {
		t.Fatalf("first request %s", got)
	}
	for _, n := range []string{"Web", "handle_read", "update_plan", "mcp_db_query"} {
		if e, ok := c.Lookup(n); !ok || !e.Deferred() || c.IsActive(n) {
			t.Errorf("%s must be a deferred entry, not sent", n)
		}
	}
	res, err := c.Search("tool_search", json.RawMessage(`{"query":"^update_plan\\n","match":"regex","max_results":1}`))
	if err != nil || strings.Join(res.References, ",") != "update_plan" {
		t.Fatalf("search %+v %v", res, err)
	}
	if got := names(c.RequestTools()); got != nine+",update_plan" {
		t.Errorf("next step %s", got)
	}
}

package toolset_test

// CONTRACT.md §16 lists the tests the contract requires; each must fail if
// its target is renamed, so each names its tool by a literal string, never
// by the constant it checks. The map below names the test that covers each
// item (every entry checked to exist and to assert its item):
//
// CONTRACT.md §16 eager sets, Act memory on and off, Plan, File's Plan enum: TestDefaultActiveSets in internal/toolset (also TestContractDefaultActive in internal/catalog)
// CONTRACT.md §16 deferred tools found by tool_search: TestDeferredToolsAreFindable in internal/toolset (also TestWebIsDeferredAndFindable, TestLSPIsDeferredAndFindable, TestGitHubFamily, TestAutomationFamily)
// CONTRACT.md §16 removed names neither registered nor catalogued nor resolved: TestRemovedSpellingsAndExactResolve in internal/toolset (also TestContract34RemovedInEveryMode)
// CONTRACT.md §16 aliases hidden, unsearchable and equivalent to their canonical call: TestReplayAliases in internal/toolset (also TestContract35AliasesOfTheRegistry, TestContract36HiddenStaysHidden, TestContract16AliasesRunTheirCanonicalCall)
// CONTRACT.md §16 tool_search defaults and bounds: TestToolSearch and TestContractToolSearchEntry in internal/catalog (also TestContract16ToolSearchDefaultsAndBounds)
// CONTRACT.md §16 MCP collisions hidden: TestPoolHidesAmbiguousModelNames and TestHelperNameClashIsAmbiguous in internal/mcp; TestContractUnattributedNameHasNoServer in internal/catalog
// CONTRACT.md §16 read-before-edit: TestReadBeforeEdit in internal/tools/file and TestContract16ReadBeforeEdit in internal/toolset
// CONTRACT.md §16 all-or-nothing patch: TestPatchIsAllOrNothing and TestPatchRollsBackAfterAWriteFailsHalfway in internal/tools/file and TestContract16PatchIsAllOrNothing in internal/toolset
// CONTRACT.md §16 To-do demotion and rounding: TestReplaceNumbersFromOneAndKeepsOnlyTheLastInProgress and TestCompletionPctRoundsHalfUp in internal/tools/work and TestContract16TodoDemotionAndRounding in internal/toolset
// CONTRACT.md §16 Work block golden and its 2000-character bound: TestRenderGoldenBody and TestRenderLongMultiByteListStaysBoundedAndKeepsTheActiveItem in internal/tools/work and TestContract16WorkBlockGoldenAndBound in internal/toolset
// CONTRACT.md §16 Bash timeout and output bounds: TestContract61ForegroundTimeoutKillsTheTree and TestRunBoundsLargeOutput in internal/tools/bash and TestContract16BashTimeoutAndOutputBounds in internal/toolset
// CONTRACT.md §16 stale jobs: TestNextStartStopsWhatACrashedRunLeft in internal/jobs (Linux)
// CONTRACT.md §16 sub-agent limits 64/128/1024: TestLimitsClamp and TestAdmissionLimitQueuesThenRefuses in internal/tools/agent
// CONTRACT.md §16 digest vectors: TestDigestVectors in internal/engine
// CONTRACT.md §16 codewhale tools digest equal to the first request's under strict mode and allow/deny lists: TestToolsReceiptMatchesFirstRequestUnderStrictModeAndLists and TestToolsReceiptDigestMatchesFirstRequest in cmd/codewhale

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/toolset"
)

// act16 is an Act-mode registry of s and a call context in its workspace.
func act16(t *testing.T, s *toolset.Services) (*tools.Registry, *tools.Context) {
	t.Helper()
	return s.Registry(engine.TurnEnv{Mode: posture.Act, AllowShell: true}), &tools.Context{Workspace: s.Workspace}
}

func write16(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func read16(t *testing.T, dir string, rels ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, rel := range rels {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			out[rel] = "<" + err.Error() + ">"
			continue
		}
		out[rel] = string(b)
	}
	return out
}

func refusal16(name string, err error) string {
	if err == nil {
		return ""
	}
	return tools.AsError(err).Render(name)
}

// CONTRACT.md §16 (read-before-edit, CONTRACT.md §6.2): through the turn's
// registry and the literal name File, an edit of a file never read is
// refused and leaves it alone; after a read the same edit lands.
func TestContract16ReadBeforeEdit(t *testing.T) {
	t.Parallel()
	s := services(t, true)
	reg, tc := act16(t, s)
	write16(t, s.Workspace, map[string]string{"a.go": "x := 1\n"})
	edit := json.RawMessage(`{"action":"edit","path":"a.go","search":"x := 1","replace":"x := 2"}`)
	_, err := reg.Execute(context.Background(), tc, "File", edit)
	if got := refusal16("File", err); !strings.Contains(got, `because it has not been read in this session. Recovery: call File with action="read" path="a.go"`) {
		t.Fatalf("edit before read: %q", got)
	}
	if got := read16(t, s.Workspace, "a.go")["a.go"]; got != "x := 1\n" {
		t.Fatalf("a refused edit wrote: %q", got)
	}
	if _, err := reg.Execute(context.Background(), tc, "File", json.RawMessage(`{"action":"read","path":"a.go"}`)); err != nil {
		t.Fatal(refusal16("File", err))
	}
	if res, err := reg.Execute(context.Background(), tc, "File", edit); err != nil || !res.Success {
		t.Fatalf("edit after read: %v %s", res, refusal16("File", err))
	}
	if got := read16(t, s.Workspace, "a.go")["a.go"]; got != "x := 2\n" {
		t.Fatalf("edit after read: %q", got)
	}
}

// CONTRACT.md §16 (all-or-nothing patch, CONTRACT.md §6.2 and §3.5): a
// two-file patch whose second file does not apply changes nothing, through
// File action=patch and through its apply_patch alias, each by its literal
// name; the good patch alone lands.
func TestContract16PatchIsAllOrNothing(t *testing.T) {
	t.Parallel()
	good := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n"
	bad := good + "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n nope\n-b\n+B\n"
	for _, name := range []string{"File", "apply_patch"} {
		s := services(t, true)
		reg, tc := act16(t, s)
		write16(t, s.Workspace, map[string]string{"a.txt": "a\n", "b.txt": "b\nc\n"})
		before := read16(t, s.Workspace, "a.txt", "b.txt")
		in, _ := json.Marshal(map[string]any{"action": "patch", "patch": bad})
		_, err := reg.Execute(context.Background(), tc, name, in)
		if got := refusal16(name, err); !strings.Contains(got, "Failed to apply hunk 1/1 for `b.txt`") {
			t.Errorf("%s: refusal %q", name, got)
		}
		if after := read16(t, s.Workspace, "a.txt", "b.txt"); !reflect.DeepEqual(before, after) {
			t.Errorf("%s: a failed patch changed the workspace: %v -> %v", name, before, after)
		}
		in, _ = json.Marshal(map[string]any{"action": "patch", "patch": good})
		if res, err := reg.Execute(context.Background(), tc, name, in); err != nil || !res.Success {
			t.Fatalf("%s: the good patch: %v %s", name, res, refusal16(name, err))
		}
		if got := read16(t, s.Workspace, "a.txt")["a.txt"]; got != "A\n" {
			t.Errorf("%s: a.txt %q", name, got)
		}
	}
}

// CONTRACT.md §16 (To-do demotion and rounding, CONTRACT.md §6.8): through
// the literal name work_update, a later in_progress demotes the earlier one
// to pending, and the settled share rounds half up (1 of 8 is 13%, 2 of 3
// is 67%, 1 of 3 is 33%).
func TestContract16TodoDemotionAndRounding(t *testing.T) {
	t.Parallel()
	s := services(t, true)
	reg, tc := act16(t, s)
	res, err := reg.Execute(context.Background(), tc, "work_update",
		json.RawMessage(`{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"},{"content":"c"}]}`))
	if err != nil || !strings.HasPrefix(res.Content, "Todo list updated (3 items, 0% settled)") {
		t.Fatalf("work_update: %q %s", res.Content, refusal16("work_update", err))
	}
	snap := s.Ledger.Snapshot()
	if snap.InProgressID != 2 || string(snap.Items[0].Status) != "pending" || string(snap.Items[1].Status) != "in_progress" {
		t.Errorf("the earlier in_progress was not demoted: %+v", snap)
	}
	for _, c := range []struct {
		settled, total int
		want           string
	}{{1, 8, "13%"}, {2, 3, "67%"}, {1, 3, "33%"}, {1, 2, "50%"}} {
		var todos []map[string]string
		for i := range c.total {
			st := "pending"
			if i < c.settled {
				st = "completed"
			}
			todos = append(todos, map[string]string{"content": "x", "status": st})
		}
		in, _ := json.Marshal(map[string]any{"todos": todos})
		res, err := reg.Execute(context.Background(), tc, "work_update", in)
		if want := "(" + itoa16(c.total) + " items, " + c.want + " settled)"; err != nil || !strings.Contains(res.Content, want) {
			t.Errorf("%d of %d: %q, want %q", c.settled, c.total, firstLine16(res.Content), want)
		}
	}
}

// CONTRACT.md §16 (the Work block golden and its 2000-character bound,
// CONTRACT.md §7): the body the request tail carries is the contract's
// golden for a small list, and a long one is at most 2000 characters (a
// literal, not the renderer's constant) yet close to it, the active item kept.
func TestContract16WorkBlockGoldenAndBound(t *testing.T) {
	t.Parallel()
	s := services(t, true)
	reg, tc := act16(t, s)
	if _, err := reg.Execute(context.Background(), tc, "work_update", json.RawMessage(`{"todos":[`+
		`{"content":"Read the runtime seam","status":"completed"},{"content":"Write the renderer","status":"in_progress"},`+
		`{"content":"Run focused tests","status":"pending"},{"content":"Rewrite the sidebar","status":"cancelled"}]}`)); err != nil {
		t.Fatal(refusal16("work_update", err))
	}
	want := "<codewhale:work_state>\nTo-do (50% settled)\n- [x] #1 Read the runtime seam\n- [~] #2 Write the renderer\n" +
		"- [ ] #3 Run focused tests\n- [-] #4 Rewrite the sidebar\n</codewhale:work_state>"
	if got := engine.WorkStateBlock(s.WorkState()); got != want {
		t.Errorf("block\n got %q\nwant %q", got, want)
	}
	var todos []map[string]string
	for i := range 40 {
		st := "pending"
		if i == 37 {
			st = "in_progress"
		}
		todos = append(todos, map[string]string{"content": strings.Repeat("語", 300), "status": st})
	}
	in, _ := json.Marshal(map[string]any{"todos": todos})
	if _, err := reg.Execute(context.Background(), tc, "work_update", in); err != nil {
		t.Fatal(refusal16("work_update", err))
	}
	body := s.WorkState()
	if n := utf8.RuneCountInString(body); n > 2000 || n < 1800 {
		t.Errorf("the body is %d characters; want at most 2000 and near it", n)
	}
	if !strings.Contains(body, "- [~] #38 ") || !strings.HasSuffix(body, " more To-do items omitted") {
		t.Errorf("the active item or the omission line is missing:\n%s", body)
	}
}

// CONTRACT.md §16 (Bash timeout and output bounds, CONTRACT.md §6.1):
// through the literal name Bash, a foreground timeout kills the command and
// reports it with both streams, and large output keeps its first 6000 and
// last 24000 bytes.
func TestContract16BashTimeoutAndOutputBounds(t *testing.T) {
	t.Parallel()
	s := services(t, true)
	reg, tc := act16(t, s)
	res, err := reg.Execute(context.Background(), tc, "Bash", json.RawMessage(`{"command":"echo out; echo err >&2; sleep 30","timeout_ms":1000}`))
	if err != nil || res.Success || !strings.HasPrefix(res.Content, "Command timed out after 1000ms; process killed.\n") ||
		!strings.Contains(res.Content, "\n\nSTDOUT:\nout\n\n\nSTDERR:\nerr\n") {
		t.Errorf("timeout: %q %s", res.Content, refusal16("Bash", err))
	}
	res, err = reg.Execute(context.Background(), tc, "Bash", json.RawMessage(`{"command":"head -c 100000 /dev/zero | tr '\\0' a; echo"}`))
	note := "...\n\n[Output truncated: showing first 6000 bytes and last 24000 bytes. 70001 bytes omitted.]"
	if err != nil || !strings.HasPrefix(res.Content, strings.Repeat("a", 6000)+note) {
		t.Errorf("output bound: %.200q %s", res.Content, refusal16("Bash", err))
	}
}

// fixture16 is an MCP-shaped tool the catalog lists and nothing runs.
type fixture16 struct{ tools.Spec }

func (fixture16) Execute(context.Context, *tools.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, nil
}

// CONTRACT.md §16 (tool_search defaults and bounds, CONTRACT.md §4.3): a
// session's catalog with 130 MCP tools besides every built-in, searched by
// the literal name tool_search, returns 20 results by default and clamps
// max_results to 1..100; it never returns itself or a hidden alias.
func TestContract16ToolSearchDefaultsAndBounds(t *testing.T) {
	t.Parallel()
	s := fullServices(t)
	servers := map[string]string{}
	s.Extra = func(reg *tools.Registry, _ engine.TurnEnv) {
		for i := range 130 {
			name := "mcp_fx_t" + itoa16(1000+i)
			servers[name] = "fx"
			reg.Register(&fixture16{tools.Spec{ToolName: name, Desc: "Fixture " + name + ".",
				Schema: map[string]any{"type": "object", "properties": map[string]any{}}}})
		}
	}
	s.MCPInfo = func() catalog.MCPInfo { return catalog.MCPInfo{Servers: servers} }
	_, c, _ := firstRequest(s, posture.Act)
	names := c.Names()
	if len(names) < 140 {
		t.Fatalf("only %d catalog entries: the bounds are not exercised", len(names))
	}
	if e, ok := c.Lookup("tool_search"); !ok || e.Deferred() || names[len(names)-1] != "tool_search" {
		t.Fatalf("tool_search is not the eager last entry: %v", names[len(names)-3:])
	}
	for in, want := range map[string]int{
		`{"query":".","match":"regex"}`:                   20,
		`{"query":".","match":"regex","max_results":0}`:   1,
		`{"query":".","match":"regex","max_results":-5}`:  1,
		`{"query":".","match":"regex","max_results":3}`:   3,
		`{"query":".","match":"regex","max_results":100}`: 100,
		`{"query":".","match":"regex","max_results":500}`: 100,
		`{"query":"fixture"}`:                             20,
	} {
		res, err := c.Search("tool_search", json.RawMessage(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if len(res.References)+len(res.Unavailable) != want {
			t.Errorf("%s: %d references (loaded or unavailable), want %d", in, len(res.References)+len(res.Unavailable), want)
		}
		for _, ref := range res.References {
			if ref == "tool_search" || ref == "todo_write" || ref == "apply_patch" || ref == "task_list" {
				t.Errorf("%s: found %s", in, ref)
			}
		}
	}
}

// CONTRACT.md §16 (aliases equivalent to their canonical call, CONTRACT.md
// §3.5): todo_list answers as work_update's list does and checklist_write
// writes the one ledger, each alias and canonical named by a literal.
func TestContract16AliasesRunTheirCanonicalCall(t *testing.T) {
	t.Parallel()
	s := services(t, true)
	reg, tc := act16(t, s)
	if _, err := reg.Execute(context.Background(), tc, "checklist_write", json.RawMessage(`{"todos":[{"content":"a","status":"completed"},{"content":"b"}]}`)); err != nil {
		t.Fatal(refusal16("checklist_write", err))
	}
	if got := s.WorkState(); got != "To-do (50% settled)\n- [x] #1 a\n- [ ] #2 b" {
		t.Errorf("checklist_write did not write the one ledger: %q", got)
	}
	res, err := reg.Execute(context.Background(), tc, "todo_list", json.RawMessage(`{}`))
	if err != nil || !strings.HasPrefix(res.Content, "Todo list (2 items, 50% settled)") {
		t.Errorf("todo_list: %q %s", res.Content, refusal16("todo_list", err))
	}
}

func itoa16(n int) string { b, _ := json.Marshal(n); return string(b) }

func firstLine16(s string) string { line, _, _ := strings.Cut(s, "\n"); return line }

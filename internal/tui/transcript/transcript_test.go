package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/mdterm"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func plainEnv() *Env {
	th := theme.Plain()
	return &Env{Theme: th, Markdown: mdterm.New(th.Profile, th.Color, th.Dark), Now: func() time.Time { return t0.Add(3 * time.Second) }}
}

func colorEnv() *Env {
	th := theme.New(theme.Options{Profile: termenv.TrueColor, Dark: true})
	return &Env{Theme: th, Markdown: mdterm.New(th.Profile, th.Color, th.Dark), Now: func() time.Time { return t0 }}
}

const editDiff = `--- a/cmd/root.go
+++ b/cmd/root.go
@@ -10,7 +10,8 @@ func newRootCmd() *cobra.Command {
 	root := &cobra.Command{Use: "app"}
-	root.Flags().Bool("debug", false, "debug output")
+	root.Flags().Bool("debug", false, "debug output")
+	root.Flags().BoolP("verbose", "v", false, "verbose output")
 	return root
 }
`

func editCell() *Cell {
	c := NewTool("call_1", "File", json.RawMessage(`{"action":"edit","path":"cmd/root.go","search":"a","replace":"b"}`), 1, t0)
	c.Complete(engine.ToolOutcome{Content: "edited", Success: true, Metadata: map[string]any{
		"event":    "file.mutation",
		"mutation": map[string]any{"diff": editDiff, "files": []any{map[string]any{"path": "cmd/root.go", "outcome": "updated"}}},
	}}, t0)
	return c
}

func shellCell(ok bool, out string) *Cell {
	c := NewTool("call_2", "Bash", json.RawMessage(`{"command":"go test ./...\n# again"}`), 1, t0)
	c.Complete(engine.ToolOutcome{Content: out, Success: ok}, t0)
	return c
}

func lines(n int, prefix string) string {
	var b []string
	for i := 1; i <= n; i++ {
		b = append(b, fmt.Sprintf("%s %d", prefix, i))
	}
	return strings.Join(b, "\n")
}

// sample is one turn of every cell kind.
func sample() []*Cell {
	think := NewCell(Thinking, "Need to read the command file first.\nThen edit it.")
	think.Started, think.Ended = t0, t0.Add(3*time.Second)
	running := NewTool("call_3", "Bash", json.RawMessage(`{"command":"make build"}`), 2, t0)
	git := NewTool("call_4", "Git", json.RawMessage(`{"action":"status"}`), 3, t0)
	git.Complete(engine.ToolOutcome{Content: "## main\n M cmd/root.go", Success: true}, t0)
	denied := NewTool("call_5", "tasks", json.RawMessage(`{"action":"create","prompt":"write docs"}`), 4, t0)
	denied.Complete(engine.ToolOutcome{Content: "Tool 'tasks' denied by user — the call was not approved.", IsError: true}, t0)
	reply := NewCell(Assistant, "I added **--verbose**:\n\n- flag\n- logger")
	cut := NewCell(Assistant, "partial answ")
	cut.MarkInterrupted(t0)
	return []*Cell{
		NewCell(User, "add a --verbose flag to cmd/root.go\x1b[31m (with 日本語)"),
		think,
		NewTool("call_0", "File", json.RawMessage(`{"action":"read","path":"cmd/root.go"}`), 1, t0),
		editCell(),
		shellCell(true, lines(9, "ok")),
		shellCell(false, lines(30, "FAIL line")),
		running, git, denied, reply, cut,
		NewError("warning", "Stream stalled; retrying (1/3)."),
		NewCell(System, "Bash jobs (0)\n  indented line"),
	}
}

// CONTRACT.md §14.3: user, assistant, thinking, tool, error and system cells as drawn (golden).
func TestCellsGolden(t *testing.T) {
	t.Parallel()
	tr := New(plainEnv())
	for _, c := range sample() {
		tr.Add(c)
	}
	tr.Cells()[2].Complete(engine.ToolOutcome{Content: "package main", Success: true}, t0)
	golden.RequireEqual(t, []byte(strings.Join(tr.View(80, 90), "\n")))
}

func TestDiffCellColourGolden(t *testing.T) {
	t.Parallel()
	tr := New(colorEnv())
	tr.Add(editCell())
	out := strings.Join(tr.View(60, 14), "\n")
	for _, want := range []string{"+1", "−1", "\x1b["} {
		if !strings.Contains(out, want) {
			t.Errorf("coloured diff lacks %q", want)
		}
	}
	golden.RequireEqual(t, []byte(out))
}

// CONTRACT.md §14.3: a file mutation shows a capped inline diff.
func TestDiffIsCappedAtFourteenLines(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("--- a/x\n+++ b/x\n@@ -1,20 +1,20 @@\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "-old %d\n+new %d\n", i, i)
	}
	c := NewTool("c", "File", json.RawMessage(`{"action":"write","path":"x"}`), 1, t0)
	c.Complete(engine.ToolOutcome{Success: true, Metadata: map[string]any{"event": "file.mutation",
		"mutation": map[string]any{"diff": b.String(), "files": []any{map[string]any{"path": "x", "outcome": "updated"}}}}}, t0)
	rows := plainEnv().render(c, 80)
	// header + path/stats row + 14 diff rows + "more" marker.
	if len(rows) != 17 || !strings.Contains(rows[1], "x  +20 −20") || !strings.Contains(rows[16], "… 27 more diff lines (Alt+V)") {
		t.Errorf("rows (%d):\n%s", len(rows), strings.Join(rows, "\n"))
	}
}

// CONTRACT.md §14.3: a shell cell shows head and tail.
func TestFailedShellOutputIsHeadTenTailSixWithinTwentyRows(t *testing.T) {
	t.Parallel()
	rows := plainEnv().render(shellCell(false, lines(100, "out")), 80)
	body := strings.Join(rows, "\n")
	if !strings.Contains(body, "out 10\n") || strings.Contains(body, "out 11\n") || !strings.Contains(body, "… 84 lines omitted") ||
		!strings.Contains(body, "out 95") || !strings.Contains(body, "out 100") {
		t.Errorf("failure preview:\n%s", body)
	}
	// header + 2 command rows + 17 output rows.
	if len(rows) > 1+2+shellHardLimit {
		t.Errorf("%d rows, hard limit is 20 output rows", len(rows))
	}
}

// CONTRACT.md §14.3: each tool cell's one-line argument summary, per tool.
func TestSummaryPerTool(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"Bash", `{"command":"go test ./...\nmore"}`, "go test ./... …"},
		{"Bash", `{"action":"wait","task_id":"shell_1"}`, "wait shell_1"},
		{"File", `{"action":"search_content","pattern":"TODO"}`, `search_content "TODO"`},
		{"File", `{"action":"read","path":"cmd/root.go"}`, "read cmd/root.go"},
		{"Git", `{"action":"diff","path":"a.go"}`, "diff a.go"},
		{"work_update", `{"todos":[{},{}]}`, "2 item(s)"},
		{"tool_search", `{"query":"mcp weather"}`, "mcp weather"},
		{"mcp_x_y", `{"b":1,"a":"x"}`, `{"a":"x","b":1}`},
		{"File", `{"path":"` + strings.Repeat("d/", 60) + `"}`, "read " + strings.Repeat("d/", 33) + "…"},
	}
	for _, c := range cases {
		if got := Summary(c.name, json.RawMessage(c.in)); got != c.want {
			t.Errorf("Summary(%s, %s) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// CONTRACT.md §14.3: thinking is collapsed by default.
func TestThinkingIsCollapsedUnlessVerbose(t *testing.T) {
	t.Parallel()
	env := plainEnv()
	live := &Cell{Kind: Thinking, Streaming: true, Started: t0}
	live.Append("secret chain of thought")
	if rows := env.render(live, 80); len(rows) != 1 || rows[0] != "… reasoning hidden · 3s" {
		t.Errorf("collapsed live = %q", rows)
	}
	env.Verbose = true
	if rows := env.render(live, 80); len(rows) != 2 || rows[0] != "… reasoning live · 3s" || !strings.Contains(rows[1], "secret") {
		t.Errorf("verbose live = %q", rows)
	}
}

func tall(n int) *Transcript {
	tr := New(plainEnv())
	for i := 0; i < n; i++ {
		tr.Add(NewCell(User, fmt.Sprintf("message %d", i)))
	}
	return tr
}

// CONTRACT.md §14.4: the transcript follows the bottom unless scrolled up, with a visible new-output marker.
func TestFollowScrollAndNewOutputMarker(t *testing.T) {
	t.Parallel()
	tr := tall(50) // 99 rows: 50 messages with blank rows between
	view := tr.View(40, 10)
	if view[9] != "▎ message 49" {
		t.Fatalf("following shows the bottom: %q", view)
	}
	tr.Scroll(-5, 40, 10)
	if tr.Following() || tr.View(40, 10)[0] != "▎ message 42" {
		t.Fatalf("scrolled up 5 rows: %q", tr.View(40, 10))
	}
	tr.Add(NewCell(User, "fresh"))
	if v := tr.View(40, 10); !strings.Contains(v[9], "new output below") || !tr.NewBelow() {
		t.Errorf("marker missing while unpinned: %q", v)
	}
	tr.Scroll(100, 40, 10)
	if !tr.Following() || tr.NewBelow() || tr.View(40, 10)[9] != "▎ fresh" {
		t.Errorf("scrolling to the last row re-pins: %q", tr.View(40, 10))
	}
	tr.Top(40, 10)
	if v := tr.View(40, 10); v[0] != "▎ message 0" {
		t.Errorf("top: %q", v)
	}
	tr.Bottom()
	if !tr.Following() {
		t.Error("Bottom re-pins")
	}
}

func TestOnlyVisibleCellsAreRendered(t *testing.T) {
	t.Parallel()
	tr := tall(10_000)
	tr.View(80, 30)
	rendered := 0
	for _, c := range tr.Cells() {
		if c.cache.lines != nil {
			rendered++
		}
	}
	if rendered > 30 {
		t.Errorf("%d cells rendered for a 30-row view", rendered)
	}
	tr.Top(80, 30)
	tr.View(80, 30)
	tr.Scroll(45, 80, 30)
	if v := tr.View(80, 30); !strings.Contains(strings.Join(v, "\n"), "message 30") {
		t.Errorf("anchored view after scrolling: %q", v[:3])
	}
}

// CONTRACT.md §14.4: a streaming reply renders as its deltas arrive.
func TestStreamingReplyRendersStableHeadAndPlainTail(t *testing.T) {
	t.Parallel()
	env := plainEnv()
	c := &Cell{Kind: Assistant, Streaming: true}
	c.Append("# Title\n\nFirst paragraph.\n\nstill typ")
	rows := env.render(c, 40)
	joined := strings.Join(rows, "\n")
	if !strings.Contains(joined, "Title") || !strings.HasSuffix(joined, "still typ▍") {
		t.Errorf("streaming rows:\n%s", joined)
	}
	c.Finish(t0)
	if rows := env.render(c, 40); strings.Contains(strings.Join(rows, "\n"), "▍") {
		t.Errorf("finished reply keeps the cursor: %q", rows)
	}
}

func doneCell(name, input string, o engine.ToolOutcome) *Cell {
	c := NewTool("c", name, json.RawMessage(input), 1, t0)
	c.Complete(o, t0)
	return c
}

// Tool cells say what a reader needs at a glance (issue 14, "Rough").
func TestToolCellsAtAGlance(t *testing.T) {
	t.Parallel()
	validation := "Error: invalid input for File: missing path\n{\n  \"schema\": {\"type\": \"object\"}\n}\n" + strings.Repeat("detail\n", 20)
	cases := []struct {
		name    string
		cell    *Cell
		want    []string
		notWant []string
	}{
		{"search count", doneCell("File", `{"action":"search_content","pattern":"TODO"}`, engine.ToolOutcome{Success: true,
			Content: `{"matches":[{"file":"a.go"}],"total_matches":3,"files_searched":40,"truncated":false}`}),
			[]string{`✓ File search_content "TODO"  · 3 matches in 40 files searched`}, nil},
		{"list count", doneCell("File", `{"action":"list","path":"."}`, engine.ToolOutcome{Success: true,
			Content: `[{"name":"a","is_dir":false},{"name":"b","is_dir":true}]`}), []string{"· 2 entries"}, nil},
		{"invalid call is one line", doneCell("File", `{"action":"read"}`, engine.ToolOutcome{IsError: true, Content: validation}),
			[]string{"✕ File read", "invalid input for File: missing path", "Alt+V shows the full error"}, []string{"schema", "detail"}},
		{"plan has no shell", doneCell("Bash", `{"command":"ls"}`, engine.ToolOutcome{IsError: true,
			Content: "Error: tool 'Bash' is not registered. Did you mean: tasks?"}),
			[]string{"Bash is not available in Plan mode: Plan is read-only and has no shell"}, []string{"Did you mean"}},
		{"dropped output is said", doneCell("Bash", `{"command":"seq 1 200000"}`, engine.ToolOutcome{Success: true,
			Content: strings.Repeat("1\n", 50), Metadata: map[string]any{"stdout_omitted": float64(1_260_000)}}),
			[]string{"… 44 earlier lines", "1.20 MB of output was cut from the middle"}, nil},
		{"empty sections hidden", doneCell("Bash", `{"command":"false"}`, engine.ToolOutcome{
			Content: "Command failed (exit code 1)\n\nSTDOUT:\nout\n\n\nSTDERR:\n"}),
			[]string{"Command failed (exit code 1)", "STDOUT:"}, []string{"STDERR:"}},
		{"git diff shows changes", doneCell("Git", `{"action":"diff"}`, engine.ToolOutcome{Success: true,
			Content: "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n a\n b\n c\n d\n e\n f\n-old\n+new\n"}),
			[]string{"-old", "+new", "@@ -1,9 +1,9 @@"}, []string{"index 1..2"}},
	}
	for _, tc := range cases {
		got := strings.Join(plainEnv().render(tc.cell, 100), "\n")
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: lacks %q:\n%s", tc.name, w, got)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(got, w) {
				t.Errorf("%s: shows %q:\n%s", tc.name, w, got)
			}
		}
	}
}

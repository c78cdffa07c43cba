package toolset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/budget"
	"github.com/codewhale/codewhale/internal/toolset"
)

// budgets are the two per-call result budgets the engine gives (48,000
// characters on 1M-token routes, 12,000 on smaller ones).
var budgets = []int{48000, 12000}

// call is one action with its largest output.
type call struct {
	tool string
	in   string
}

// checkSized runs c under each budget and parses what the model would
// receive: within the budget without the engine's last-resort cut (so
// budget.Content leaves it as it is), and valid JSON when the tool answers
// in JSON.
func checkSized(t *testing.T, reg *tools.Registry, ws string, calls []call) {
	t.Helper()
	for _, c := range calls {
		for _, chars := range budgets {
			tc := &tools.Context{Workspace: ws, Mode: posture.Act, Budget: chars}
			res, err := reg.Execute(context.Background(), tc, c.tool, json.RawMessage(c.in))
			if err != nil {
				t.Errorf("%s %s: %v", c.tool, c.in, err)
				continue
			}
			n := budget.Runes(res.Content)
			if n > chars || budget.Content(c.tool, res.Content, chars) != res.Content {
				t.Errorf("%s %s at budget %d: %d chars reach the engine's last-resort cut", c.tool, c.in, chars, n)
			}
			if s := strings.TrimSpace(res.Content); (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) && !json.Valid([]byte(s)) {
				t.Errorf("%s %s at budget %d: not valid JSON: %.300s", c.tool, c.in, chars, s)
			}
		}
	}
}

// TestEveryReadActionFitsTheBudgetOnGOROOT feeds File's read actions their
// largest outputs on $(go env GOROOT)/src.
func TestEveryReadActionFitsTheBudgetOnGOROOT(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: reads and searches all of GOROOT; make test runs it (go test without -short)")
	}
	t.Parallel()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		e2e.Missing(t, "go env GOROOT: "+err.Error())
	}
	src := tools.Canonical(filepath.Join(strings.TrimSpace(string(out)), "src"))
	s := toolsetServices(t, src)
	reg := s.Toolset(engine.TurnEnv{Mode: posture.Plan}).Registry
	biggest := largestFile(t, src)
	checkSized(t, reg, src, []call{
		{"File", `{"action":"read","path":"` + biggest + `"}`},
		{"File", `{"action":"read","path":"` + biggest + `","start_line":1,"max_lines":500}`},
		{"File", `{"action":"list","depth":5}`},
		{"File", `{"action":"search_name","query":"a","limit":200}`},
		{"File", `{"action":"search_content","pattern":"e"}`},
		{"File", `{"action":"search_content","pattern":"e","max_results":100000,"context_lines":1000}`},
		{"File", `{"action":"search_content","pattern":"^package","max_results":1,"context_lines":1000}`},
	})
}

// TestEveryWriteAndRunActionFitsTheBudget feeds the writing, shell, test,
// Git and coordination actions their largest outputs in a generated
// repository.
func TestEveryWriteAndRunActionFitsTheBudget(t *testing.T) {
	t.Parallel()
	ws := tools.Canonical(t.TempDir())
	big := strings.Repeat("a line of a large file that goes on for a while\n", 40000)
	files := map[string]string{"big.txt": big, "go.mod": "module fx\n\ngo 1.22\n", "x_test.go": manyFailingTests(300)}
	for p, c := range files {
		if err := os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitInit(t, ws)
	s := toolsetServices(t, ws)
	reg := s.Toolset(engine.TurnEnv{Mode: posture.Act, AllowShell: true}).Registry
	patch := "--- a/big.txt\n+++ b/big.txt\n@@ -1,2 +1,2 @@\n-a line of a large file that goes on for a while\n+changed\n a line of a large file that goes on for a while\n"
	items := make([]map[string]string, 200)
	for i := range items {
		items[i] = map[string]string{"content": fmt.Sprintf("item %d %s", i, strings.Repeat("detail ", 30)), "status": "pending"}
	}
	todos, _ := json.Marshal(map[string]any{"todos": items})
	checkSized(t, reg, ws, []call{
		{"File", `{"action":"read","path":"big.txt"}`},
		{"File", `{"action":"write","path":"new.txt","content":` + quote(big) + `}`},
		{"File", `{"action":"patch","patch":` + quote(patch) + `}`},
		{"File", `{"action":"read","path":"big.txt","max_lines":1}`},
		{"File", `{"action":"write","path":"big.txt","content":` + quote(strings.ToUpper(big)) + `}`},
		{"Bash", `{"command":"yes out | head -c 200000; yes err | head -c 200000 >&2"}`},
		{"Git", `{"action":"status"}`},
		{"Git", `{"action":"diff"}`},
		{"Git", `{"action":"log"}`},
		{"Git", `{"action":"show","rev":"HEAD"}`},
		{"Git", `{"action":"blame","path":"x_test.go"}`},
		{"work_update", string(todos)},
		{"Run", `{"action":"tests"}`},
	})
}

func manyFailingTests(n int) string {
	var b strings.Builder
	b.WriteString("package fx\n\nimport (\n\t\"strings\"\n\t\"testing\"\n)\n\n")
	for i := range n {
		fmt.Fprintf(&b, "func TestFails%03d(t *testing.T) { t.Log(strings.Repeat(\"noise \", 400)); t.Fatal(\"failure %d\") }\n", i, i)
	}
	return b.String()
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			e2e.Missing(t, fmt.Sprintf("git %v: %v %s", args, err, out))
		}
	}
}

// toolsetServices is services() with the workspace at ws.
func toolsetServices(t *testing.T, ws string) *toolset.Services {
	t.Helper()
	s := services(t, true)
	s.Workspace = ws
	return s
}

// largestFile is the biggest regular file under root, relative to it.
func largestFile(t *testing.T, root string) string {
	t.Helper()
	best, size := "", int64(0)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() && fi.Size() > size && fi.Size() < 10<<20 {
			best, size = p, fi.Size()
		}
		return nil
	})
	rel, _ := filepath.Rel(root, best)
	return filepath.ToSlash(rel)
}

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
)

// isSubagent says r comes from a sub-agent (its system prompt names it one).
func isSubagent(r *fakemodel.Request) bool {
	ms := r.Messages()
	if len(ms) == 0 {
		return false
	}
	s, _ := ms[0]["content"].(string)
	return strings.Contains(s, "You are a sub-agent (")
}

// agentStates reads the last recorded status of each child's transcript in
// home.
func agentStates(t *testing.T, home string) map[string]string {
	t.Helper()
	dir := filepath.Join(home, ".codewhale", "agents")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var rec struct {
				Agent *struct{ Status string } `json:"agent"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Agent != nil {
				out[strings.TrimSuffix(e.Name(), ".jsonl")] = rec.Agent.Status
			}
		}
		f.Close()
	}
	return out
}

// A provider that answers 429 to half the requests — the first time it
// sees each request body — while a parent launches 32 sub-agents: every
// child finishes, each request is sent at most twice (the client's retry,
// no storm of new ones: exactly twice the distinct requests), and the
// launch pace halving is visible in stream-json and the run's metadata.
// README.md "Sub-agents": exec --output-format stream-json prints the launch pace change as an admission line.
func TestSubagentsUnder429sAllFinish(t *testing.T) {
	t.Parallel()
	const n = 32
	var calls []fakemodel.Call
	for i := range n {
		calls = append(calls, fakemodel.Call{ID: fmt.Sprintf("c%02d", i), Name: "agent",
			Args: fmt.Sprintf(`{"prompt":"count to %d","agent_id":"t%02d","type":"scout"}`, i, i)})
	}
	srv := fakemodel.New(t)
	var mu sync.Mutex
	seen := map[string]bool{}
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		mu.Lock()
		first := !seen[string(r.Raw)]
		seen[string(r.Raw)] = true
		mu.Unlock()
		switch {
		case first:
			return fakemodel.Reply{Status: 429, Body: `{"error":{"message":"rate limited"}}`, Header: map[string]string{"Retry-After": "0"}}
		case isSubagent(r):
			return fakemodel.Text("counted")
		case len(r.Messages()) == 2:
			return fakemodel.Tools(calls...)
		}
		return fakemodel.Text("launched them all")
	})
	c := newCLI(t, srv)
	out, errOut, code := c.run("exec", "--auto", "--wait-agents", "wait", "--output-format", "stream-json", "fan out")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	states := agentStates(t, c.home)
	done := 0
	for id, st := range states {
		if st != "completed" {
			t.Errorf("%s ended %s", id, st)
		}
		done++
	}
	if done != n {
		t.Errorf("%d of %d children recorded an end: %v", done, n, states)
	}
	mu.Lock()
	distinct := len(seen)
	mu.Unlock()
	children := map[string]bool{}
	for _, r := range srv.Requests() {
		if isSubagent(r) {
			children[string(r.Raw)] = true
		}
	}
	// Each child sends one request, the parent its first two and one more
	// per batch of results that reached it before its turn ended.
	if got := len(srv.Requests()); got != 2*distinct || len(children) != n || distinct > 2*n+2 {
		t.Errorf("%d requests for %d distinct ones, %d of them children's (want each sent twice: refused once, "+
			"then answered; one per child)", got, distinct, len(children))
	}
	var halved bool
	var meta map[string]any
	for _, ev := range lines(t, out) {
		switch ev["type"] {
		case "admission":
			halved = halved || ev["event"] == "halved" && ev["launches_per_sec"].(float64) < ev["max_launches_per_sec"].(float64)
		case "metadata":
			meta = ev["meta"].(map[string]any)
		}
	}
	if !halved {
		t.Errorf("no admission line says the pace halved:\n%s", out)
	}
	sub, _ := meta["subagents"].(map[string]any)
	adm, _ := sub["admission"].(map[string]any)
	if adm == nil || adm["rate_limited"].(float64) < n {
		t.Errorf("metadata subagents %v", sub)
	}
}

// Two sub-agents with worktree: true edit the same file at once in a real
// repository: each branch holds its own change, the person's checkout is
// untouched and clean, and agent cleanup (in a later run, once the first
// process is gone) leaves `git worktree list` with the checkout alone.
func TestWorktreeSubagentsEditTheSameFile(t *testing.T) {
	t.Parallel()
	repo := gitfixture.New(t)
	repo.Write("shared.txt", "original\n")
	repo.Commit("init")
	srv := fakemodel.New(t)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case isSubagent(r) && r.HasToolResult("Wrote"):
			return fakemodel.Text("edited shared.txt")
		case isSubagent(r):
			side := "left"
			if strings.Contains(lastUser(r), "right") {
				side = "right"
			}
			return fakemodel.Tools(fakemodel.Call{ID: "w", Name: "File",
				Args: `{"action":"write","path":"shared.txt","content":"` + side + ` version\n"}`})
		case strings.Contains(lastUser(r), "clean up"):
			if r.HasToolResult("removed") {
				return fakemodel.Text("cleaned")
			}
			return fakemodel.Tools(fakemodel.Call{ID: "k", Name: "agent", Args: `{"action":"cleanup"}`})
		case len(r.Messages()) == 2:
			return fakemodel.Tools(
				fakemodel.Call{ID: "l", Name: "agent", Args: `{"prompt":"write the left version","agent_id":"left","worktree":true}`},
				fakemodel.Call{ID: "r", Name: "agent", Args: `{"prompt":"write the right version","agent_id":"right","worktree":true}`})
		}
		return fakemodel.Text("both started")
	})
	c := newCLI(t, srv)
	c.ws = repo.Dir
	c.config("approval_policy = \"auto\"\n[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n")
	out, errOut, code := c.run("exec", "--max-turns", "5", "--wait-agents", "wait", "edit it twice")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, side := range []string{"left", "right"} {
		if got := repo.Run("show", "codewhale/agent_"+side+":shared.txt"); got != side+" version\n" {
			t.Errorf("branch codewhale/agent_%s holds %q\n%s", side, got, errOut)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(repo.Dir, "shared.txt")); string(got) != "original\n" {
		t.Errorf("the checkout's file changed: %q", got)
	}
	if st := repo.Run("status", "--porcelain"); st != "" {
		t.Errorf("the checkout is not clean:\n%s", st)
	}
	if list := repo.Run("worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 3 {
		t.Errorf("want the checkout and two worktrees:\n%s", list)
	}
	out, errOut, code = c.run("exec", "--max-turns", "3", "clean up the worktrees")
	if code != 0 {
		t.Fatalf("cleanup exit %d\n%s\n%s", code, out, errOut)
	}
	if list := repo.Run("worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Errorf("after cleanup:\n%s", list)
	}
	if branches := repo.Run("branch", "--list", "codewhale/*"); !strings.Contains(branches, "agent_left") || !strings.Contains(branches, "agent_right") {
		t.Errorf("cleanup must keep the branches: %q", branches)
	}
}

// lastUser is the JSON of the last user message's content.
func lastUser(r *fakemodel.Request) string {
	ms := r.Messages()
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i]["role"] == "user" {
			b, _ := json.Marshal(ms[i]["content"])
			return string(b)
		}
	}
	return ""
}

// doctor reports the sub-agent definitions: how many, which wait for the
// trust step, and each file that did not load (an unknown tool) with why.
// README.md "Sub-agents": codewhale doctor says which definitions did not load and why.
func TestDoctorReportsAgentDefinitions(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	writeFiles(t, c.ws, map[string]string{
		".claude/agents/reviewer.md": "---\ndescription: reviews\ntools: Read, Grep\n---\nReview.\n",
		".codewhale/agents/bad.md":   "---\ndescription: broken\ntools: Read, Teleport\n---\nBody.\n"})
	r, _ := runDoctor(t, c)
	st, d := r.check(t, "agents")
	if st != "warn" || !strings.Contains(d, "1 sub-agent type(s) defined; 1 not trusted yet (reviewer)") ||
		!strings.Contains(d, `bad.md: tools: "Teleport" is not a tool codewhale has`) {
		t.Errorf("agents: %s %s", st, d)
	}
}

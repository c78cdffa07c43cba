package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/agent"
)

// writerRun is a child that writes its prompt into shared.txt of its
// workspace, as a File write would.
type writerRun struct{ dir string }

func (w writerRun) Turn(_ context.Context, prompt string, progress func(agent.Progress)) agent.Receipt {
	progress(agent.Progress{})
	if err := os.WriteFile(filepath.Join(w.dir, "shared.txt"), []byte(prompt+"\n"), 0o644); err != nil {
		return agent.Receipt{Outcome: agent.TurnFailed, Error: err.Error()}
	}
	return agent.Receipt{Outcome: agent.TurnCompleted, Reply: "wrote " + prompt}
}

func (writerRun) Steer(string) {}

func worktreeRepo(t *testing.T) *gitfixture.Repo {
	t.Helper()
	r := gitfixture.New(t)
	r.Write("shared.txt", "original\n")
	r.Commit("init")
	return r
}

func startWorktree(t *testing.T, tool tools.Tool, ws, in string) (map[string]any, error) {
	t.Helper()
	res, err := tools.Execute(context.Background(), tool, &tools.Context{Mode: posture.Act, Workspace: ws}, json.RawMessage(in))
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
		t.Fatalf("%s: %s", in, res.Content)
	}
	return out, nil
}

// Two children in worktrees write the same file at once: each branch holds
// its own change, the checkout is untouched and clean (the worktrees are
// excluded), and cleanup leaves only the main worktree, keeping branches.
// README.md "Sub-agents": worktree: true runs a child under .codewhale/worktrees/<id> on branch codewhale/<id>, the checkout stays untouched, and cleanup removes worktrees and keeps branches.
func TestWorktreeChildrenWriteApartAndCleanUp(t *testing.T) {
	t.Parallel()
	r := worktreeRepo(t)
	m := agent.NewManager(agent.Options{Spawner: agent.SpawnFunc(func(_ context.Context, cc agent.ChildConfig) (agent.Run, error) {
		return writerRun{dir: cc.Workspace}, nil
	})})
	t.Cleanup(func() { m.Drain(context.Background(), 0, 5*time.Second) })
	tool := agent.New(m, nil)
	var ids []string
	for _, name := range []string{"left", "right"} {
		rec, err := startWorktree(t, tool, r.Dir, `{"prompt":"`+name+` version","agent_id":"`+name+`","worktree":true}`)
		if err != nil {
			t.Fatal(err)
		}
		wt, _ := rec["worktree"].(map[string]any)
		if wt["branch"] != "codewhale/agent_"+name || wt["path"] != filepath.Join(r.Dir, ".codewhale", "worktrees", "agent_"+name) {
			t.Fatalf("receipt %v", rec)
		}
		ids = append(ids, rec["agent_id"].(string))
	}
	snaps, settled := m.Wait(context.Background(), ids, "completion", 20*time.Second)
	if !settled {
		t.Fatal("children did not finish")
	}
	for _, s := range snaps {
		if s.Status != agent.StatusCompleted || s.Worktree == nil || s.Worktree.Error != "" ||
			!strings.Contains(s.Worktree.DiffStat, "shared.txt | 2 +-") || !strings.Contains(s.Worktree.Merge, "git merge "+s.Worktree.Branch) {
			t.Errorf("%s: %+v %+v", s.ID, s, s.Worktree)
		}
	}
	for _, name := range []string{"left", "right"} {
		if got := r.Run("show", "codewhale/agent_"+name+":shared.txt"); got != name+" version\n" {
			t.Errorf("branch of %s holds %q", name, got)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(r.Dir, "shared.txt")); string(got) != "original\n" {
		t.Errorf("the checkout changed: %q", got)
	}
	if st := r.Run("status", "--porcelain"); st != "" {
		t.Errorf("the checkout is not clean: %q", st)
	}
	res, err := tools.Execute(context.Background(), tool, &tools.Context{Workspace: r.Dir}, json.RawMessage(`{"action":"cleanup"}`))
	if err != nil || !res.Success || !strings.Contains(res.Content, "codewhale/agent_left") {
		t.Fatalf("cleanup: %v %s", err, res.Content)
	}
	if list := r.Run("worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Errorf("worktrees after cleanup:\n%s", list)
	}
	if out := r.Run("branch", "--list", "codewhale/*"); !strings.Contains(out, "agent_left") || !strings.Contains(out, "agent_right") {
		t.Errorf("branches after cleanup: %q", out)
	}
	res, err = tools.Execute(context.Background(), tool, &tools.Context{Workspace: r.Dir},
		json.RawMessage(`{"action":"message","agent_id":"left","prompt":"more"}`))
	if err != nil || res.Success || !strings.Contains(res.Content, "removed by agent cleanup") {
		t.Errorf("a follow-up after cleanup: %v %s", err, res.Content)
	}
}

// The refusals lose nothing and create nothing: outside a repository, with
// uncommitted changes, onto an existing branch, from a base that is no
// commit, into a tracked or linked worktree folder.
// README.md "Sub-agents": a workspace outside git or with uncommitted changes is refused with the reason.
func TestWorktreeRefusals(t *testing.T) {
	t.Parallel()
	m := agent.NewManager(agent.Options{Spawner: agent.SpawnFunc(func(_ context.Context, cc agent.ChildConfig) (agent.Run, error) {
		return writerRun{dir: cc.Workspace}, nil
	})})
	t.Cleanup(func() { m.Drain(context.Background(), 0, 5*time.Second) })
	tool := agent.New(m, nil)
	refused := func(ws, in, want string) {
		t.Helper()
		_, err := startWorktree(t, tool, ws, in)
		if err == nil || !strings.Contains(tools.AsError(err).Render("agent"), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	refused(gitfixture.TempDir(t), `{"prompt":"x","worktree":true}`, "needs a git repository")
	dirty := worktreeRepo(t)
	dirty.Write("shared.txt", "edited\n")
	refused(dirty.Dir, `{"prompt":"x","worktree":true}`, "the workspace has uncommitted changes (shared.txt)")
	r := worktreeRepo(t)
	r.Run("branch", "taken")
	refused(r.Dir, `{"prompt":"x","worktree":true,"worktree_branch":"taken"}`, "branch taken already exists")
	refused(r.Dir, `{"prompt":"x","worktree":true,"worktree_base":"nosuchref"}`, `worktree_base "nosuchref" is not a commit`)
	refused(r.Dir, `{"prompt":"x","worktree":true,"worktree_base":"^HEAD"}`, `worktree_base "^HEAD" is not a commit`)
	refused(r.Dir, `{"prompt":"x","worktree":true,"worktree_branch":"a b"}`, "is not a branch or commit name")
	refused(r.Dir, `{"prompt":"x","worktree":true,"worktree_branch":"x.lock"}`, "is not a valid branch name")
	tracked := worktreeRepo(t)
	tracked.Write(".codewhale/worktrees/keep.txt", "tracked\n")
	tracked.Commit("track it")
	refused(tracked.Dir, `{"prompt":"x","worktree":true}`, "holds files the repository tracks")
	linked := worktreeRepo(t)
	if err := os.Symlink(t.TempDir(), filepath.Join(linked.Dir, ".codewhale")); err != nil {
		t.Fatal(err)
	}
	refused(linked.Dir, `{"prompt":"x","worktree":true}`, "is a symbolic link")
	for _, repo := range []*gitfixture.Repo{r, linked} {
		if list := repo.Run("worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
			t.Errorf("a refusal left a worktree:\n%s", list)
		}
	}
	if len(m.List()) != 0 {
		t.Errorf("refusals admitted children: %v", m.List())
	}
}

// blockedRun holds its turn until release is closed.
type blockedRun struct{ started, release chan struct{} }

func (b blockedRun) Turn(ctx context.Context, _ string, progress func(agent.Progress)) agent.Receipt {
	progress(agent.Progress{})
	close(b.started)
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	return agent.Receipt{Outcome: agent.TurnCompleted, Reply: "done"}
}

func (blockedRun) Steer(string) {}

// Cleanup leaves a running child's worktree alone (and says so, without
// failing), and removes it once the child finished.
func TestCleanupLeavesARunningChildsWorktree(t *testing.T) {
	t.Parallel()
	r := worktreeRepo(t)
	run := blockedRun{started: make(chan struct{}), release: make(chan struct{})}
	m := agent.NewManager(agent.Options{Spawner: agent.SpawnFunc(func(context.Context, agent.ChildConfig) (agent.Run, error) {
		return run, nil
	})})
	t.Cleanup(func() { m.Drain(context.Background(), 0, 5*time.Second) })
	tool := agent.New(m, nil)
	if _, err := startWorktree(t, tool, r.Dir, `{"prompt":"hold","agent_id":"busy","worktree":true}`); err != nil {
		t.Fatal(err)
	}
	<-run.started
	cleanup := func() tools.Result {
		t.Helper()
		res, err := tools.Execute(context.Background(), tool, &tools.Context{Workspace: r.Dir}, json.RawMessage(`{"action":"cleanup"}`))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := cleanup(); !res.Success || !strings.Contains(res.Content, `"running":["`+filepath.Join(r.Dir, ".codewhale", "worktrees", "agent_busy")) {
		t.Errorf("cleanup while running: %s", res.Content)
	}
	close(run.release)
	if _, settled := m.Wait(context.Background(), []string{"agent_busy"}, "completion", 10*time.Second); !settled {
		t.Fatal("the child did not finish")
	}
	if res := cleanup(); !res.Success || !strings.Contains(res.Content, `"removed":["`) {
		t.Errorf("cleanup after: %s", res.Content)
	}
}

// A session in a subfolder of the repository gets its worktree at the top
// level, works in the same subfolder there, and the exclude goes into the
// repository's own exclude file, so the checkout stays clean.
func TestWorktreeFromASubfolder(t *testing.T) {
	t.Parallel()
	r := worktreeRepo(t)
	r.Write("pkg/shared.txt", "original\n")
	r.Commit("pkg")
	var got agent.ChildConfig
	m := agent.NewManager(agent.Options{Spawner: agent.SpawnFunc(func(_ context.Context, cc agent.ChildConfig) (agent.Run, error) {
		got = cc
		return writerRun{dir: cc.Workspace}, nil
	})})
	t.Cleanup(func() { m.Drain(context.Background(), 0, 5*time.Second) })
	rec, err := startWorktree(t, agent.New(m, nil), filepath.Join(r.Dir, "pkg"), `{"prompt":"sub","agent_id":"sub","worktree":true}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, settled := m.Wait(context.Background(), []string{rec["agent_id"].(string)}, "completion", 20*time.Second); !settled {
		t.Fatal("the child did not finish")
	}
	if want := filepath.Join(r.Dir, ".codewhale", "worktrees", "agent_sub", "pkg"); got.Workspace != want {
		t.Errorf("child workspace %q, want %q", got.Workspace, want)
	}
	if out := r.Run("show", "codewhale/agent_sub:pkg/shared.txt"); out != "sub\n" {
		t.Errorf("the branch holds %q", out)
	}
	if ex, _ := os.ReadFile(filepath.Join(r.Dir, ".git", "info", "exclude")); !strings.Contains(string(ex), "/.codewhale/worktrees/") {
		t.Errorf("exclude file: %q", ex)
	}
	if st := r.Run("status", "--porcelain"); st != "" {
		t.Errorf("the checkout is not clean: %q", st)
	}
}

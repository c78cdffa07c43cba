package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// worktreeGitTimeout bounds the git commands that record a turn's changes
// and remove worktrees.
const worktreeGitTimeout = 2 * time.Minute

// recordWorktree commits what the child's turn changed in its worktree to
// its branch (codewhale runs this git, outside the child's sandbox, with
// hooks and signing off) and fills in the diff stat and how to merge. A
// failure is kept in the snapshot; the changes stay in the worktree.
func (c *Child) recordWorktree() {
	c.mu.Lock()
	wt := c.worktree
	c.mu.Unlock()
	if wt == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), worktreeGitTimeout)
	defer cancel()
	info := *wt
	info.Error = ""
	g, err := newGit(wt.Path)
	if err == nil {
		g = g.in(wt.Path)
		err = commitAll(ctx, g, fmt.Sprintf("codewhale: %s (%s)\n\n%s", c.ID, c.spec.Role, truncateRunes(c.spec.Prompt, 600)))
	}
	if err != nil {
		info.Error = err.Error()
	}
	if g.bin != "" {
		stat, _ := g.run(ctx, nil, "diff", "--stat", info.Base, "--")
		info.DiffStat = strings.TrimRight(stat, "\n")
	}
	if info.DiffStat == "" {
		info.DiffStat = "no changes"
	}
	info.Merge = fmt.Sprintf("git merge %s (in %s); agent cleanup removes the worktree and keeps the branch", info.Branch, info.top)
	c.mu.Lock()
	c.worktree = &info
	c.mu.Unlock()
}

// commitAll stages everything in the worktree and commits it when there is
// anything to commit. A repository without an identity gets codewhale's
// for this commit only.
func commitAll(ctx context.Context, g git, msg string) error {
	if _, err := g.run(ctx, nil, "add", "--all", "--", "."); err != nil {
		return err
	}
	if _, err := g.run(ctx, nil, "diff", "--cached", "--quiet"); err == nil {
		return nil
	}
	args := []string{"-c", "commit.gpgSign=false", "commit", "--quiet", "--no-verify", "-m", msg}
	_, err := g.run(ctx, nil, args...)
	if err != nil && strings.Contains(err.Error(), "tell me who you are") {
		_, err = g.run(ctx, []string{"GIT_AUTHOR_NAME=codewhale", "GIT_AUTHOR_EMAIL=codewhale@localhost",
			"GIT_COMMITTER_NAME=codewhale", "GIT_COMMITTER_EMAIL=codewhale@localhost"}, args...)
	}
	return err
}

// CleanupReport is what agent cleanup did.
type CleanupReport struct {
	Removed []string `json:"removed"`
	// Running are the worktrees of children still queued or running,
	// left alone; Kept are those git would not remove (path → why).
	Running  []string          `json:"running,omitempty"`
	Kept     map[string]string `json:"kept,omitempty"`
	Branches []string          `json:"branches,omitempty"`
}

// CleanupWorktrees removes the worktrees below the repository's
// .codewhale/worktrees whose child is not running (this session's finished
// children and those a gone session left), keeping their branches; one with
// changes git would lose is kept and reported. Removed children take no
// more follow-ups.
func (m *Manager) CleanupWorktrees(ctx context.Context, workspace string) (CleanupReport, error) {
	rep := CleanupReport{Removed: []string{}, Kept: map[string]string{}}
	g, err := newGit(workspace)
	if err != nil {
		return rep, err
	}
	top, err := g.run(ctx, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return rep, fmt.Errorf("%s is not in a git repository, so it has no sub-agent worktrees", workspace)
	}
	g = g.in(strings.TrimSpace(top))
	root := filepath.Join(g.dir, filepath.FromSlash(WorktreeDir)) + string(filepath.Separator)
	live := m.root().liveWorktrees()
	m.root().gitMu.Lock()
	defer m.root().gitMu.Unlock()
	list, err := g.run(ctx, nil, "worktree", "list", "--porcelain")
	if err != nil {
		return rep, err
	}
	for _, wt := range parseWorktrees(list) {
		if !strings.HasPrefix(wt.path, root) {
			continue
		}
		if live[wt.path] {
			rep.Running = append(rep.Running, wt.path)
			continue
		}
		if _, err := g.run(ctx, nil, "worktree", "remove", "--", wt.path); err != nil {
			rep.Kept[wt.path] = err.Error()
			continue
		}
		rep.Removed = append(rep.Removed, wt.path)
		if wt.branch != "" {
			rep.Branches = append(rep.Branches, wt.branch)
		}
		m.root().markRemoved(wt.path)
	}
	_, _ = g.run(ctx, nil, "worktree", "prune")
	return rep, nil
}

type listedWorktree struct{ path, branch string }

// parseWorktrees reads `git worktree list --porcelain`.
func parseWorktrees(out string) []listedWorktree {
	var list []listedWorktree
	for _, block := range strings.Split(out, "\n\n") {
		var wt listedWorktree
		for _, line := range strings.Split(block, "\n") {
			if p, ok := strings.CutPrefix(line, "worktree "); ok {
				wt.path = p
			} else if b, ok := strings.CutPrefix(line, "branch "); ok {
				wt.branch = strings.TrimPrefix(b, "refs/heads/")
			}
		}
		if wt.path != "" {
			list = append(list, wt)
		}
	}
	return list
}

// liveWorktrees are the worktrees of children still queued or running,
// here and in every child manager.
func (m *Manager) liveWorktrees() map[string]bool {
	out := map[string]bool{}
	for _, c := range m.allChildren() {
		c.mu.Lock()
		if c.worktree != nil && !terminal(c.status) {
			out[c.worktree.Path] = true
		}
		c.mu.Unlock()
	}
	return out
}

// markRemoved records that path's worktree is gone: its child takes no
// more follow-ups.
func (m *Manager) markRemoved(path string) {
	for _, c := range m.allChildren() {
		c.mu.Lock()
		if c.worktree != nil && c.worktree.Path == path {
			wt := *c.worktree
			wt.Removed = true
			c.worktree = &wt
		}
		c.mu.Unlock()
	}
}

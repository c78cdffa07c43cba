package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/binpath"
	"github.com/codewhale/codewhale/internal/gitsafe"
	"github.com/codewhale/codewhale/internal/tools"
)

// WorktreeDir is where children's worktrees live, below the repository's
// top level; it is added to .git/info/exclude, so the person's checkout
// never shows it (CONTRACT.md §6.5).
const WorktreeDir = ".codewhale/worktrees"

// WorktreeInfo is a child's git worktree as its snapshot reports it.
type WorktreeInfo struct {
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Base   string `json:"base"` // the commit it was made from
	// DiffStat and Merge are filled in as each turn ends: the branch's
	// change against Base, and how to take it.
	DiffStat string `json:"diff_stat,omitempty"`
	Merge    string `json:"merge,omitempty"`
	Error    string `json:"error,omitempty"` // recording the turn's changes failed
	Removed  bool   `json:"removed,omitempty"`
	top      string
}

// WorktreeRequest is what a start asks for.
type WorktreeRequest struct {
	Workspace    string // the parent's workspace (canonical)
	Branch, Base string // "" = codewhale/<id>, HEAD
}

// git runs git through gitsafe (the one way codewhale starts git) in dir.
// conf, when set, is a gitsafe.ConfigEnv listed earlier in the same
// worktree start: probe reuses it for commands that run no filter driver,
// so they skip the listing's process.
type git struct {
	bin, dir string
	conf     []string
}

func newGit(workspace string) (git, error) {
	bin, err := binpath.LookPath("git", workspace)
	if err != nil {
		return git{}, fmt.Errorf("git is not installed: %w", err)
	}
	return git{bin: bin, dir: workspace}, nil
}

func (g git) in(dir string) git { return git{bin: g.bin, dir: dir, conf: g.conf} }

// run returns git's stdout; a failure carries its stderr.
func (g git) run(ctx context.Context, env []string, args ...string) (string, error) {
	cmd := gitsafe.Command(ctx, g.bin, g.dir, args...)
	cmd.Env = append(cmd.Env, env...)
	return g.output(cmd, args)
}

// probe is run for a command that runs no filter driver (rev-parse,
// ls-files without -m): the safe configuration listed once per start, by
// the first probe, is enough, since a driver added since could not run.
func (g *git) probe(ctx context.Context, args ...string) (string, error) {
	if g.conf == nil {
		g.conf = gitsafe.ConfigEnv(ctx, g.bin, g.dir)
	}
	cmd := exec.CommandContext(ctx, g.bin, gitsafe.Args(args...)...)
	cmd.Dir = g.dir
	cmd.Env = append(gitsafe.Env(nil), g.conf...)
	return g.output(cmd, args)
}

func (g git) output(cmd *exec.Cmd, args []string) (string, error) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.String(), fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(errb.String()))
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return out.String(), nil
}

// refName refuses a branch or base value that is empty or could be read as
// an option or a path outside the repository, before git sees it.
func refName(field, v string) error {
	switch {
	case strings.TrimSpace(v) == "":
		return tools.InvalidInput("%s must not be empty; leave it out for the default", field)
	case strings.HasPrefix(v, "-"):
		return tools.InvalidInput("%s %q may not start with \"-\"", field, v)
	case strings.ContainsAny(v, " \t\r\n\x00\\") || strings.Contains(v, ".."):
		return tools.InvalidInput("%s %q is not a branch or commit name (no spaces, backslashes or \"..\")", field, v)
	}
	return nil
}

// makeWorktree creates the child's worktree: <top>/.codewhale/worktrees/<id>
// on a new branch from base, after the refusals that lose nothing (no
// repository, a dirty checkout, a worktree folder the person tracks or that
// is a link; a branch that exists or that git does not take, as worktree
// add refuses it). It returns the child's workspace there
// (the parent's, at the same place below the top level).
func (m *Manager) makeWorktree(ctx context.Context, id string, req WorktreeRequest) (*WorktreeInfo, string, error) {
	branch, base := req.Branch, req.Base
	if branch == "" {
		branch = "codewhale/" + id
	}
	if base == "" {
		base = "HEAD"
	}
	if err := refName("worktree_branch", branch); err != nil {
		return nil, "", err
	}
	if err := refName("worktree_base", base); err != nil {
		return nil, "", err
	}
	g, err := newGit(req.Workspace)
	if err != nil {
		return nil, "", tools.NotAvailable("worktree: true needs git: %v", err)
	}
	top, exclude, sha, err := g.locate(ctx, req.Workspace, base)
	if err != nil {
		return nil, "", err
	}
	g = g.in(top)
	if err := clean(ctx, g); err != nil {
		return nil, "", err
	}
	m.root().gitMu.Lock()
	defer m.root().gitMu.Unlock()
	dir, err := worktreeHome(ctx, &g, top, exclude)
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, id)
	if _, err := g.run(ctx, nil, "worktree", "add", "--quiet", "-b", branch, "--", path, sha); err != nil {
		return nil, "", addRefusal(branch, err)
	}
	ws := path
	if rel, err := filepath.Rel(top, req.Workspace); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		ws = filepath.Join(path, rel)
	}
	return &WorktreeInfo{Path: path, Branch: branch, Base: sha, top: top}, ws, nil
}

// locate is the repository's top level, its exclude file and base's
// commit, from one rev-parse (few git processes: the branch name's
// validity and freshness are checked by worktree add itself). base was
// checked by refName, so it is no option; "--" (echoed back) makes it a
// revision. git prints what it resolved before it fails on base, so a
// failure with both paths printed is a bad base, one without them no
// repository; a base naming other than one commit ("^x") is refused too.
func (g *git) locate(ctx context.Context, workspace, base string) (top, exclude, sha string, err error) {
	out, err := g.probe(ctx, "rev-parse", "--show-toplevel", "--git-path", "info/exclude", base+"^{commit}", "--")
	lines := strings.Split(strings.TrimSuffix(strings.TrimSpace(out), "\n--"), "\n")
	switch {
	case err == nil && len(lines) == 3 && objectName(lines[2]):
		return lines[0], absUnder(workspace, lines[1]), lines[2], nil
	case len(lines) >= 2 && filepath.IsAbs(lines[0]):
		return "", "", "", tools.InvalidInput("worktree_base %q is not a commit of this repository", base)
	}
	return "", "", "", tools.NotAvailable("worktree: true needs a git repository, and %s is not in one", workspace)
}

// objectName reports whether s is one full object name (SHA-1 or SHA-256
// hex), as rev-parse prints a single commit; "^<name>" and the like are not.
func objectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// clean refuses a checkout with changes to tracked files: the worktree
// starts from a commit and would not see them.
func clean(ctx context.Context, g git) error {
	out, err := g.run(ctx, nil, "status", "--porcelain=v1", "-z", "--untracked-files=no")
	if err != nil {
		return tools.ExecutionFailed("reading the workspace's status: %v", err)
	}
	if out == "" {
		return nil
	}
	var paths []string
	for _, rec := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
		if len(rec) > 3 && len(paths) < 5 {
			paths = append(paths, rec[3:])
		}
	}
	return tools.InvalidInput("the workspace has uncommitted changes (%s); commit or stash them first: a worktree starts "+
		"from a commit and its sub-agent would not see them", strings.Join(paths, ", "))
}

// addRefusal words worktree add's refusal of the branch: one that exists,
// a name git does not take; anything else failed to run.
func addRefusal(branch string, err error) error {
	switch msg := err.Error(); {
	case strings.Contains(msg, "already exists"):
		return tools.InvalidInput("branch %s already exists; choose another worktree_branch", branch)
	case strings.Contains(msg, "not a valid branch name"):
		return tools.InvalidInput("worktree_branch %q is not a valid branch name", branch)
	}
	return tools.ExecutionFailed("creating the worktree: %v", err)
}

// worktreeHome makes <top>/.codewhale/worktrees, refusing a link on the way
// or a folder with tracked files, and excludes it (in the exclude file)
// from git status.
func worktreeHome(ctx context.Context, g *git, top, exclude string) (string, error) {
	p := top
	for _, part := range strings.Split(WorktreeDir, "/") {
		p = filepath.Join(p, part)
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", tools.PermissionDenied("%s is a symbolic link; worktrees are made only in a real folder of the repository", p)
		}
	}
	if out, err := g.probe(ctx, "ls-files", "-z", "--", WorktreeDir); err != nil || out != "" {
		return "", tools.PermissionDenied("%s holds files the repository tracks; worktrees are never made inside a tracked path", p)
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		return "", tools.ExecutionFailed("creating %s: %v", p, err)
	}
	if err := addExclude(exclude, "/"+WorktreeDir+"/"); err != nil {
		return "", tools.ExecutionFailed("adding %s to .git/info/exclude: %v", WorktreeDir, err)
	}
	return p, nil
}

func absUnder(top, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(top, p)
}

// addExclude appends line to the exclude file unless it is there.
func addExclude(path, line string) error {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == line {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		line = "\n" + line
	}
	_, err = f.WriteString(line + "\n")
	return err
}

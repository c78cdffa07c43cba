package shellpolicy

import (
	"os"
	"path"
	"strings"
)

// gitGlobals are the options before git's subcommand that choose the
// repository: -C moves the directory (each relative to the last), and
// --git-dir / --work-tree (or GIT_DIR / GIT_WORK_TREE) name the repository
// and its work tree, relative to the directory the -C options reached.
type gitGlobals struct {
	cwd      string // "" when unknown
	gitDir   string // as written; "" when not given
	workTree string
	unknown  bool // a --git-dir or --work-tree whose value is not known
}

func (g *gitGlobals) option(c *classifier, name string, v value) {
	if !v.known {
		if name == "-C" {
			g.cwd = ""
		} else {
			g.unknown = true
		}
		return
	}
	switch name {
	case "-C":
		if g.cwd != "" && v.s != "" {
			g.cwd = absIn(g.cwd, c.tilde(v.s))
		}
	case "--git-dir":
		g.gitDir = c.tilde(v.s)
	case "--work-tree":
		g.workTree = c.tilde(v.s)
	}
}

// gitGlobalsAt starts g from the environment git inherits: GIT_DIR and
// GIT_WORK_TREE as an assignment before the command, the script or the
// agent's environment sets them.
func (c *classifier) gitGlobalsAt(cwd string) gitGlobals {
	g := gitGlobals{cwd: cwd}
	for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE"} {
		v, ok := c.prefix[name]
		if !ok {
			s, set := c.lookup(name)
			v = value{s: s, known: true, literal: set}
			if !set {
				continue
			}
		}
		flag := "--git-dir"
		if name == "GIT_WORK_TREE" {
			flag = "--work-tree"
		}
		g.option(c, flag, v)
	}
	return g
}

func absIn(dir, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(dir, p)
}

// repo is the repository a git command line uses.
type repo struct {
	top      string // the work tree's top (the directory git runs in when bare)
	gitDir   string
	common   string // the common directory of a linked worktree's refs and objects
	explicit bool   // named by --git-dir (so every git run here names it too)
}

func (r repo) index() string {
	if r.gitDir == "" {
		return ""
	}
	return path.Join(r.gitDir, "index")
}

// gitRepo finds the repository git would use with g, reading files only:
// the named git directory, or the first .git (a directory, or a file
// "gitdir: DIR" of a linked worktree or submodule) above g.cwd. ok is false
// when there is none or it cannot be known.
func (c *classifier) gitRepo(g gitGlobals) (r repo, ok bool) {
	if g.cwd == "" || g.unknown {
		return repo{}, false
	}
	if g.gitDir != "" {
		r = repo{gitDir: gitDirAt(absIn(g.cwd, g.gitDir)), top: g.cwd, explicit: true}
	} else if r, ok = discoverRepo(g.cwd); !ok {
		return repo{}, false
	}
	if g.workTree != "" {
		r.top, r.explicit = absIn(g.cwd, g.workTree), true
	}
	r.common = r.gitDir
	if b, err := os.ReadFile(path.Join(r.gitDir, "commondir")); err == nil {
		r.common = absIn(r.gitDir, strings.TrimSpace(string(b)))
	}
	return r, r.gitDir != ""
}

// gitDirAt follows a .git file ("gitdir: DIR") to the directory it names.
func gitDirAt(p string) string {
	fi, err := os.Stat(p)
	if err != nil || fi.IsDir() {
		return p
	}
	b, err := os.ReadFile(p)
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if err != nil || !ok {
		return ""
	}
	return absIn(path.Dir(p), dir)
}

func discoverRepo(cwd string) (repo, bool) {
	for d := cwd; path.IsAbs(d); d = path.Dir(d) {
		dot := path.Join(d, ".git")
		if fi, err := os.Lstat(dot); err == nil && (fi.IsDir() || fi.Mode().IsRegular()) {
			return repo{top: d, gitDir: gitDirAt(dot)}, true
		}
		if d == "/" {
			break
		}
	}
	return repo{}, false
}

package shellpolicy

import (
	"bytes"
	"context"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/binpath"
	"github.com/codewhale/codewhale/internal/gitsafe"
)

// trackedSecret is a tracked path (relative to the work tree's top) the
// credential guard calls secret, with its reason.
type trackedSecret struct{ path, reason string }

// trackedCache holds, per index file, the tracked secret paths as of the
// index's modification time and size: git ls-files runs once per index
// change, not once per classified command. Bounded by maxTracked entries.
type trackedEntry struct {
	mod     time.Time
	size    int64
	secrets []trackedSecret
}

const maxTracked = 32

var trackedCache struct {
	sync.Mutex
	m map[string]trackedEntry
}

// repoTop is the work tree that git started in the classifier's directory
// uses, and its index file; "" when there is none (or the directory is
// unknown, when the command is not read-only anyway).
func (c *classifier) repoTop() (top, index string) {
	for d := c.cwd; path.IsAbs(d); d = path.Dir(d) {
		dot := path.Join(d, ".git")
		fi, err := os.Lstat(dot)
		switch {
		case err == nil && fi.IsDir():
			return d, path.Join(dot, "index")
		case err == nil && fi.Mode().IsRegular():
			// A linked worktree or submodule: "gitdir: DIR".
			b, err := os.ReadFile(dot)
			dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
			if err != nil || !ok {
				return d, ""
			}
			if !path.IsAbs(dir) {
				dir = path.Join(d, dir)
			}
			return d, path.Join(dir, "index")
		}
		if d == "/" {
			break
		}
	}
	return "", ""
}

// trackedSecrets lists the secret files the repository at top tracks,
// through the safe git runner (internal/gitsafe) and the git binpath finds
// outside the workspace. A failure lists none: the shell's git fails on the
// same repository and prints nothing either.
//
// git ls-files lists the index, so a repository without one (nothing added
// yet) tracks nothing and costs no process.
func (c *classifier) trackedSecrets(top, index string) []trackedSecret {
	fi, err := os.Stat(index)
	if index == "" || err != nil {
		return nil
	}
	key := top + "\x00" + index
	custom := c.env.SecretPath != nil // tests' predicates are not cached
	if !custom {
		trackedCache.Lock()
		defer trackedCache.Unlock()
		if e, ok := trackedCache.m[key]; ok && e.mod.Equal(fi.ModTime()) && e.size == fi.Size() {
			return e.secrets
		}
	}
	list := c.listTracked(top)
	if !custom {
		if trackedCache.m == nil || len(trackedCache.m) >= maxTracked {
			trackedCache.m = map[string]trackedEntry{}
		}
		trackedCache.m[key] = trackedEntry{mod: fi.ModTime(), size: fi.Size(), secrets: list}
	}
	return list
}

func (c *classifier) listTracked(top string) []trackedSecret {
	bin, err := binpath.LookPath("git", c.env.Workspace)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := gitsafe.Command(ctx, bin, top, "ls-files", "-z").Output()
	if err != nil {
		return nil
	}
	var list []trackedSecret
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		rel := string(rec)
		if reason, ok := c.secretPath(path.Join(top, rel)); ok {
			list = append(list, trackedSecret{rel, reason})
		}
	}
	return list
}

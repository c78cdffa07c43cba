package shellpolicy

import (
	"bytes"
	"context"
	"os"
	"path"
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

// trackedSecrets lists the secret files the repository at top tracks,
// through the safe git runner (internal/gitsafe) and the git binpath finds
// outside the workspace. A failure lists none: the shell's git fails on the
// same repository and prints nothing either.
//
// git ls-files lists the index, so a repository without one (nothing added
// yet) tracks nothing and costs no process.
func (c *classifier) trackedSecrets(r repo) []trackedSecret {
	index := r.index()
	fi, err := os.Stat(index)
	if index == "" || err != nil {
		return nil
	}
	key := r.top + "\x00" + index
	custom := c.env.SecretPath != nil // tests' predicates are not cached
	if !custom {
		trackedCache.Lock()
		defer trackedCache.Unlock()
		if e, ok := trackedCache.m[key]; ok && e.mod.Equal(fi.ModTime()) && e.size == fi.Size() {
			return e.secrets
		}
	}
	list := c.listTracked(r)
	if !custom {
		if trackedCache.m == nil || len(trackedCache.m) >= maxTracked {
			trackedCache.m = map[string]trackedEntry{}
		}
		trackedCache.m[key] = trackedEntry{mod: fi.ModTime(), size: fi.Size(), secrets: list}
	}
	return list
}

func (c *classifier) listTracked(r repo) []trackedSecret {
	out, err := c.runGit(r, 10*time.Second, "ls-files", "-z")
	if err != nil {
		return nil
	}
	return c.secretsIn(r, out)
}

// secretsIn is the secret paths of a -z list of repository paths, once each.
func (c *classifier) secretsIn(r repo, out []byte) []trackedSecret {
	var list []trackedSecret
	seen := map[string]bool{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		rel := string(bytes.TrimSpace(rec))
		if rel == "" || seen[rel] {
			continue
		}
		seen[rel] = true
		if reason, ok := c.secretPath(path.Join(r.top, rel)); ok {
			list = append(list, trackedSecret{rel, reason})
		}
	}
	return list
}

// runGit runs git on repository r through the safe git runner
// (internal/gitsafe: no fsmonitor, pager, hooks or drivers of r's
// configuration run) and the git binpath finds outside the workspace, with
// r's git directory and work tree named when the command named them.
func (c *classifier) runGit(r repo, timeout time.Duration, args ...string) ([]byte, error) {
	bin, err := binpath.LookPath("git", c.env.Workspace)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if r.explicit {
		args = append([]string{"--git-dir=" + r.gitDir, "--work-tree=" + r.top}, args...)
	}
	out, err := gitsafe.Command(ctx, bin, r.top, args...).Output()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return out, err
}

package shellpolicy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"sync"
	"time"
)

// A secret file added in one commit and deleted in a later one is gone
// from the index but not from the history: git log -p, git show of that
// commit, git diff between revisions still print it. historySecrets lists
// every path any commit reachable from a ref or a reflog ever added
// (git log --all --reflog -m --no-renames --diff-filter=A --name-only: a
// rename counts as an add of the new name, a merge's own additions count),
// and the rule of gitSecrets applies to them as to the tracked ones.
//
// The listing walks the whole history, so it is cached per repository
// state: the commit HEAD names and the files a commit, checkout, fetch,
// stash or gc rewrites (see historyKey). On this project's history it
// costs one git process of about 60 ms, once per state (docs/PERFORMANCE.md).

// historyTimeout bounds the walk; a history longer than it can walk is
// reported as unchecked (cached too), which makes its history-printing
// forms need explicit approval.
const historyTimeout = 5 * time.Second

type historyEntry struct {
	key      string
	secrets  []trackedSecret
	complete bool
}

var historyCache struct {
	sync.Mutex
	m map[string]historyEntry
}

func (c *classifier) historySecrets(r repo) (secrets []trackedSecret, complete bool) {
	key, ok := historyKey(r)
	if !ok {
		return nil, true // no commits: no history to print
	}
	custom := c.env.SecretPath != nil // tests' predicates are not cached
	if !custom {
		historyCache.Lock()
		defer historyCache.Unlock()
		if e, ok := historyCache.m[r.gitDir]; ok && e.key == key {
			return e.secrets, e.complete
		}
	}
	out, err := c.runGit(r, historyTimeout, "log", "--all", "--reflog", "-m", "--no-renames", "--diff-filter=A",
		"--name-only", "--format=", "-z")
	e := historyEntry{key: key, complete: !errors.Is(err, context.DeadlineExceeded)}
	if err == nil {
		e.secrets = c.secretsIn(r, out)
	}
	if !custom {
		if historyCache.m == nil || len(historyCache.m) >= maxTracked {
			historyCache.m = map[string]historyEntry{}
		}
		historyCache.m[r.gitDir] = e
	}
	return e.secrets, e.complete
}

// historyKey stamps what the reachable history depends on, from files
// alone: HEAD and the ref it names, and the files that change when a
// commit, checkout, reset, merge (logs/HEAD), fetch (FETCH_HEAD), stash
// (refs/stash) or gc / pack-refs (packed-refs) moves a ref. ok is false
// when HEAD names no commit yet.
func historyKey(r repo) (string, bool) {
	head, err := os.ReadFile(path.Join(r.gitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	var b strings.Builder
	b.Write(head)
	if ref, isRef := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); isRef {
		tip, err := os.ReadFile(path.Join(r.common, ref))
		if err != nil && !fileExists(path.Join(r.common, "packed-refs")) {
			return "", false // an unborn branch
		}
		b.Write(tip)
	}
	for _, f := range []string{path.Join(r.common, "packed-refs"), path.Join(r.gitDir, "logs", "HEAD"),
		path.Join(r.common, "logs", "HEAD"), path.Join(r.common, "FETCH_HEAD"), path.Join(r.common, "refs", "stash")} {
		if fi, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "\x00%d.%d", fi.ModTime().UnixNano(), fi.Size())
		}
	}
	return b.String(), true
}

package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codewhale/codewhale/internal/tools/confine"
)

// Skip is a file a snapshot left out.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Snap is one recorded state of the workspace: a tree in the side store.
type Snap struct {
	Tree    string `json:"tree"`
	Skipped []Skip `json:"skipped,omitempty"`
}

// Snapshot records the workspace as it is now. Only what changed since the
// last snapshot is read: git status finds it through the side index's stat
// cache, files over the size limit are skipped and listed, and the rest is
// added and written as a tree.
func (s *Store) Snapshot(ctx context.Context) (Snap, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshot(ctx, nil, "")
}

// maxPaths is the most paths a limited snapshot names on git's command
// line; more are snapshotted whole.
const maxPaths = 1000

// SnapshotPaths records the workspace with only paths (workspace-relative,
// literal) looked at again — for a call that says exactly which files it
// changed (a File write, edit or patch), so a large tree is not walked. Every
// other path keeps its state from the last snapshot; the ignore rules and
// the size limit apply as in Snapshot.
func (s *Store) SnapshotPaths(ctx context.Context, paths []string) (Snap, error) {
	return s.Refresh(ctx, paths, "")
}

// Refresh is SnapshotPaths right after the snapshot whose tree was since
// (the last this store took: its index is still that tree's): when
// nothing it looks at changed, the state is since again and no tree is
// written.
func (s *Store) Refresh(ctx context.Context, paths []string, since string) (Snap, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(paths) == 0 || len(paths) > maxPaths {
		return s.snapshot(ctx, nil, since)
	}
	return s.snapshot(ctx, paths, since)
}

// snapshot records the workspace; with paths, only those are looked at;
// with since, nothing listed means since is the tree.
// Cancelling ctx stops it while it only reads (the listing); once it
// writes the side store (its creation, the index, the tree) it goes on to
// the end, or to ctx's deadline, so a cancelled turn never leaves a
// half-made store or git's index lock behind.
func (s *Store) snapshot(ctx context.Context, paths []string, since string) (Snap, error) {
	wctx := context.WithoutCancel(ctx)
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(wctx, d)
		defer cancel()
	}
	if err := s.init(wctx); err != nil {
		return Snap{}, err
	}
	// Index against work tree only (there is no HEAD): modified, deleted and
	// untracked-not-ignored paths, each tagged — output in proportion to
	// what changed, not to the tree. Pathspecs are literal (the store's
	// environment), so a name with glob characters matches only itself.
	args := []string{"ls-files", "-z", "-t", "--modified", "--deleted", "--others", "--exclude-standard"}
	if paths != nil {
		args = append(append(args, "--"), paths...)
	}
	out, err := s.run(ctx, nil, args...)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return Snap{}, err
	}
	root, err := confine.OpenRoot(s.ws)
	if err != nil {
		return Snap{}, fmt.Errorf("checkpoint: %w", err)
	}
	snap, list, newSkips := s.classify(out, beneath(root))
	root.Close()
	if since != "" && len(list.gone) == 0 && len(list.add) == 0 && len(newSkips) == 0 {
		snap.Tree = since
		return snap, nil
	}
	if len(newSkips) > 0 {
		if err := s.addSkips(newSkips); err != nil {
			return Snap{}, err
		}
	}
	// The exact paths ls-files listed, so nothing is walked again; the
	// ignore rules were applied there (a path ignored now, say by a
	// .gitignore added this turn, is still recorded so it can be restored).
	// Entries that are gone go first, so a file that became a directory, or
	// a directory that became a file, is replaced in the index, not added
	// beside its old self.
	for _, step := range []struct {
		paths []byte
		args  []string
	}{{list.gone, []string{"--force-remove"}}, {list.add, []string{"--add", "--remove", "--replace"}}} {
		if len(step.paths) == 0 {
			continue
		}
		if _, err := s.run(wctx, step.paths, append(append([]string{"update-index"}, step.args...), "-z", "--stdin")...); err != nil {
			return Snap{}, err
		}
	}
	tree, err := s.run(wctx, nil, "write-tree")
	if err != nil {
		return Snap{}, err
	}
	snap.Tree = strings.TrimSpace(string(tree))
	return snap, nil
}

// updates are the NUL-separated paths a snapshot removes from the side
// index and adds (or refreshes) in it.
type updates struct{ gone, add []byte }

// classify splits ls-files' tagged listing into the updates to make, the files
// skipped (over the size limit, nested repositories) and the ignore
// patterns that keep untracked skipped ones out of later listings. A path
// whose parents are not all directories (one became a symbolic link) is
// gone from the tree, whatever the link leads to.
func (s *Store) classify(listing []byte, inTree func(string) bool) (Snap, updates, []string) {
	var snap Snap
	var u updates
	var newSkips []string
	seen := map[string]bool{}
	for _, rec := range bytes.Split(listing, []byte{0}) {
		if len(rec) < 3 {
			continue
		}
		tag, path := rec[0], string(rec[2:])
		if seen[path] {
			continue // a deleted file is listed as changed and removed
		}
		seen[path] = true
		if strings.HasSuffix(path, "/") { // an untracked nested repository
			snap.Skipped = append(snap.Skipped, Skip{Path: path, Reason: "a git repository of its own, not recorded"})
			newSkips = append(newSkips, "/"+escapeGlob(strings.TrimSuffix(path, "/"))+"/")
			continue
		}
		var fi os.FileInfo
		err := fs.ErrNotExist
		if inTree(path) {
			fi, err = os.Lstat(filepath.Join(s.ws, path))
		}
		switch {
		case err != nil || fi.IsDir(): // deleted, beyond a link, or a file that is a directory now
			u.gone = append(append(u.gone, path...), 0)
		case fi.Mode().IsRegular() && fi.Size() > s.maxFile:
			snap.Skipped = append(snap.Skipped, Skip{Path: path, Reason: fmt.Sprintf("%d bytes, over the %d-byte limit", fi.Size(), s.maxFile)})
			if tag == '?' {
				newSkips = append(newSkips, "/"+escapeGlob(path))
			}
		default:
			u.add = append(append(u.add, path...), 0)
		}
	}
	return snap, u, newSkips
}

func (s *Store) addSkips(globs []string) error {
	f, err := os.OpenFile(s.skipPath(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strings.Join(globs, "\n") + "\n")
	f.Close()
	if err != nil {
		return err
	}
	return s.syncExcludes()
}

// beneath answers whether a workspace path's parents are all directories
// reached through no symbolic link, asking the confined stat (which refuses
// a link on the way) once per directory.
func beneath(root *confine.Root) func(string) bool {
	dirs := map[string]bool{".": true}
	return func(p string) bool {
		d := path.Dir(p)
		ok, seen := dirs[d]
		if !seen {
			fi, err := root.Stat(d)
			ok = err == nil && fi.IsDir()
			dirs[d] = ok
		}
		return ok
	}
}

// escapeGlob quotes gitignore metacharacters so a path matches only itself.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]\!# `, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Change is one path a turn changed.
type Change struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // added, modified, deleted, type_changed
	// Note says what a restore of the path had to do besides (a symbolic
	// link in its way removed, Store.Apply).
	Note string `json:"note,omitempty"`
}

// Changes lists what differs from tree a to tree b.
func (s *Store) Changes(ctx context.Context, a, b string) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changes(ctx, a, b)
}

func (s *Store) changes(ctx context.Context, a, b string) ([]Change, error) {
	if a == b {
		return nil, nil
	}
	if err := s.init(ctx); err != nil {
		return nil, err
	}
	out, err := s.run(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--name-status", a, b)
	if err != nil {
		return nil, err
	}
	parts := bytes.Split(bytes.TrimRight(out, "\x00"), []byte{0})
	var changes []Change
	for i := 0; i+1 < len(parts); i += 2 {
		kind := map[byte]string{'A': "added", 'M': "modified", 'D': "deleted", 'T': "type_changed"}[parts[i][0]]
		changes = append(changes, Change{Path: string(parts[i+1]), Kind: kind})
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes, nil
}

// Diff is the unified diff from tree a to tree b (binary files named, not
// shown), optionally limited to paths.
func (s *Store) Diff(ctx context.Context, a, b string, paths ...string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.init(ctx); err != nil {
		return "", err
	}
	args := []string{"diff", "--no-color", "--no-renames", a, b}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	out, err := s.run(ctx, nil, args...)
	return string(out), err
}

package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/codewhale/codewhale/internal/tools/confine"
)

// Apply restores the plan's paths (and, with force, its conflicts too) to
// their version in tree to, by content from the side store and through the
// confined file operations beneath the workspace (internal/tools/confine):
// no write, removal or directory it makes passes through a symbolic link.
// Files the turn created are removed; files it deleted or changed are
// written back with their mode bits, a link as a link.
//
// A symbolic link that now stands where tree to has a directory (planted
// after the checkpoint, say by a later command) is removed — the link,
// never what it points at — and the directory made again; the first change
// beneath it says so in its Note. Anything else in the way that only
// destroying the person's data would clear (a file where a directory was, a
// directory holding files no checkpoint recorded) stops the restore before
// anything is changed.
func (s *Store) Apply(ctx context.Context, p Plan, to string, force bool) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	changes := append([]Change(nil), p.Restore...)
	if force {
		for _, c := range p.Conflicts {
			changes = append(changes, Change{Path: c.Path})
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	for _, c := range changes {
		if full := filepath.Join(s.ws, c.Path); !inside(s.ws, full) {
			return nil, fmt.Errorf("checkpoint: refusing to touch %s outside the workspace", full)
		}
	}
	inTo, err := s.entries(ctx, to, changes)
	if err != nil {
		return nil, err
	}
	root, err := confine.OpenRoot(s.ws)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer root.Close()
	var writes, removes []Change
	for _, c := range changes {
		if e, ok := inTo[c.Path]; ok && e.mode == "160000" {
			continue // a repository of its own is never recorded, so never touched
		} else if ok {
			c.Kind = orKind(c.Kind, "modified")
			writes = append(writes, c)
		} else {
			c.Kind = orKind(c.Kind, "deleted")
			removes = append(removes, c)
		}
	}
	links, err := obstacles(root, writes, removes)
	if err != nil {
		return nil, err
	}
	done, err := removeAll(root, removes)
	if err != nil {
		return done, err
	}
	for _, l := range links {
		if err := root.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return done, fmt.Errorf("checkpoint: removing the link %s: %w", l.path, err)
		}
	}
	noteLinks(writes, links)
	wrote, err := s.writeAll(ctx, root, writes, inTo)
	return append(done, wrote...), err
}

func orKind(kind, def string) string {
	if kind == "" {
		return def
	}
	return kind
}

// entry is one path's record in a tree.
type entry struct{ mode, oid string }

// entries lists tree's entries for the changes' paths.
func (s *Store) entries(ctx context.Context, tree string, changes []Change) (map[string]entry, error) {
	inTo := map[string]entry{}
	if len(changes) == 0 {
		return inTo, nil
	}
	want := map[string]bool{}
	args := []string{"ls-tree", "-r", "-z", tree}
	for _, c := range changes {
		want[c.Path] = true
	}
	if len(changes) <= maxPaths { // else the whole tree is listed and filtered
		args = append(args, "--")
		for _, c := range changes {
			args = append(args, c.Path)
		}
	}
	listed, err := s.run(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	for _, rec := range bytes.Split(bytes.TrimRight(listed, "\x00"), []byte{0}) {
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if ok && len(f) == 3 && want[string(p)] {
			inTo[string(p)] = entry{mode: f[0], oid: f[2]}
		}
	}
	return inTo, nil
}

// link is a symbolic link standing where a restored path needs a
// directory.
type link struct{ path, target string }

// obstacles checks, before anything changes, what stands where the writes
// go: the links to remove, or an error for anything else only destroying
// would clear. What removes takes away first is no obstacle.
func obstacles(root *confine.Root, writes, removes []Change) ([]link, error) {
	removed := map[string]bool{}
	for _, c := range removes {
		removed[c.Path] = true
	}
	seen := map[string]bool{}
	var links []link
	for _, c := range writes {
		dir, kind, err := firstNonDir(root, c.Path)
		switch {
		case err != nil:
			return nil, err
		case kind == inWay && removed[dir], kind == missing:
			continue // cleared first, or made when the path is written
		case kind == inWay && isLink(root, dir):
			if !seen[dir] {
				seen[dir] = true
				target, _ := os.Readlink(filepath.Join(root.Path(), dir)) // only named in the note
				links = append(links, link{path: dir, target: target})
			}
			continue
		case kind == inWay:
			return nil, fmt.Errorf("checkpoint: %s cannot be restored: %s is a file now, not the directory it was; "+
				"move it away and run the command again (nothing was changed)", c.Path, dir)
		}
		if fi, err := root.Stat(c.Path); err == nil && fi.IsDir() && !emptiedBy(root, c.Path, removed) {
			return nil, fmt.Errorf("checkpoint: %s cannot be restored: it is a directory now, holding files no checkpoint "+
				"recorded; move it away and run the command again (nothing was changed)", c.Path)
		}
	}
	return links, nil
}

// What stands at the first parent of a path that is not a directory.
const (
	clear   = iota // every parent is a directory
	missing        // a parent does not exist
	inWay          // a parent is a link or a file
)

// firstNonDir walks rel's parents from the top and returns the first that
// is not a directory, with what it is.
func firstNonDir(root *confine.Root, rel string) (string, int, error) {
	comps := strings.Split(rel, "/")
	for i := 1; i < len(comps); i++ {
		dir := strings.Join(comps[:i], "/")
		fi, err := root.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return dir, missing, nil
		case errors.Is(err, confine.ErrSymlink), errors.Is(err, syscall.ENOTDIR):
			return dir, inWay, nil // the parents above are directories, so dir itself is a link or a file
		case err != nil:
			return "", clear, fmt.Errorf("checkpoint: %w", err)
		case !fi.IsDir():
			return dir, inWay, nil
		}
	}
	return "", clear, nil
}

// isLink reports whether rel (whose parents are directories) is a
// symbolic link. Where a stat beneath the root cannot describe a link it
// refuses it with ErrSymlink, which says the same.
func isLink(root *confine.Root, rel string) bool {
	fi, err := root.Stat(rel)
	return errors.Is(err, confine.ErrSymlink) || err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// emptiedBy reports whether removing removed leaves nothing in the
// directory dir but what it removes (at any depth).
func emptiedBy(root *confine.Root, dir string, removed map[string]bool) bool {
	f, err := root.Open(dir)
	if err != nil {
		return false
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return false
	}
	for _, n := range names {
		child := dir + "/" + n
		under := removed[child]
		for p := range removed {
			under = under || strings.HasPrefix(p, child+"/")
		}
		if !under {
			return false
		}
	}
	return true
}

// removeAll removes the paths tree to does not have. A path beyond a
// symbolic link is not in the workspace at all: it is left alone, and the
// change says so.
func removeAll(root *confine.Root, removes []Change) ([]Change, error) {
	var done []Change
	for _, c := range removes {
		dir, kind, err := firstNonDir(root, c.Path)
		switch {
		case err != nil:
			return done, err
		case kind == inWay && isLink(root, dir):
			c.Note = fmt.Sprintf("%s is beyond a symbolic link now (%s), so it is not in the workspace; nothing was "+
				"removed through the link", c.Path, dir)
			done = append(done, c)
			continue
		case kind != clear:
			done = append(done, c) // gone already
			continue
		}
		fi, err := root.Stat(c.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			err = nil
		case err == nil && fi.IsDir():
			err = root.RemoveDir(c.Path)
		case err == nil, errors.Is(err, confine.ErrSymlink):
			err = root.Remove(c.Path) // a link itself, never its target
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return done, fmt.Errorf("checkpoint: removing %s: %w", c.Path, err)
		}
		pruneEmptyDirs(root, path.Dir(c.Path))
		done = append(done, c)
	}
	return done, nil
}

// pruneEmptyDirs removes directories a restore emptied, up to the root.
func pruneEmptyDirs(root *confine.Root, dir string) {
	for ; dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		if root.RemoveDir(dir) != nil {
			return
		}
	}
}

// noteLinks puts each removed link's note on the first write beneath it.
func noteLinks(writes []Change, links []link) {
	for _, l := range links {
		for i := range writes {
			if strings.HasPrefix(writes[i].Path, l.path+"/") {
				writes[i].Note = fmt.Sprintf("%s was a symbolic link to %s, made after the checkpoint: the link was removed "+
					"(not what it points to) and %s is a directory again, so %s is restored as a file; nothing was "+
					"written through the link", l.path, orKind(l.target, "?"), l.path, writes[i].Path)
				break
			}
		}
	}
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
}

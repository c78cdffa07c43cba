package git

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// indexEntry is one entry of .git/index with the stat data git caches.
type indexEntry struct {
	ctimeSec, ctimeNsec, mtimeSec, mtimeNsec uint32
	dev, ino, mode, uid, gid, size           uint32
	hash                                     plumbing.Hash
	stage                                    int
	skipWorktree, intentToAdd                bool
	assumeValid                              bool // `git update-index --assume-unchanged`: never compared with the worktree
	name                                     string
}

// cacheTree is a node of the index's TREE extension: the tree object the
// index span below path would produce, or entries < 0 when invalidated.
type cacheTree struct {
	entries  int
	hash     plumbing.Hash
	children map[string]*cacheTree
}

// gitIndex is the parsed index file.
type gitIndex struct {
	entries []indexEntry
	tree    *cacheTree // nil without a TREE extension
	mtime   time.Time  // the index file's mtime, for the racy-git check
}

// readIndex parses .git/index (versions 2 to 4). A missing index is empty.
// It reads the file itself rather than through go-git so that the
// cache-tree keeps its shape (go-git drops invalidated nodes).
func readIndex(gitDir string) (*gitIndex, error) {
	path := filepath.Join(gitDir, "index")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &gitIndex{}, nil
	}
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	idx := &gitIndex{mtime: info.ModTime()}
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("index file corrupt: bad signature")
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("index file has unsupported version %d", version)
	}
	count := int(binary.BigEndian.Uint32(data[8:]))
	body := data[12 : len(data)-20]
	idx.entries = make([]indexEntry, 0, min(count, len(body)/62))
	off, prev := 0, ""
	for range count {
		e, n, err := parseIndexEntry(body[off:], version, prev)
		if err != nil {
			return nil, err
		}
		idx.entries = append(idx.entries, e)
		off += n
		prev = e.name
	}
	var split bool
	if idx.tree, split = parseExtensions(body[off:]); split {
		return nil, errSplitIndex
	}
	return idx, nil
}

func parseIndexEntry(b []byte, version uint32, prev string) (indexEntry, int, error) {
	const fixed = 62
	if len(b) < fixed {
		return indexEntry{}, 0, fmt.Errorf("index file corrupt: short entry")
	}
	u := func(i int) uint32 { return binary.BigEndian.Uint32(b[i*4:]) }
	e := indexEntry{ctimeSec: u(0), ctimeNsec: u(1), mtimeSec: u(2), mtimeNsec: u(3),
		dev: u(4), ino: u(5), mode: u(6), uid: u(7), gid: u(8), size: u(9)}
	copy(e.hash[:], b[40:60])
	flags := binary.BigEndian.Uint16(b[60:])
	e.stage = int(flags>>12) & 3
	e.assumeValid = flags&0x8000 != 0
	n := fixed
	if flags&0x4000 != 0 {
		if len(b) < n+2 {
			return indexEntry{}, 0, fmt.Errorf("index file corrupt: short entry")
		}
		ext := binary.BigEndian.Uint16(b[n:])
		e.skipWorktree, e.intentToAdd = ext&0x4000 != 0, ext&0x2000 != 0
		n += 2
	}
	if version == 4 {
		strip, used := decodeIndexVarint(b[n:])
		if used == 0 || int(strip) > len(prev) {
			return indexEntry{}, 0, fmt.Errorf("index file corrupt: bad path prefix")
		}
		n += used
		end := bytes.IndexByte(b[n:], 0)
		if end < 0 {
			return indexEntry{}, 0, fmt.Errorf("index file corrupt: unterminated path")
		}
		e.name = prev[:len(prev)-int(strip)] + string(b[n:n+end])
		return e, n + end + 1, nil
	}
	end := bytes.IndexByte(b[n:], 0)
	if end < 0 {
		return indexEntry{}, 0, fmt.Errorf("index file corrupt: unterminated path")
	}
	e.name = string(b[n : n+end])
	return e, (n + end + 8) &^ 7, nil
}

// decodeIndexVarint reads git's offset varint (index v4 path prefixes).
func decodeIndexVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	i := 0
	c := b[i]
	i++
	val := uint64(c & 127)
	for c&128 != 0 {
		if i >= len(b) {
			return 0, 0
		}
		val++
		c = b[i]
		i++
		val = val<<7 + uint64(c&127)
	}
	return val, i
}

// parseExtensions finds the TREE extension among the index extensions.
func parseExtensions(b []byte) (tree *cacheTree, split bool) {
	for len(b) >= 8 {
		sig, size := string(b[:4]), int(binary.BigEndian.Uint32(b[4:]))
		if size > len(b)-8 {
			return tree, split
		}
		switch sig {
		case "TREE":
			tree, _ = parseCacheTree(b[8 : 8+size])
		case "link":
			split = true
		}
		b = b[8+size:]
	}
	return tree, split
}

// errSplitIndex refuses a split index (core.splitIndex): the entries are
// in a shared index this backend does not merge, so what it would report
// is wrong (every file renamed onto itself, a nameless deletion).
var errSplitIndex = &failure{needsCLI: true, msg: "this repository uses a split index (core.splitIndex); the go-git " +
	"backend cannot read it — install git, or run `git update-index --no-split-index`"}

// parseCacheTree decodes one node (and its subtrees, recursively) of the
// preorder TREE extension.
func parseCacheTree(b []byte) (*cacheTree, []byte) {
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, nil
	}
	rest := b[nul+1:]
	sp := bytes.IndexByte(rest, ' ')
	nl := bytes.IndexByte(rest, '\n')
	if sp < 0 || nl < sp {
		return nil, nil
	}
	entries, err1 := strconv.Atoi(string(rest[:sp]))
	subtrees, err2 := strconv.Atoi(string(rest[sp+1 : nl]))
	if err1 != nil || err2 != nil {
		return nil, nil
	}
	rest = rest[nl+1:]
	t := &cacheTree{entries: entries, children: map[string]*cacheTree{}}
	if entries >= 0 {
		if len(rest) < 20 {
			return nil, nil
		}
		copy(t.hash[:], rest[:20])
		rest = rest[20:]
	}
	for range subtrees {
		name := string(rest[:max(0, bytes.IndexByte(rest, 0))])
		var child *cacheTree
		if child, rest = parseCacheTree(rest); child == nil {
			return nil, nil
		}
		t.children[name] = child
	}
	return t, rest
}

// lookup returns the valid cache-tree node for a directory, or nil.
func (t *cacheTree) lookup(dir string) *cacheTree {
	for t != nil && dir != "" {
		name, rest, _ := strings.Cut(dir, "/")
		t, dir = t.children[name], rest
	}
	if t == nil || t.entries < 0 {
		return nil
	}
	return t
}

package session

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

const (
	indexFile    = "index.json"
	indexVersion = 1
)

// Query selects sessions for List.
type Query struct {
	Workspace string // only sessions recorded in this workspace; "" for every workspace
	Search    string // case-insensitive text in the title or the first message
	Limit     int    // at most this many; 0 for all
	Archived  bool   // include archived sessions
}

type indexEntry struct {
	File  string `json:"file"`
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime_ns"`
	Meta  Meta   `json:"meta"`
}

type indexDoc struct {
	Version  int          `json:"version"`
	Sessions []indexEntry `json:"sessions"`
}

// List returns the sessions that match q, most recently updated first. It
// reads the index, re-summarises only journals that changed since it was
// written, and refreshes it.
func List(home string, q Query) ([]Meta, error) {
	entries, err := scan(Dir(home))
	if err != nil {
		return nil, err
	}
	ws := cleanPath(q.Workspace)
	needle := strings.ToLower(strings.TrimSpace(q.Search))
	var out []Meta
	for _, e := range entries {
		m := e.Meta
		switch {
		case ws != "" && cleanPath(m.Workspace) != ws:
		case m.Archived && !q.Archived:
		case needle != "" && !strings.Contains(strings.ToLower(m.Title+"\n"+m.Preview), needle):
		default:
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b Meta) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

func cleanPath(p string) string {
	if p == "" {
		return ""
	}
	return filepath.Clean(p)
}

// scan returns one entry per journal in dir, using the index where the
// journal's size and mtime still match it.
func scan(dir string) ([]indexEntry, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing sessions in %s: %w", dir, err)
	}
	old := readIndex(dir)
	out := make([]indexEntry, 0, len(des))
	var stale []indexEntry
	dirty := false
	for _, de := range des {
		name := de.Name()
		if !de.Type().IsRegular() || !strings.HasSuffix(name, journalExt) {
			continue
		}
		info, err := de.Info()
		if err != nil {
			dirty = true // removed while listing
			continue
		}
		if e, ok := old[name]; ok && e.Size == info.Size() && e.MTime == info.ModTime().UnixNano() {
			out = append(out, e)
			continue
		}
		stale = append(stale, indexEntry{File: name, Size: info.Size(), MTime: info.ModTime().UnixNano()})
	}
	out = append(out, summarizeAll(dir, stale)...)
	if dirty || len(stale) > 0 || len(out) != len(old) {
		writeIndex(dir, out)
	}
	return out, nil
}

// summarizeAll fills in the metadata of stale entries, a few files at a time
// (the work is mostly open and read system calls). Entries that cannot be
// read right now are left out; Resolve reports why if one is asked for.
func summarizeAll(dir string, stale []indexEntry) []indexEntry {
	ok := make([]bool, len(stale))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(len(stale), 4) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				m, err := summarize(filepath.Join(dir, stale[i].File), stale[i].Size)
				stale[i].Meta, ok[i] = m, err == nil
			}
		}()
	}
	for i := range stale {
		work <- i
	}
	close(work)
	wg.Wait()
	out := stale[:0]
	for i, e := range stale {
		if ok[i] {
			out = append(out, e)
		}
	}
	return out
}

// readIndex returns the cached entries by file name; a missing, unreadable or
// other-version index yields none, so everything is re-summarised.
func readIndex(dir string) map[string]indexEntry {
	data, err := os.ReadFile(filepath.Join(dir, indexFile))
	if err != nil {
		return nil
	}
	var doc indexDoc
	if json.Unmarshal(data, &doc) != nil || doc.Version != indexVersion {
		return nil
	}
	m := make(map[string]indexEntry, len(doc.Sessions))
	for _, e := range doc.Sessions {
		m[e.File] = e
	}
	return m
}

// writeIndex replaces the index. It is a cache that List can always rebuild,
// so it is renamed into place without fsync, and a failure is ignored.
func writeIndex(dir string, entries []indexEntry) {
	data, err := json.Marshal(indexDoc{Version: indexVersion, Sessions: entries})
	if err != nil {
		return
	}
	f, err := os.CreateTemp(dir, indexFile+".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), filepath.Join(dir, indexFile)) != nil {
		os.Remove(f.Name())
	}
}

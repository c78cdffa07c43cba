package file

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/codewhale/codewhale/internal/tools"
)

// raceRig is a workspace whose directory "dir" a goroutine keeps exchanging
// with "link", a symbolic link to a directory outside the workspace, with
// renameat2(RENAME_EXCHANGE): every path through "dir" flips between inside
// and outside while File checks and uses it (issue 11 §4).
type raceRig struct {
	*env
	outside string
	canary  map[string]string // the outside tree before the run
	stop    atomic.Bool
	wg      sync.WaitGroup
	swaps   atomic.Int64
}

func newRaceRig(t *testing.T, files map[string]string) *raceRig {
	t.Helper()
	r := &raceRig{env: newEnv(t, writable), outside: tools.Canonical(t.TempDir())}
	for name, content := range files {
		r.put(filepath.Join("dir", name), content)
		if err := os.WriteFile(filepath.Join(r.outside, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(r.outside, "canary.txt"), []byte("outside canary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(r.outside, r.path("link")); err != nil {
		t.Fatal(err)
	}
	r.canary = snapshotTree(t, r.outside)
	return r
}

// start runs the swapper until finish (or the test's end); the rig owns it.
func (r *raceRig) start() {
	r.t.Cleanup(r.halt)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		dir, link := r.path("dir"), r.path("link")
		for !r.stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
				r.t.Errorf("renameat2: %v", err)
				return
			}
			r.swaps.Add(1)
		}
	}()
}

// finish stops the swapper, puts the real directory back at "dir" and
// checks the outside tree byte for byte.
func (r *raceRig) finish() {
	r.t.Helper()
	r.halt()
	if fi, err := os.Lstat(r.path("dir")); err != nil || fi.Mode()&os.ModeSymlink != 0 {
		if err := unix.Renameat2(unix.AT_FDCWD, r.path("dir"), unix.AT_FDCWD, r.path("link"), unix.RENAME_EXCHANGE); err != nil {
			r.t.Fatal(err)
		}
	}
	if r.swaps.Load() < 100 {
		r.t.Errorf("only %d swaps happened: the race was not exercised", r.swaps.Load())
	}
	after := snapshotTree(r.t, r.outside)
	for name, want := range r.canary {
		if after[name] != want {
			r.t.Errorf("outside file %s changed: %q, was %q", name, after[name], want)
		}
	}
	for name := range after {
		if _, ok := r.canary[name]; !ok {
			r.t.Errorf("a file appeared outside the workspace: %s", name)
		}
	}
}

func (r *raceRig) halt() {
	r.stop.Store(true)
	r.wg.Wait()
}

// callRace runs one call; it may be refused (the path escaped at check
// time, or the tree changed under the open), never fail otherwise.
func (r *raceRig) callRace(in string) bool {
	res, err := r.call(in)
	if err != nil {
		if msg := errText(err); !raceRefusal(msg) {
			r.t.Errorf("call %s: unexpected error: %s", in, msg)
		}
		return false
	}
	if !res.Success {
		r.t.Errorf("call %s: failed result %s", in, res.Content)
	}
	return true
}

const raceRounds = 1000

func TestRaceWritesNeverLandOutside(t *testing.T) {
	t.Parallel()
	r := newRaceRig(t, map[string]string{"keep.txt": "keep\n"})
	r.start()
	var ok []int
	for i := range raceRounds {
		in := js(map[string]any{"action": "write", "path": fmt.Sprintf("dir/w%d.txt", i), "content": fmt.Sprintf("payload %d\n", i)})
		if r.callRace(in) {
			ok = append(ok, i)
		}
	}
	r.finish()
	for _, i := range ok {
		if got := r.get(fmt.Sprintf("dir/w%d.txt", i)); got != fmt.Sprintf("payload %d\n", i) {
			t.Errorf("write %d reported success but the workspace holds %q", i, got)
		}
	}
	if len(ok) == 0 {
		t.Error("no write succeeded: the rig refuses everything, which proves nothing")
	}
	t.Logf("%d/%d writes landed inside, %d swaps, 0 bytes outside", len(ok), raceRounds, r.swaps.Load())
}

func TestRaceEditsNeverLandOutside(t *testing.T) {
	t.Parallel()
	r := newRaceRig(t, map[string]string{"e.txt": "v0\n"})
	r.start()
	edits := 0
	for i := range raceRounds {
		if !r.callRace(`{"action":"read","path":"dir/e.txt"}`) {
			continue
		}
		// The same edit applies to either copy: only the boundary keeps it inside.
		cur := "v" + fmt.Sprint(edits)
		in := js(map[string]any{"action": "edit", "path": "dir/e.txt", "search": cur, "replace": "v" + fmt.Sprint(edits+1)})
		if res, err := r.call(in); err == nil && res.Success {
			edits++
		} else if err != nil && !raceRefusal(errText(err)) {
			t.Errorf("round %d: unexpected edit error: %s", i, errText(err))
		}
	}
	r.finish()
	if got := r.get("dir/e.txt"); got != fmt.Sprintf("v%d\n", edits) {
		t.Errorf("after %d successful edits the workspace file holds %q", edits, got)
	}
	if edits == 0 {
		t.Error("no edit succeeded: the rig proves nothing")
	}
	t.Logf("%d/%d edits landed inside, %d swaps, 0 bytes outside", edits, raceRounds, r.swaps.Load())
}

func TestRacePatchesNeverLandOutside(t *testing.T) {
	t.Parallel()
	r := newRaceRig(t, map[string]string{"p.txt": "line 0\n"})
	patches := 0
	var created []int
	round := func(i int) bool {
		patch := fmt.Sprintf("--- a/dir/p.txt\n+++ b/dir/p.txt\n@@ -1 +1 @@\n-line %d\n+line %d\n"+
			"--- /dev/null\n+++ b/dir/new%d.txt\n@@ -0,0 +1 @@\n+new %d\n", patches, patches+1, i, i)
		res, err := r.call(js(map[string]any{"action": "patch", "patch": patch}))
		switch {
		case err == nil && res.Success:
			patches++
			created = append(created, i)
			return true
		case err != nil && !raceRefusal(errText(err)):
			t.Errorf("round %d: unexpected patch error: %s", i, errText(err))
		}
		return false
	}
	// The rig proves something only if its patch applies: one must succeed
	// before the swapper starts. A patch names two paths through the
	// flipping directory, so under load every raced one may be refused
	// (the flake of "no patch succeeded"); refusals are the honest outcome
	// the race checks, and what did land is checked below.
	if !round(-1) {
		t.Fatal("the rig's patch does not apply without the race: the rig proves nothing")
	}
	r.start()
	for i := range raceRounds {
		round(i)
	}
	r.finish()
	for _, i := range created {
		if got := r.get(fmt.Sprintf("dir/new%d.txt", i)); got != fmt.Sprintf("new %d\n", i) {
			t.Errorf("patch %d reported success but created %q", i, got)
		}
	}
	if got := r.get("dir/p.txt"); got != fmt.Sprintf("line %d\n", patches) {
		t.Errorf("after %d successful patches the workspace file holds %q", patches, got)
	}
	t.Logf("%d/%d raced patches landed inside, %d swaps, 0 bytes outside", patches-1, raceRounds, r.swaps.Load())
}

// TestRaceReadsAndSearchesNeverSeeOutside: the outside copy carries a
// needle the inside one does not; no read, list or search may ever show it.
func TestRaceReadsAndSearchesNeverSeeOutside(t *testing.T) {
	t.Parallel()
	r := newRaceRig(t, nil)
	r.put("dir/s.txt", "inside text\n")
	if err := os.WriteFile(filepath.Join(r.outside, "s.txt"), []byte("OUTSIDE_NEEDLE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.canary = snapshotTree(t, r.outside)
	r.start()
	calls := []struct {
		in   string
		json bool
	}{
		{`{"action":"read","path":"dir/s.txt"}`, false},
		{`{"action":"search_content","pattern":"OUTSIDE_NEEDLE"}`, true},
		{`{"action":"search_content","pattern":"NEEDLE","path":"dir"}`, true},
		{`{"action":"list","path":"dir"}`, true},
		{`{"action":"search_name","query":"canary"}`, true},
	}
	for range raceRounds / 4 {
		for _, c := range calls {
			res, err := r.call(c.in)
			if err != nil {
				if !raceRefusal(errText(err)) {
					t.Errorf("%s: unexpected error: %s", c.in, errText(err))
				}
				continue
			}
			var v any
			if strings.Contains(res.Content, "OUTSIDE_NEEDLE") || strings.Contains(res.Content, "canary") ||
				(c.json && json.Unmarshal([]byte(res.Content), &v) != nil) {
				t.Fatalf("%s showed the outside: %s", c.in, res.Content)
			}
		}
	}
	r.finish()
}

// raceRefusal reports whether msg is one of the honest refusals a call may
// meet while its path flips: an escape at check time, a link met at open
// time, a file missing from the directory now at that name, a stale read.
func raceRefusal(msg string) bool {
	for _, s := range []string{"Path escapes workspace", "symbolic link", "no such file or directory",
		"has not been read", "changed since the last", "does not exist", "not a directory"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// Package swaprig keeps exchanging an entry of a workspace with a symbolic
// link to somewhere outside it, with renameat2(RENAME_EXCHANGE), for the
// race tests of the confined reader (internal/tools/confine) and its
// callers: every path through the entry flips between inside and outside
// while a reader checks it and opens it (CONTRACT.md §5).
package swaprig

import (
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// MinSwaps is the fewest exchanges a run must see for the race to count as
// exercised.
const MinSwaps = 100

// Rig is one swapper; the test that started it owns it.
type Rig struct {
	t          *testing.T
	path, link string
	stop       atomic.Bool
	wg         sync.WaitGroup
	swaps      atomic.Int64
}

// Start creates a symbolic link to target beside path (path + ".swap") and
// exchanges the two names until Stop or the end of t. path is a file or a
// directory.
func Start(t *testing.T, path, target string) *Rig {
	t.Helper()
	r := &Rig{t: t, path: path, link: path + ".swap"}
	if err := os.Symlink(target, r.link); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.halt)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for !r.stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, r.path, unix.AT_FDCWD, r.link, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
			r.swaps.Add(1)
		}
	}()
	return r
}

// Stop ends the swapping, puts the real entry back at path, and fails the
// test when too few exchanges happened to exercise the race.
func (r *Rig) Stop() {
	r.t.Helper()
	r.halt()
	if fi, err := os.Lstat(r.path); err != nil || fi.Mode()&os.ModeSymlink != 0 {
		if err := unix.Renameat2(unix.AT_FDCWD, r.path, unix.AT_FDCWD, r.link, unix.RENAME_EXCHANGE); err != nil {
			r.t.Fatal(err)
		}
	}
	if n := r.swaps.Load(); n < MinSwaps {
		r.t.Errorf("only %d swaps happened: the race was not exercised", n)
	}
}

// More says whether a race loop at iteration i goes on: for at least
// rounds iterations, and beyond (up to 20 times as many) until one
// succeeded (a rig that only refuses proves nothing) and MinSwaps
// exchanges have happened.
func (r *Rig) More(i, rounds, succeeded int) bool {
	if i < rounds {
		return true
	}
	return i < 20*rounds && (succeeded == 0 || r.swaps.Load() < MinSwaps)
}

// Swaps is how many exchanges have happened.
func (r *Rig) Swaps() int64 { return r.swaps.Load() }

func (r *Rig) halt() {
	r.stop.Store(true)
	r.wg.Wait()
}

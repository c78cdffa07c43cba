//go:build unix

package session

import (
	"fmt"
	"os/exec"
	"sync/atomic"
	"testing"
)

// A session closed in this process can be reopened at once even while
// other goroutines fork and exec children, which briefly share every open
// file (and so its lock) until their exec.
func TestReopenWhileChildrenAreForked(t *testing.T) {
	home := t.TempDir()
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			_ = exec.Command("true").Run()
		}
	}()
	defer func() { stop.Store(true); <-done }()
	for i := 0; i < 30; i++ {
		info := testInfo(fmt.Sprintf("reopen-%d", i))
		j1 := NewJournal(home, Options{})
		mustAppend(t, j1, info, userTurn("first"))
		j1.Close()
		j2 := NewJournal(home, Options{})
		mustAppend(t, j2, info, userTurn("second"))
		j2.Close()
	}
}

package main

import (
	"runtime/debug"
	"testing"
	"time"
)

// The start-up pacing collects less often during its window and gives the
// previous pacing back when the window ends; a GOGC the user set is left
// alone.
func TestStartupGCIsPacedThenRestored(t *testing.T) {
	unset := func(string) string { return "" }
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })

	restored := holdGCForStartup(unset, time.Hour)
	if restored == nil {
		t.Fatal("no pacing was applied with neither GOGC nor GOMEMLIMIT set")
	}
	if got := debug.SetGCPercent(startupGCPercent); got != startupGCPercent {
		t.Errorf("during the window GC percent = %d, want %d", got, startupGCPercent)
	}
	select {
	case <-restored:
		t.Fatal("the pacing ended before its window")
	case <-time.After(20 * time.Millisecond):
	}
	debug.SetGCPercent(100)
	<-holdGCForStartup(unset, time.Millisecond)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after the window GC percent = %d, want the previous 100", got)
	}

	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		set := func(k string) string {
			if k == name {
				return "200"
			}
			return ""
		}
		if holdGCForStartup(set, time.Millisecond) != nil {
			t.Errorf("the pacing was applied although the user set %s", name)
		}
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC or GOMEMLIMIT set GC percent = %d, want it untouched (100)", got)
	}
}

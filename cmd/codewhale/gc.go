package main

import (
	"runtime/debug"
	"time"

	"github.com/codewhale/codewhale/internal/config"
)

// Start-up allocates a few megabytes of package state, configuration and
// the first request that live for the whole run, so the collector's
// default pacing (a first cycle at a 4 MiB heap) spends a large share of
// the process's CPU before the first request byte on memory that is never
// freed (docs/PERFORMANCE.md, issue 34 item 9). For its first
// startupWindow the process paces the collector at startupGCPercent (a
// first cycle at 16 MiB, and a heap at most five times what is live, so a
// large resumed session is collected as usual, only less often); then the
// default pacing returns. A GOGC or GOMEMLIMIT the user set is theirs and
// left alone.
const (
	startupWindow    = 250 * time.Millisecond
	startupGCPercent = 400
)

// holdGCForStartup applies the start-up pacing until window has passed,
// unless getenv names a GOGC or GOMEMLIMIT, and returns a channel closed once the previous pacing is back (nil: the
// user's settings stand).
func holdGCForStartup(getenv config.Env, window time.Duration) <-chan struct{} {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return nil
	}
	percent := debug.SetGCPercent(startupGCPercent)
	restored := make(chan struct{})
	time.AfterFunc(window, func() {
		debug.SetGCPercent(percent)
		close(restored)
	})
	return restored
}

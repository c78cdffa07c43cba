package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Thread is the CPU time of the calling OS thread (CLOCK_THREAD_CPUTIME_ID):
// with the goroutine locked to its thread, the work of that goroutine
// alone, not the wait for a core; 0 when it cannot be read.
func Thread() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

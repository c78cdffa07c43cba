package cputime

import (
	"syscall"
	"time"
)

// rusageThread is RUSAGE_THREAD (Linux): the calling thread's usage.
const rusageThread = 1

// Thread is the calling OS thread's user plus system CPU time; 0 when it
// cannot be read. Lock the goroutine to its thread (runtime.LockOSThread)
// around what is measured.
func Thread() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

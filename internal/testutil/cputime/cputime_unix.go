//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process is the process's user plus system CPU time (every thread,
// the garbage collector's too); 0 when it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Children is the user plus system CPU time of the process's child
// processes that have been waited for (git, a shell); 0 when it cannot be
// read.
func Children() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

//go:build unix

package checkpoint

import "syscall"

// cpuTime is the user+system CPU time of this process and its waited-for
// children, in nanoseconds.
func cpuTime() int64 {
	var n int64
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			n += ru.Utime.Nano() + ru.Stime.Nano()
		}
	}
	return n
}

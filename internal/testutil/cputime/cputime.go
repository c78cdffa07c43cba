// Package cputime reads the process's CPU time, for benchmarks on a shared
// machine: wall time there is mostly the wait for a core, user plus system
// time is the work (docs/PERFORMANCE.md reports it as cpu-µs/op).
package cputime

import "testing"

// PerOp resets the benchmark's timer and returns a func, to call after the
// timed loop, that reports the process's CPU time (user + system) per op
// as "cpu-µs/op".
func PerOp(b *testing.B) func() {
	before := Process()
	b.ResetTimer()
	return func() {
		b.StopTimer()
		b.ReportMetric(float64((Process()-before).Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

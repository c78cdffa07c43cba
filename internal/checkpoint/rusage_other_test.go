//go:build !unix

package checkpoint

// cpuTime is not measured here; the benchmark reports 0.
func cpuTime() int64 { return 0 }

//go:build !unix

package cputime

import "time"

// Process is 0 where getrusage does not exist.
func Process() time.Duration { return 0 }

// Children is 0 where getrusage does not exist.
func Children() time.Duration { return 0 }

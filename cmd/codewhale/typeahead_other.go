//go:build !linux && !darwin && !freebsd && !windows

package main

import "os"

// discardTypeAhead has no portable way here to drop buffered input; the
// question still takes only an explicit "y" followed by Enter.
func discardTypeAhead(*os.File) {}

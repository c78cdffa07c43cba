package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// discardTypeAhead drops input the terminal has buffered but nobody read
// (TCIFLUSH): keys typed before a question was asked are no answer to it.
func discardTypeAhead(f *os.File) { _ = unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH) }

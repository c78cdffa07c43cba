//go:build darwin || freebsd

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// fread is FREAD of <sys/fcntl.h>: TIOCFLUSH with it flushes input only
// (0 would drop pending output too, such as the diff just printed).
const fread = 1

// discardTypeAhead drops input the terminal has buffered but nobody read:
// keys typed before a question was asked are no answer to it.
func discardTypeAhead(f *os.File) { _ = unix.IoctlSetPointerInt(int(f.Fd()), unix.TIOCFLUSH, fread) }

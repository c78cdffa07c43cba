package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// discardTypeAhead drops console input nobody read yet: keys typed before
// a question was asked are no answer to it.
func discardTypeAhead(f *os.File) { _ = windows.FlushConsoleInputBuffer(windows.Handle(f.Fd())) }

//go:build !unix

package main

import "errors"

// reexecWithKeyFile cannot replace the process here (no exec in place).
func reexecWithKeyFile([]string, string, int, bool) error {
	return errors.New("this OS cannot re-execute a process in place")
}

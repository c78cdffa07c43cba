//go:build unix

package main

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// reexecWithKeyFile writes key into a pipe whose read end survives exec,
// then replaces this process (same pid) with codewhale run with
// --api-key-file /dev/fd/N. It returns only on failure.
func reexecWithKeyFile(args []string, key string, at int, joined bool) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	fds := make([]int, 2)
	if err := unix.Pipe(fds); err != nil {
		return err
	}
	// The key is far below a pipe's capacity: the write cannot block.
	if _, err := unix.Write(fds[1], []byte(key+"\n")); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return err
	}
	unix.Close(fds[1])
	next := withKeyFile(args, at, joined, "/dev/fd/"+strconv.Itoa(fds[0]))
	err = syscall.Exec(exe, append([]string{os.Args[0]}, next...), os.Environ())
	unix.Close(fds[0])
	return err
}

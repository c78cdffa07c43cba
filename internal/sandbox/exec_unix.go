//go:build unix

package sandbox

import "syscall"

func execProgram(path string, argv, env []string) error { return syscall.Exec(path, argv, env) }

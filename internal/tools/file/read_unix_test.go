//go:build unix

package file

import (
	"syscall"
	"testing"
)

// A named pipe in the workspace is refused, not read as an empty file (a
// read of it would either hang or say nothing): File reads regular files
// only.
func TestReadRefusesANamedPipe(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := syscall.Mkfifo(e.path("pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustContain(t, e.callErr(`{"action":"read","path":"pipe"}`),
		"Failed to read "+e.path("pipe")+": not a regular file (a named pipe); File reads regular files only.")
}

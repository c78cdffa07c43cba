//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// A hostile model points File write and patch at a named pipe another
// process holds open, under every posture: where the posture lets the
// write run it is refused on the opened handle before a byte is read
// (CONTRACT.md §6.2: not a regular file), so the turn ends instead of
// hanging on the pipe, and the pipe is still a pipe; elsewhere the posture
// refuses it first.
func TestHostileFileWritesOntoAPipeUnderEveryPosture(t *testing.T) {
	t.Parallel()
	for _, p := range hostilePostures {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t, fakemodel.Tools(
				fakemodel.Call{ID: "w", Name: "File", Args: `{"action":"write","path":"pipe","content":"x\n"}`},
				fakemodel.Call{ID: "p", Name: "File", Args: `{"action":"patch","replace":[{"path":"pipe","content":"x\n"}]}`}),
				fakemodel.Text("done"))
			c := newCLI(t, srv)
			c.config(p.config)
			fifo := filepath.Join(c.ws, "pipe")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			// Open for reading and writing: the pipe has a writer that
			// never writes, so reading its old content would never end.
			held, err := os.OpenFile(fifo, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()
			out, errOut, code := c.run(append(append([]string{"exec"}, p.flags...), "write to the pipe")...)
			reqs := srv.Requests()
			if len(reqs) < 2 {
				t.Fatalf("exit %d, %d requests: %s\n%s", code, len(reqs), out, errOut)
			}
			results := toolResults(reqs[1])
			for _, id := range []string{"w", "p"} {
				res := results[id]
				switch {
				case strings.Contains(res, "not a regular file (a named pipe)"):
				case p.runs["ordinary"]:
					t.Errorf("%s: File %s onto the pipe: %q, want the not-a-regular-file refusal", p.name, id, res)
				case res == "":
					t.Errorf("%s: File %s onto the pipe got no result", p.name, id)
				}
			}
			if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("%s: the pipe was replaced: %v %v", p.name, fi, err)
			}
		})
	}
}

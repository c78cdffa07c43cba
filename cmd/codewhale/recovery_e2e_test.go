package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// damageSession corrupts the second message line of a saved session and
// cuts its last line short, and returns the two line numbers.
func damageSession(t *testing.T, path string) (corrupt, truncated int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1] // the empty tail after the last newline
	var msgs []int
	for i, l := range lines {
		if bytes.HasPrefix(l, []byte(`{"type":"message"`)) {
			msgs = append(msgs, i)
		}
	}
	if len(msgs) < 3 {
		t.Fatalf("the session has %d message lines", len(msgs))
	}
	lines[msgs[1]] = []byte("{\"type\":\"message\",\"mess\x00garbage\n")
	last := len(lines) - 1
	lines[last] = lines[last][:len(lines[last])/2]
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	return msgs[1] + 1, last + 1
}

// A damaged session resumed by exec (--continue, then --resume ID) says on
// stderr what the resume repaired: one line per dropped or truncated record
// and the kept copy's path (issue 23 §8, issue 32 §6). The repair happens
// while the session is claimed, between two loads, and used to leave no
// trace.
// README.md "Sessions": exec says on stderr once what was dropped or truncated and where the copy is
func TestExecResumeOfADamagedSessionSaysWhatWasRepaired(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("one"), fakemodel.Text("two"), fakemodel.Text("three"), fakemodel.Text("four"))
	c := newCLI(t, srv)
	id := sessionIDOf(t, c, "first prompt")
	if _, errOut, code := c.run("exec", "--resume", id, "second prompt"); code != 0 {
		t.Fatalf("second turn: %d %s", code, errOut)
	}
	path := filepath.Join(c.home, ".codewhale", "sessions", id+".jsonl")
	for _, args := range [][]string{{"--continue"}, {"--resume", id}} {
		corrupt, truncated := damageSession(t, path)
		out, errOut, code := c.run(append(append([]string{"exec"}, args...), "again")...)
		if code != 0 {
			t.Fatalf("%v: exit %d, %q, %s", args, code, out, errOut)
		}
		for _, want := range []string{
			"[session_recovery] Recovered ",
			"; the file as it was is kept at " + path + ".damaged-",
			fmt.Sprintf("\n  line %d: not valid JSON (", corrupt),
			fmt.Sprintf("\n  line %d: a truncated final line of ", truncated),
		} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, want, errOut)
			}
		}
		if strings.Count(errOut, "[session_recovery]") != 1 {
			t.Errorf("%v: the repair was reported %d times:\n%s", args, strings.Count(errOut, "[session_recovery]"), errOut)
		}
		kept, _ := filepath.Glob(path + ".damaged-*")
		if len(kept) == 0 {
			t.Errorf("%v: no kept copy", args)
		}
	}
}

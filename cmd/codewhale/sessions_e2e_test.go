package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// sessionIDOf runs a stream-json exec and returns its session id.
func sessionIDOf(t *testing.T, c *cli, args ...string) string {
	t.Helper()
	out, errOut, code := c.run(append([]string{"exec", "--output-format", "stream-json"}, args...)...)
	if code != 0 {
		t.Fatalf("exec: exit %d: %s", code, errOut)
	}
	evs := lines(t, out)
	id, _ := evs[len(evs)-2]["meta"].(map[string]any)["session_id"].(string)
	if id == "" {
		t.Fatalf("no session id in %s", out)
	}
	return id
}

// Two `exec --resume SID` at once: the second stops before sending
// anything, exits 1 and names the holder's pid; the session stays well
// formed.
func TestSecondWriterOfASessionIsRefused(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := fakemodel.New(t, fakemodel.Text("first answer"))
	c := newCLI(t, srv)
	id := sessionIDOf(t, c, "first prompt")

	arrived := make(chan struct{}, 1)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		if strings.Contains(r.LastUserText(), "held turn") {
			arrived <- struct{}{}
			<-release
			return fakemodel.Text("held answer")
		}
		return fakemodel.Text("must not be asked")
	})
	holder := c.command("exec", "--resume", id, "--output-format", "stream-json", "held turn")
	var holderOut bytes.Buffer
	holder.Stdout = &holderOut
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(20 * time.Second):
		t.Fatal("the first writer never sent its request")
	}
	before := len(srv.Requests())
	_, errOut, code := c.run("exec", "--resume", id, "--output-format", "stream-json", "second writer")
	close(release)
	if err := holder.Wait(); err != nil {
		t.Fatalf("holder: %v\n%s", err, holderOut.String())
	}
	if code != 1 || !strings.Contains(errOut, fmt.Sprintf("is being written by another codewhale process (pid %d)", holder.Process.Pid)) ||
		!strings.Contains(errOut, "nothing was sent") {
		t.Errorf("second writer: exit %d, stderr %q", code, errOut)
	}
	if after := len(srv.Requests()); after != before {
		t.Errorf("the second writer sent %d request(s)", after-before)
	}
	// The session has the holder's turn and nothing of the refused one.
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Text("third answer") })
	if _, errOut, code := c.run("exec", "--resume", id, "third prompt"); code != 0 {
		t.Fatalf("third: exit %d: %s", code, errOut)
	}
	raw := string(srv.Requests()[len(srv.Requests())-1].Raw)
	for _, want := range []string{"first prompt", "first answer", "held turn", "held answer", "third prompt"} {
		if !strings.Contains(raw, want) {
			t.Errorf("final request lacks %q", want)
		}
	}
	if strings.Contains(raw, "second writer") {
		t.Error("the refused writer's prompt reached the session")
	}
	if _, err := os.Stat(filepath.Join(c.home, ".codewhale", "sessions", id+".lock")); err != nil {
		t.Errorf("lock file: %v", err)
	}
}

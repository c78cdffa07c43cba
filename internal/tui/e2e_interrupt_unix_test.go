//go:build unix

package tui_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// A large paste reaches the model byte for byte: tabs, trailing spaces,
// wide characters, a flag and a last line without a newline.
func TestE2EPasteReachesTheModelExactly(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 600 {
		b.WriteString("line " + strings.Repeat("x", i%50) + "\tend  \n")
	}
	b.WriteString("last line ✓ 🇯🇵 without a newline")
	text := b.String()
	srv := fakemodel.New(t, fakemodel.Text("got it"))
	p := startTUI(t, srv)
	f := filepath.Join(t.TempDir(), "paste.txt")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"load-buffer", "-b", "paste", f}, {"paste-buffer", "-p", "-d", "-b", "paste", "-t", p.session}} {
		if out, err := tmux(args...).CombinedOutput(); err != nil {
			t.Fatalf("tmux %s: %v\n%s", args[0], err, out)
		}
	}
	p.waitFor("[Pasted text #1: 601 lines")
	p.keys("Enter")
	p.waitFor("● got it")
	got, _, _ := strings.Cut(srv.Requests()[0].LastUserText(), "\n<turn_meta>")
	if got != text {
		t.Errorf("the model got %d bytes, %d lines; the paste was %d bytes, %d lines", len(got), strings.Count(got, "\n"),
			len(text), strings.Count(text, "\n"))
	}
}

// Ctrl+C while an approved foreground command runs kills it, and quitting
// and resuming afterwards keeps a history the provider accepts: the tool
// call is answered before the next user message.
func TestE2ECtrlCDuringAToolKillsItAndResumeKeepsTheHistory(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, bashCall("c1", "echo $$ > shell.pid; echo started-$((40+2)); sleep 30; touch after.txt"))
	home, ws := t.TempDir(), t.TempDir()
	p := startTUIAt(t, srv, home, ws)
	p.line("run it")
	p.focusCard("sleep 30; touch after.txt", approvalReady)
	p.keys("y")
	p.waitFor("started-42")
	p.keys("C-c")
	p.waitFor("Command canceled; process killed.")
	raw, err := os.ReadFile(filepath.Join(ws, "shell.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("the command's shell (pid %d) still runs after Ctrl+C", pid)
	}
	p.keys("C-c", "C-c")
	p.waitFor("[codewhale exited: 0]")

	srv.Push(fakemodel.Text("resumed answer"))
	r := startTUIAt(t, srv, home, ws, "-c")
	r.waitFor("Resumed session", "Command canceled; process killed.")
	r.line("continue please")
	r.waitFor("● resumed answer")
	ms := srv.Requests()[len(srv.Requests())-1].Messages()
	var roles []string
	for _, m := range ms {
		roles = append(roles, m["role"].(string))
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,user" {
		t.Errorf("the resumed request's roles are %s", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "after.txt")); err == nil {
		t.Error("the cancelled command ran to its end")
	}
}

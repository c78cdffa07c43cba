package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
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
// README.md "Sessions": a second writer is refused before anything is sent, naming the holder's pid; exec exits 1
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

// kill -9 in the middle of a batch, after the first call's result was
// saved: --continue keeps that result and marks only the call that was
// running as interrupted.
// README.md "Sessions": each tool result is saved as soon as its call completes; a kill keeps the completed ones
func TestKillMidBatchKeepsCompletedResults(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(
		fakemodel.Call{ID: "w1", Name: "File", Args: `{"action":"write","path":"a.txt","content":"kept"}`},
		fakemodel.Call{ID: "b1", Name: "Bash", Args: `{"command":"sleep 15"}`}))
	c := newCLI(t, srv)
	cmd := c.command("exec", "--auto", "--output-format", "stream-json", "write then wait")
	pr, pw, _ := os.Pipe()
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	waitForLine(t, pr, `"type":"tool_result","id":"w1"`)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	pr.Close()

	srv.Push(fakemodel.Text("resumed"))
	out, errOut, code := c.run("exec", "--auto", "--continue", "what happened?")
	if code != 0 || out != "resumed\n" {
		t.Fatalf("resume: exit %d, %q, %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "[tool_history_repair] Repaired 1 crashed tool call(s)") {
		t.Errorf("repair notice: %q", errOut)
	}
	req := srv.Requests()[len(srv.Requests())-1]
	var write, bash string
	for _, m := range req.Messages() {
		if m["role"] == "tool" {
			switch m["tool_call_id"] {
			case "w1":
				write, _ = m["content"].(string)
			case "b1":
				bash, _ = m["content"].(string)
			}
		}
	}
	if !strings.Contains(write, "Created") || strings.Contains(write, "interrupted") {
		t.Errorf("the completed write's result was not kept: %q", write)
	}
	if !strings.Contains(bash, "interrupted by process exit") {
		t.Errorf("the running call should be marked interrupted: %q", bash)
	}
}

// waitForLine reads r until a line contains sub.
func waitForLine(t *testing.T, r *os.File, sub string) {
	t.Helper()
	buf := make([]byte, 1<<16)
	var seen strings.Builder
	for !strings.Contains(seen.String(), sub) {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatalf("output ended before %q: %v\n%s", sub, err, seen.String())
		}
		seen.Write(buf[:n])
	}
}

// A disk that fills up mid-turn: the turn stops, says what was not saved,
// runs nothing more and exits 1; once there is room the session resumes
// with everything that was saved.
// README.md "Sessions": a failed save stops the turn, says what was not saved, runs nothing more; exec exits 1
func TestFullDiskStopsTheTurn(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	mnt := filepath.Join(t.TempDir(), "small")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt).CombinedOutput(); err != nil {
		e2e.Missing(t, "cannot mount a small tmpfs for CODEWHALE_HOME: "+strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	c.home = mnt // config() writes under <home>/.codewhale; CODEWHALE_HOME follows
	c.env = append(c.env, "CODEWHALE_HOME="+filepath.Join(mnt, ".codewhale"))
	c.config("[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n")
	filler := filepath.Join(mnt, "filler")
	// The second answer's call is larger than the slack in the journal's
	// last page, so saving it needs space the full disk no longer has.
	big := fakemodel.Tools(fakemodel.Call{ID: "w_b.txt", Name: "File",
		Args: `{"action":"write","path":"b.txt","content":"` + strings.Repeat("b", 16<<10) + `"}`})
	srv := fakemodel.New(t, writes1("a.txt"))
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		if len(srv.Requests()) == 2 {
			fill(t, filler)
			return big
		}
		return fakemodel.Text("must not be asked")
	})
	c.env = append(c.env, "CODEWHALE_BASE_URL="+srv.URL)
	_, errOut, code := c.run("exec", "--auto", "write two files")
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests; none may follow the failed save", n)
	}
	if code != 1 || !strings.Contains(errOut, "Could not save the session") || !strings.Contains(errOut, "no space left on device") ||
		!strings.Contains(errOut, "Not saved: the model's tool calls (File)") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "a.txt")); err != nil {
		t.Errorf("a.txt: %v", err)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "b.txt")); err == nil {
		t.Error("b.txt was written although its call could not be saved")
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Text("resumed") })
	out, errOut, code := c.run("exec", "--auto", "--continue", "again")
	if code != 0 || out != "resumed\n" {
		t.Fatalf("resume: exit %d, %q, %s", code, out, errOut)
	}
	raw := string(srv.Requests()[len(srv.Requests())-1].Raw)
	if !strings.Contains(raw, "write two files") || !strings.Contains(raw, "w_a.txt") || strings.Contains(raw, "w_b.txt") {
		t.Errorf("resumed request:\n%s", raw)
	}
}

func writes1(name string) fakemodel.Reply {
	return fakemodel.Tools(fakemodel.Call{ID: "w_" + name, Name: "File", Args: `{"action":"write","path":"` + name + `","content":"x"}`})
}

// fill writes to path until the file system is full.
func fill(t *testing.T, path string) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			return
		}
	}
}

// isChild reports whether a request comes from a sub-agent.
func isChild(r *fakemodel.Request) bool {
	ms := r.Messages()
	return len(ms) > 0 && strings.Contains(fmt.Sprint(ms[0]["content"]), "You are a sub-agent")
}

// exec ends with its sub-agents per --wait-agents: by default it cancels
// what is still running and says what it cancelled; no record stays
// "running" on disk; with a wait, a child that finishes in time is not
// cancelled.
func TestExecEndsWithItsSubAgents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flags       []string
		childStalls bool
		cancelled   int
		status      string
	}{
		{childStalls: true, cancelled: 1, status: "cancelled"},
		{flags: []string{"--wait-agents", "20s"}, cancelled: 0, status: "completed"},
	} {
		srv := fakemodel.New(t)
		srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
			switch {
			case isChild(r) && tc.childStalls:
				return fakemodel.Reply{Text: "x", Stall: true}
			case isChild(r):
				return fakemodel.Reply{Text: "child finished", Delay: 20 * time.Millisecond}
			case r.HasToolResult("agent_"):
				return fakemodel.Text("parent done")
			}
			return fakemodel.Tools(fakemodel.Call{ID: "a", Name: "agent", Args: `{"prompt":"look around the repository","type":"scout"}`})
		})
		c := newCLI(t, srv)
		args := append([]string{"exec", "--auto", "--output-format", "stream-json"}, tc.flags...)
		out, errOut, code := c.run(append(args, "delegate")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.flags, code, errOut)
		}
		evs := lines(t, out)
		meta := evs[len(evs)-2]["meta"].(map[string]any)
		got, _ := meta["cancelled_agents"].([]any)
		if len(got) != tc.cancelled {
			t.Errorf("%v: cancelled_agents %v", tc.flags, meta["cancelled_agents"])
		}
		entries, _ := os.ReadDir(filepath.Join(c.home, ".codewhale", "agents"))
		if len(entries) != 1 {
			t.Fatalf("%v: %d agent records", tc.flags, len(entries))
		}
		data, _ := os.ReadFile(filepath.Join(c.home, ".codewhale", "agents", entries[0].Name()))
		state := "" // the last state the journal records
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, `"agent":`) {
				state = line
			}
		}
		if !strings.Contains(state, `"status":"`+tc.status+`"`) {
			t.Errorf("%v: last state %s in %s", tc.flags, state, data)
		}
	}
	// Text mode says what it cancelled.
	srv := fakemodel.New(t)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case isChild(r):
			return fakemodel.Reply{Text: "x", Stall: true}
		case r.HasToolResult("agent_"):
			return fakemodel.Text("parent done")
		}
		return fakemodel.Tools(fakemodel.Call{ID: "a", Name: "agent", Args: `{"prompt":"look around the repository","type":"scout"}`})
	})
	c := newCLI(t, srv)
	_, errOut, code := c.run("exec", "--auto", "delegate")
	if code != 0 || !strings.Contains(errOut, "1 sub-agent(s) had not finished when the turn ended and were cancelled") ||
		!strings.Contains(errOut, "scout, was running: look around the repository") {
		t.Errorf("text receipt: exit %d, %q", code, errOut)
	}
	if _, errOut, code := c.run("exec", "--wait-agents", "soon", "x"); code != 1 || !strings.Contains(errOut, "--wait-agents \"soon\"") {
		t.Errorf("bad flag: %d %q", code, errOut)
	}
}

// A saved session with a 40 MB tool result: resuming sends it cut to the
// budget with a receipt, never 40 MB, and the file keeps the original line.
// README.md "Sessions": a 40 MB history line is cut for the model with a receipt; the file keeps it whole
func TestResumeWithA40MBHistoryLine(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("answered"))
	c := newCLI(t, srv)
	home := filepath.Join(c.home, ".codewhale")
	j := session.NewJournal(home, session.Options{})
	info := engine.SessionInfo{ID: "big-session", Model: "deepseek-v4-pro", Workspace: c.ws}
	huge := strings.Repeat("log line of a very chatty build\n", 40<<20/32)
	if err := j.Append(info, provider.UserText("build it"),
		provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.ToolUseBlock("c1", "Bash", []byte(`{"command":"make"}`))}},
		provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.ToolResultBlock("c1", huge, false)}},
		provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock("Built.")}}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	path := filepath.Join(home, "sessions", "big-session.jsonl")
	before, _ := os.Stat(path)
	out, errOut, code := c.run("exec", "--resume", "big-session", "what failed?")
	if code != 0 || !strings.Contains(out, "answered") {
		t.Fatalf("exit %d, %q, %s", code, out, errOut)
	}
	req := srv.Requests()[0]
	if len(req.Raw) > 1<<20 || !req.HasToolResult("output compacted to protect context") {
		t.Errorf("request of %d bytes", len(req.Raw))
	}
	after, _ := os.Stat(path)
	if after.Size() < before.Size() {
		t.Errorf("the session file shrank from %d to %d bytes", before.Size(), after.Size())
	}
}

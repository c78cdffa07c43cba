package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools/memory"
)

const oldAgents = "# Demo\n\nOld rule.\n"

// agentsMD is the workspace's AGENTS.md now.
func agentsMD(t *testing.T, c *cli) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.ws, "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// between is the text of s from open to close, both included ("" when
// either is missing).
func between(s, open, close string) string {
	i := strings.Index(s, open)
	j := strings.Index(s, close)
	if i < 0 || j < i {
		return ""
	}
	return s[i : j+len(close)]
}

// CONTRACT.md §17.1: the project block sits after the product's rules and before the memory block, and a sub-agent's
// system prompt carries the same block, byte for byte.
func TestContract171BlockPlaceAndSubAgents(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case isSubagent(r):
			return fakemodel.Text("the child looked")
		case len(r.Messages()) == 2:
			return fakemodel.Tools(fakemodel.Call{ID: "a", Name: "agent", Args: `{"prompt":"look around","agent_id":"scout1"}`})
		}
		return fakemodel.Text("parent done")
	})
	c := newCLI(t, srv)
	c.env = append(c.env, "CODEWHALE_MEMORY=1")
	gitInit(t, c.ws)
	writeFiles(t, c.ws, map[string]string{"AGENTS.md": "ROOT-RULE: keep it small.\n"})
	if _, err := memory.NewStore(filepath.Join(c.home, ".codewhale")).Append(memory.Global, c.ws, "MEMORY-NOTE: likes tables"); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := c.run("exec", "--auto", "--max-turns", "5", "--wait-agents", "wait", "look"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var parent, child string
	for _, r := range srv.Requests() {
		if isSubagent(r) {
			child = systemText(t, r)
		} else if parent == "" {
			parent = systemText(t, r)
		}
	}
	block := between(parent, "<project_instructions>", "</project_instructions>")
	rules, mem := strings.Index(parent, "You are codewhale"), strings.Index(parent, "<user_memory")
	at := strings.Index(parent, block)
	if block == "" || !strings.Contains(block, "ROOT-RULE") || rules != 0 || mem < 0 || !(rules < at && at+len(block) < mem) ||
		!strings.Contains(parent[mem:], "MEMORY-NOTE") {
		t.Errorf("order: rules %d, block %d, memory %d\n%s", rules, at, mem, parent)
	}
	if child == "" || between(child, "<project_instructions>", "</project_instructions>") != block {
		t.Errorf("the sub-agent's block differs from the parent's:\n%s\n----\n%s", block, child)
	}
}

// CONTRACT.md §17.3: load_skill is registered while at least one skill exists — a deferred tool, kept by Plan — and
// is absent otherwise. CONTRACT.md §17.5: `codewhale tools` loads the project context, since the catalog depends on it.
func TestContract173LoadSkillExistsWithASkill(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	state := func(mode string) string {
		t.Helper()
		out, errOut, code := c.run("tools", "--json", "--mode", mode)
		if code != 0 {
			t.Fatalf("tools: %d %s", code, errOut)
		}
		var cat struct {
			Tools []struct{ Name, State string }
		}
		if err := json.Unmarshal([]byte(out), &cat); err != nil {
			t.Fatal(err)
		}
		for _, tl := range cat.Tools {
			if tl.Name == "load_skill" {
				return tl.State
			}
		}
		return "absent"
	}
	if got := state("act"); got != "absent" {
		t.Errorf("without a skill load_skill is %s", got)
	}
	writeFiles(t, c.ws, map[string]string{".claude/skills/pdf/SKILL.md": "---\ndescription: Read PDFs\n---\nUse pdftotext.\n"})
	for _, mode := range []string{"act", "plan"} {
		if got := state(mode); got != "deferred" {
			t.Errorf("%s with a skill: load_skill is %s, want deferred", mode, got)
		}
	}
}

// CONTRACT.md §17.6: codewhale init's exit codes are exec's: 75 when the survey fails on the network, a timeout or
// the provider's rate limit after the retries, 1 for another failure; AGENTS.md is left as it was, and it says so.
func TestContract176InitExitCodesFollowTheCategory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ status, code int }{{429, 75}, {503, 75}, {400, 1}} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t)
			srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
				return fakemodel.Reply{Status: tc.status, Body: `{"error":{"message":"scripted failure"}}`, Header: map[string]string{"Retry-After": "0"}}
			})
			c := newCLI(t, srv)
			writeFiles(t, c.ws, map[string]string{"AGENTS.md": oldAgents})
			out, errOut, code := c.run("init", "--yes")
			if code != tc.code || out != "" || !strings.Contains(errOut, filepath.Join(c.ws, "AGENTS.md")+" is unchanged") {
				t.Errorf("HTTP %d: exit %d, want %d\nstdout %q\nstderr %s", tc.status, code, tc.code, out, errOut)
			}
			if got := agentsMD(t, c); got != oldAgents {
				t.Errorf("AGENTS.md = %q", got)
			}
		})
	}
}

// CONTRACT.md §17.6: a signal during the survey ends codewhale init as it ends exec, with 128+signal (130 for
// Ctrl+C), and nothing is written.
func TestContract176InitSignalsExit128PlusN(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t, fakemodel.Reply{Text: "surveying", Stall: true})
			c := newCLI(t, srv)
			writeFiles(t, c.ws, map[string]string{"AGENTS.md": oldAgents})
			cmd := c.command("init", "--yes")
			var errb strings.Builder
			cmd.Stderr = &errb
			startUntilRequest(t, cmd, srv, 1)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := exitOf(t, cmd.Wait()); code != 128+int(sig) {
				t.Errorf("exit %d, want %d\n%s", code, 128+int(sig), errb.String())
			}
			if !strings.Contains(errb.String(), "Interrupted; "+filepath.Join(c.ws, "AGENTS.md")+" is unchanged.") {
				t.Errorf("stderr %s", errb.String())
			}
			if got := agentsMD(t, c); got != oldAgents {
				t.Errorf("AGENTS.md = %q", got)
			}
		})
	}
}

// CONTRACT.md §17.6: the survey is Plan mode whatever the session's mode (a configured default of Operate too);
// --max-turns bounds its steps and must be at least 1; --yes and --dry-run exclude each other; nothing is sent for
// a refused command line.
func TestContract176InitFlagsAndMode(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, initReply(initProposal))
	c := newCLI(t, srv)
	c.config("default_mode = \"operate\"\n[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n")
	for _, args := range [][]string{{"init", "--max-turns", "0"}, {"init", "--yes", "--dry-run"}} {
		if _, errOut, code := c.run(args...); code != 1 || len(srv.Requests()) != 0 {
			t.Errorf("%v: exit %d, %d requests\n%s", args, code, len(srv.Requests()), errOut)
		}
	}
	if _, errOut, code := c.run("init", "--dry-run"); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if names := strings.Join(srv.Requests()[0].ToolNames(), ","); strings.Contains(names, "Bash") || strings.Contains(names, "Run") ||
		!strings.Contains(names, "File") {
		t.Errorf("the survey under a default of Operate carries %s", names)
	}

	steps := fakemodel.New(t)
	steps.Respond(func(*fakemodel.Request) fakemodel.Reply {
		return fakemodel.Tools(fakemodel.Call{ID: "r", Name: "File", Args: `{"action":"read","path":"go.mod"}`})
	})
	c = newCLI(t, steps)
	writeFiles(t, c.ws, map[string]string{"go.mod": "module demo\n", "AGENTS.md": oldAgents})
	_, errOut, code := c.run("init", "--yes", "--max-turns", "2")
	if code != 1 || len(steps.Requests()) != 2 || !strings.Contains(errOut, "is unchanged") {
		t.Errorf("--max-turns 2: exit %d after %d requests\n%s", code, len(steps.Requests()), errOut)
	}
	if got := agentsMD(t, c); got != oldAgents {
		t.Errorf("AGENTS.md = %q", got)
	}
}

// pty is codewhale running in a private tmux server's pane, its standard
// input the pane's terminal and its output in files.
type pty struct {
	t                   *testing.T
	sock                string
	stdout, stderr, rcf string
}

// startOnTerminal runs codewhale args in c's workspace with a terminal on
// standard input.
func startOnTerminal(t *testing.T, c *cli, args ...string) *pty {
	t.Helper()
	tmux := e2e.Tmux(t)
	dir := t.TempDir()
	p := &pty{t: t, sock: filepath.Join(dir, "tmux.sock"), stdout: filepath.Join(dir, "out"), stderr: filepath.Join(dir, "err"),
		rcf: filepath.Join(dir, "rc")}
	argv := append(append(append([]string{"env", "-i"}, c.env...), binary), args...)
	// The shell traps SIGINT (its child starts with the default) so that
	// Ctrl+C in the pane ends codewhale and the shell still records $?.
	script := "trap : INT; cd " + shellWord(c.ws) + " && " + recordPid(filepath.Join(dir, "pid")) + shellWords(argv) + " >" + shellWord(p.stdout) + " 2>" + shellWord(p.stderr) +
		"; echo $? >" + shellWord(p.rcf) + ".tmp && mv " + shellWord(p.rcf) + ".tmp " + shellWord(p.rcf)
	if out, err := exec.Command(tmux, "-S", p.sock, "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "20", "sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		_ = exec.Command(tmux, "-S", p.sock, "kill-server").Run()
		awaitExit(t, filepath.Join(dir, "pid"))
	})
	return p
}

func (p *pty) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// waitFor polls until f reports true (a file or a pane cannot signal).
func (p *pty) waitFor(what string, f func() bool) {
	p.t.Helper()
	for end := time.Now().Add(30 * time.Second); !f(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			errb, _ := os.ReadFile(p.stderr)
			p.t.Fatalf("no %s after 30s; stderr:\n%s", what, errb)
		}
	}
}

func (p *pty) fileHas(path, s string) func() bool {
	return func() bool { b, _ := os.ReadFile(path); return strings.Contains(string(b), s) }
}

// exit waits for the process and returns its exit code and stderr.
func (p *pty) exit() (int, string) {
	p.t.Helper()
	p.waitFor("exit status", func() bool { _, err := os.Stat(p.rcf); return err == nil })
	rc, _ := os.ReadFile(p.rcf)
	errb, _ := os.ReadFile(p.stderr)
	var code int
	if _, err := fmt.Sscan(string(rc), &code); err != nil {
		p.t.Fatalf("exit status %q", rc)
	}
	return code, string(errb)
}

func shellWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func shellWords(ws []string) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = shellWord(w)
	}
	return strings.Join(out, " ")
}

// CONTRACT.md §17.6: on a terminal codewhale init asks `Write <path>? [y/N]` after the diff, discarding what was
// typed while the survey ran (an early "y" is no answer); only y or yes writes, a declined answer exits 0, and
// Ctrl+C at the question exits 130 (CONTRACT.md §13.4) with nothing written.
func TestContract176InitAsksOnTheTerminal(t *testing.T) {
	t.Parallel()
	e2e.Tmux(t)
	release := make(chan struct{})
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
		select {
		case <-release:
		case <-time.After(30 * time.Second):
		}
		return initReply(initProposal)
	})
	c := newCLI(t, srv)
	writeFiles(t, c.ws, map[string]string{"AGENTS.md": oldAgents})
	path := filepath.Join(c.ws, "AGENTS.md")
	question := "Write " + path + "? [y/N] "

	p := startOnTerminal(t, c, "init")
	p.waitFor("survey request", func() bool { return len(srv.Requests()) == 1 })
	p.tmux("send-keys", "-t", "0", "y", "Enter") // typed ahead while the survey runs
	p.waitFor("echo of the typed-ahead y", func() bool { return strings.Contains(p.tmux("capture-pane", "-p", "-t", "0"), "y") })
	close(release)
	p.waitFor("the question", p.fileHas(p.stderr, question))
	// Had the early "y" been read as the answer, the process would be gone
	// (and the pane with it) by now.
	if _, err := os.Stat(p.rcf); err == nil || exec.Command("tmux", "-S", p.sock, "send-keys", "-t", "0", "Enter").Run() != nil {
		code, errOut := p.exit()
		t.Fatalf("the typed-ahead y answered the question: exit %d, AGENTS.md %q\n%s", code, agentsMD(t, c), errOut)
	}
	code, errOut := p.exit()
	if code != 0 || !strings.Contains(errOut, "Not written; "+path+" is unchanged.") || agentsMD(t, c) != oldAgents {
		t.Fatalf("the typed-ahead y answered the question: exit %d, AGENTS.md %q\n%s", code, agentsMD(t, c), errOut)
	}
	if out, _ := os.ReadFile(p.stdout); !strings.HasPrefix(string(out), "--- a/AGENTS.md\n+++ b/AGENTS.md\n") {
		t.Errorf("stdout is not the diff:\n%s", out)
	}

	// Ctrl+C at the question ends the run at once, writing nothing.
	p = startOnTerminal(t, c, "init")
	p.waitFor("the question", p.fileHas(p.stderr, question))
	p.tmux("send-keys", "-t", "0", "C-c")
	if code, errOut := p.exit(); code != 130 || agentsMD(t, c) != oldAgents {
		t.Errorf("Ctrl+C at the question: exit %d, AGENTS.md %q\n%s", code, agentsMD(t, c), errOut)
	}

	for _, answer := range []string{"n", "YES"} {
		p = startOnTerminal(t, c, "init")
		p.waitFor("the question", p.fileHas(p.stderr, question))
		p.tmux("send-keys", "-t", "0", answer, "Enter")
		code, errOut = p.exit()
		want := oldAgents
		if answer == "YES" {
			want = initProposal
		}
		if code != 0 || agentsMD(t, c) != want {
			t.Errorf("answer %q: exit %d, AGENTS.md %q\n%s", answer, code, agentsMD(t, c), errOut)
		}
	}
}

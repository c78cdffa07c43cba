package jobs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// testAgentEnv makes the test binary a codewhale stand-in: it opens a
// manager on the state directory named by the variable (with the watchdog
// when testAgentWatchdog is set), starts a background job that forks a
// sleeper, prints "<leader pid> <sleeper pid>" and waits to be killed.
const (
	testAgentEnv      = "CODEWHALE_JOBS_TEST_AGENT"
	testAgentWatchdog = "JOBS_TEST_AGENT_WATCHDOG"
	testAgentSandbox  = "JOBS_TEST_AGENT_SANDBOX"
)

// agentMode runs the stand-in agent when the variable is set.
func agentMode() (int, bool) {
	dir := os.Getenv(testAgentEnv)
	if dir == "" {
		return 0, false
	}
	return testAgent(dir), true
}

func testAgent(dir string) int {
	opts := Options{StateDir: dir, Shell: "/bin/sh"}
	if os.Getenv(testAgentWatchdog) != "" {
		opts.Watchdog = os.Args[0]
	}
	if how := os.Getenv(testAgentSandbox); how != "" {
		// A protected .git makes Linux confinement use a mount namespace:
		// made on a thread as root, through the helper in a user namespace
		// otherwise ("userns" forces that way as root too).
		_ = os.Mkdir(filepath.Join(dir, ".git"), 0o755)
		sbOpts := sandbox.Options{Helper: os.Args[0]}
		if how == "userns" {
			sbOpts.Probe = func() sandbox.Caps { return sandbox.Caps{LandlockABI: 1, UserNS: true} }
		}
		opts.Sandbox = sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: dir, Network: true,
			Protected: []string{filepath.Join(dir, ".git")}}, sbOpts)
	}
	m, err := NewManager(opts)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	j, err := m.Start(Spec{Command: "sleep 300 & echo $!; wait", Dir: dir, Background: true, LinkedTaskID: "task-7"})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	for {
		snap, _ := m.Snapshot(j.ID())
		if line, _, ok := strings.Cut(snap.StdoutTail, "\n"); ok {
			fmt.Printf("%d %s\n", snap.pidForTest(m), line)
			break
		}
		<-j.changed()
	}
	select {} // until killed
}

func (s Snapshot) pidForTest(m *Manager) int {
	j, _ := m.Get(s.ID)
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.pid
}

// crashAgent runs the stand-in agent, waits for its job, kills it with
// SIGKILL and returns the job leader's and the forked sleeper's pids.
// sandboxed is "" (none), "1" (the system's way) or "userns".
func crashAgent(t *testing.T, dir string, watchdog bool, sandboxed string) (leader, sleeper int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), testAgentEnv+"="+dir)
	if sandboxed != "" {
		cmd.Env = append(cmd.Env, testAgentSandbox+"="+sandboxed)
	}
	if watchdog {
		cmd.Env = append(cmd.Env, testAgentWatchdog+"=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("agent: %v %q", err, line)
	}
	if _, err := fmt.Sscanf(line, "%d %d", &leader, &sleeper); err != nil {
		t.Fatalf("agent said %q", line)
	}
	if !alive(sleeper) {
		t.Fatalf("sleeper %d is not running before the crash", sleeper)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	t.Cleanup(func() { _ = syscall.Kill(-leader, syscall.SIGKILL) })
	return leader, sleeper
}

// kill -9 of the agent: the job's leader dies with it (Pdeathsig); what the
// leader forked is stopped by the next start, which lists the job as stale,
// says what it stopped and removes the dead process's state file.
// CONTRACT.md §12.1: a job that outlived a restart is listed stale, stopped, never reattached and never reported as
// finished work.
func TestNextStartStopsWhatACrashedRunLeft(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	leader, sleeper := crashAgent(t, dir, false, "")
	if !exitsWithin(leader, 5*time.Second) {
		t.Fatalf("job leader %d outlived the agent", leader)
	}
	if !alive(sleeper) {
		t.Fatal("the sleeper died without the watchdog: this test would prove nothing")
	}
	next := newTestManager(t, Options{StateDir: dir})
	if !exitsWithin(sleeper, 5*time.Second) {
		t.Fatalf("sleeper %d survived the next start", sleeper)
	}
	list := next.List()
	if len(list) != 1 || !list[0].Stale || list[0].Status != Killed || list[0].StderrTail != ReapedNote ||
		list[0].Command != "sleep 300 & echo $!; wait" || list[0].LinkedTaskID != "task-7" || list[0].StdinAvailable {
		t.Fatalf("stale listing %+v", list)
	}
	if got := next.Leftovers(); !strings.Contains(got, "Stopped 1 command") || !strings.Contains(got, "pid "+strconv.Itoa(leader)) {
		t.Fatalf("leftovers report %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the dead agent's state file is still there: %v", entries)
	}
	if f := next.FinishedSinceLastAsked(); len(f.Jobs) != 0 {
		t.Fatal("stale jobs are reported as finished work")
	}
	if err := next.MoveToBackground(list[0].ID); err == nil {
		t.Fatal("a stale job was treated as live")
	}
}

// With the watchdog, nothing survives the agent even before a next start,
// confined jobs included.
func TestWatchdogStopsJobsWhenTheAgentDies(t *testing.T) {
	t.Parallel()
	for _, sandboxed := range []string{"", "1", "userns"} {
		if sandboxed == "userns" {
			requireUserNS(t)
		}
		leader, sleeper := crashAgent(t, t.TempDir(), true, sandboxed)
		for _, pid := range []int{leader, sleeper} {
			if !exitsWithin(pid, 5*time.Second) {
				t.Fatalf("process %d outlived the agent (sandboxed %q)", pid, sandboxed)
			}
		}
	}
}

// A confined job's leader dies with the agent too (Pdeathsig survives the
// helper's user namespace and its exec of the command).
func TestConfinedLeaderDiesWithTheAgent(t *testing.T) {
	t.Parallel()
	for _, sandboxed := range []string{"1", "userns"} {
		if sandboxed == "userns" {
			requireUserNS(t)
		}
		leader, _ := crashAgent(t, t.TempDir(), false, sandboxed)
		if !exitsWithin(leader, 5*time.Second) {
			t.Fatalf("job leader %d outlived the agent (sandboxed %q)", leader, sandboxed)
		}
	}
}

// requireUserNS records a missing dependency unless the helper can confine
// a command through a user namespace here.
func requireUserNS(t *testing.T) {
	t.Helper()
	ws := t.TempDir()
	_ = os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	sb := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: ws, Network: true,
		Protected: []string{filepath.Join(ws, ".git")}},
		sandbox.Options{Helper: os.Args[0], Probe: func() sandbox.Caps { return sandbox.Caps{LandlockABI: 1, UserNS: true} }})
	cmd := exec.Command("/bin/sh", "-c", "touch new && ! touch .git/x 2>/dev/null")
	cmd.Dir = ws
	p, err := sb.Start(cmd)
	if err == nil {
		err = p.Wait()
	}
	if err != nil {
		e2e.Missing(t, fmt.Sprintf("commands cannot be confined through a user namespace here: %v", err))
	}
}

// A record whose pid now belongs to another process (another start time)
// is not killed; one that matches is. A live owner's file is left alone.
func TestStaleRecordsAreCheckedBeforeKilling(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stranger := exec.Command("sleep", "300")
	stranger.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stranger.Process.Kill(); _ = stranger.Wait() })
	pid := stranger.Process.Pid
	start, ok := startTime(pid)
	if !ok {
		t.Fatal("no start time")
	}
	write := func(name string, o owner, recs ...record) {
		raw, _ := json.Marshal(stateFile{Owner: o, Jobs: recs})
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	self, _ := startTime(os.Getpid())
	write("live.json", owner{PID: os.Getpid(), Start: self}, record{ID: "shell_live0000", Command: "x", PID: pid, Start: start})
	write("dead.json", owner{PID: 0}, record{ID: "shell_reused00", Command: "sleep 300", PID: pid, Start: start + 1})
	m := newTestManager(t, Options{StateDir: dir})
	if !alive(pid) || m.Leftovers() != "" {
		t.Fatalf("a process with another start time was killed (alive %v, %q)", alive(pid), m.Leftovers())
	}
	if _, err := m.Get("shell_live0000"); err == nil {
		t.Fatal("a live session's job was taken over")
	}
	if _, err := os.Stat(filepath.Join(dir, "live.json")); err != nil {
		t.Fatalf("a live session's state file was removed: %v", err)
	}
	write("dead2.json", owner{PID: 0}, record{ID: "shell_match000", Command: "sleep 300", PID: pid, Start: start})
	m2 := newTestManager(t, Options{StateDir: dir})
	if !exitsWithin(pid, 5*time.Second) || !strings.Contains(m2.Leftovers(), "shell_match000") {
		t.Fatalf("the matching leftover was not stopped (%q)", m2.Leftovers())
	}
}

// A process that runs no job (codewhale tools, a read-only exec) writes no
// state file; one that ran jobs removes its file when they end.
func TestStateFileLivesOnlyWhileJobsRun(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "jobs")
	m, err := NewManager(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a run with no jobs created %s (%v)", dir, err)
	}
	m = newTestManager(t, Options{StateDir: dir})
	j, err := m.Start(Spec{Command: "sleep 300", Dir: t.TempDir(), Background: true})
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("state dir %v", entries)
	}
	var st stateFile
	raw, _ := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	if err := json.Unmarshal(raw, &st); err != nil || st.Owner.PID != os.Getpid() || len(st.Jobs) != 1 ||
		st.Jobs[0].ID != j.ID() || st.Jobs[0].PID <= 0 || st.Jobs[0].Start == 0 {
		t.Fatalf("state file %s: %v", raw, err)
	}
	m.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("state file left after close: %v", entries)
	}
}

func TestCorruptStateFileIsReported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "1-x.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewManager(Options{StateDir: dir}); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Fatalf("a corrupt state file was accepted: %v", err)
	}
}

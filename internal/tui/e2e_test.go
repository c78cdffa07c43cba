package tui_test

// End-to-end tests: the real codewhale binary under tmux, against the fake
// model server running in this test process. They are skipped when tmux is
// missing unless CODEWHALE_REQUIRE_E2E=1. CODEWHALE_E2E_BINARY selects a
// prebuilt binary instead of building ./cmd/codewhale.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tui/views"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// tmuxSocket names this test process's own tmux server. The default server
// is shared: when parallel tests kill their last sessions it exits, and a
// new-session racing with that exit fails with "server exited
// unexpectedly". Ours is told not to exit when empty, and is killed in
// TestMain.
var (
	tmuxSocket    = fmt.Sprintf("cw-e2e-%d", os.Getpid())
	tmuxStartOnce sync.Once
	tmuxStartErr  error
)

func tmux(args ...string) *exec.Cmd {
	tmuxStartOnce.Do(func() {
		out, err := exec.Command("tmux", "-L", tmuxSocket, "-f", "/dev/null",
			"start-server", ";", "set-option", "-g", "exit-empty", "off").CombinedOutput()
		if err != nil {
			tmuxStartErr = fmt.Errorf("starting the tmux server: %v\n%s", err, out)
		}
	})
	if tmuxStartErr != nil {
		return exec.Command("sh", "-c", `echo "$0" >&2; exit 1`, tmuxStartErr.Error())
	}
	return exec.Command("tmux", append([]string{"-L", tmuxSocket}, args...)...)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if exec.Command("tmux", "-L", tmuxSocket, "kill-server").Run() == nil {
		dir := os.Getenv("TMUX_TMPDIR")
		if dir == "" {
			dir = "/tmp"
		}
		_ = os.Remove(filepath.Join(dir, fmt.Sprintf("tmux-%d", os.Getuid()), tmuxSocket)) // tmux leaves it behind
	}
	os.Exit(code)
}

// binary builds codewhale once per test run.
func binary(t *testing.T) string {
	t.Helper()
	e2e.Tmux(t)
	buildOnce.Do(func() {
		if p := os.Getenv("CODEWHALE_E2E_BINARY"); p != "" {
			binPath = p
			return
		}
		dir, err := os.MkdirTemp("", "codewhale-tui-e2e")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "codewhale")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/codewhale/codewhale/cmd/codewhale").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// pane is one codewhale process in a detached tmux session.
type pane struct {
	t       *testing.T
	session string
	home    string
	ws      string
	env     []string
	started time.Time
}

var sessionSeq struct {
	sync.Mutex
	n int
}

// startTUI runs codewhale (no subcommand) at 100×30 against srv with a
// fresh home and workspace and no API key.
func startTUI(t *testing.T, srv *fakemodel.Server, args ...string) *pane {
	t.Helper()
	return startTUIAt(t, srv, t.TempDir(), t.TempDir(), args...)
}

// startTUIAt is startTUI with a given home and workspace, so a second run
// can resume what the first one saved.
func startTUIAt(t *testing.T, srv *fakemodel.Server, home, ws string, args ...string) *pane {
	t.Helper()
	return launchTUI(t, srv, launch{home: home, ws: ws}, args...)
}

// launch is how a pane runs codewhale.
type launch struct {
	home, ws string
	env      []string // extra variables
	keepTMUX bool     // pass the pane's TMUX through, so codewhale knows it runs in tmux
	ready    string   // what the pane shows once codewhale is up (default: the composer's ❯)
	w, h     int      // the pane's size (default 100×30)
	// rawLog, when set, receives everything codewhale writes to the pane
	// from its first byte (tmux pipe-pane is attached before it starts).
	rawLog string
}

func launchTUI(t *testing.T, srv *fakemodel.Server, l launch, args ...string) *pane {
	t.Helper()
	bin := binary(t)
	home, ws := l.home, l.ws
	sessionSeq.Lock()
	sessionSeq.n++
	name := fmt.Sprintf("cw-e2e-%d-%d", os.Getpid(), sessionSeq.n)
	sessionSeq.Unlock()
	p := &pane{t: t, session: name, home: home, ws: ws}
	p.env = []string{"CODEWHALE_HOME=" + p.home, "HOME=" + p.home, "TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
	if srv != nil {
		p.env = append(p.env, "CODEWHALE_BASE_URL="+srv.URL)
	}
	p.env = append(p.env, l.env...)
	argv := append(append([]string{"env", "-i"}, p.env...), bin, "-C", p.ws)
	argv = append(argv, args...)
	cmdline := shellQuote(argv)
	if l.keepTMUX {
		cmdline = `env -i TMUX="$TMUX" ` + shellQuote(argv[2:])
	}
	// The pane outlives the process so an early exit stays readable.
	// It prints the exit status and the terminal's line-discipline mode
	// (icanon means raw mode was undone).
	script := cmdline + `; echo "[codewhale exited: $?]"; stty -a | tr ' ;' '\n\n' | grep -x -- '-*icanon'; sleep 600`
	if l.rawLog != "" { // wait for the pipe before the first byte
		script = `while [ ! -e ` + shellQuote([]string{l.rawLog + ".go"}) + ` ]; do sleep 0.01; done; ` + script
	}
	if l.w == 0 {
		l.w, l.h = 100, 30
	}
	tmuxArgs := []string{"new-session", "-d", "-s", name, "-x", fmt.Sprint(l.w), "-y", fmt.Sprint(l.h), "sh", "-c", script}
	p.started = time.Now()
	if out, err := tmux(tmuxArgs...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	if l.rawLog != "" {
		if out, err := tmux("pipe-pane", "-o", "-t", name, "cat >> "+shellQuote([]string{l.rawLog})).CombinedOutput(); err != nil {
			t.Fatalf("pipe-pane: %v %s", err, out)
		}
		if err := os.WriteFile(l.rawLog+".go", nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Stop codewhale and wait for it to exit before the temp dirs go away:
	// it writes its session and job state on the way out.
	t.Cleanup(func() {
		if screen := p.capture(); screen != "" && !strings.Contains(screen, "[codewhale exited:") {
			if pid := p.childPID(); pid != "" {
				_ = exec.Command("kill", "-TERM", pid).Run()
				for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
					if screen := p.capture(); screen == "" || strings.Contains(screen, "[codewhale exited:") {
						break
					}
				}
			}
		}
		_ = tmux("kill-session", "-t", name).Run()
	})
	if l.ready == "" {
		l.ready = "❯"
	}
	p.waitFor(l.ready)
	return p
}

// capture returns the visible pane text.
func (p *pane) capture() string {
	out, err := tmux("capture-pane", "-p", "-t", p.session).Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// waitFor polls the pane until every substring is visible and returns the
// time it took.
func (p *pane) waitFor(subs ...string) time.Duration {
	p.t.Helper()
	start := time.Now()
	deadline := start.Add(15 * time.Second)
	for {
		screen := p.capture()
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(screen, s)
		}
		if ok {
			return time.Since(start)
		}
		if strings.Contains(screen, "[codewhale exited:") && !strings.Contains(strings.Join(subs, ""), "[codewhale exited:") {
			p.t.Fatalf("codewhale exited while waiting for %q:\n%s", subs, screen)
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("pane never showed %q:\n%s", subs, screen)
		}
		time.Sleep(5 * time.Millisecond) // polling interval of the pane, not a synchronisation delay
	}
}

// seenWithin polls the pane for up to d and reports whether every
// substring became visible.
func (p *pane) seenWithin(d time.Duration, subs ...string) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		screen := p.capture()
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(screen, s)
		}
		if ok {
			return true
		}
	}
	return false
}

// childPID is the codewhale process under the pane's shell, or "".
func (p *pane) childPID() string {
	shell, err := tmux("display", "-p", "-t", p.session, "#{pane_pid}").Output()
	if err != nil {
		return ""
	}
	out, _ := exec.Command("ps", "-o", "pid=", "--ppid", strings.TrimSpace(string(shell))).Output()
	return strings.TrimSpace(string(out))
}

// shellQuote joins argv for sh -c, single-quoting every word.
func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

func (p *pane) keys(keys ...string) {
	p.t.Helper()
	if out, err := tmux(append([]string{"send-keys", "-t", p.session}, keys...)...).CombinedOutput(); err != nil {
		p.t.Fatalf("send-keys: %v\n%s", err, out)
	}
}

// line types text literally and presses Enter.
func (p *pane) line(text string) {
	p.keys("-l", text)
	p.keys("Enter")
}

func TestE2EPromptShowsTheAnswer(t *testing.T) {
	t.Parallel()
	reply := fakemodel.Text("Hello from the **fake** model.")
	reply.Reasoning = "short reasoning"
	p := startTUI(t, fakemodel.New(t, reply))
	p.line("say hello")
	p.waitFor("▎ say hello", "● Hello from the fake model.", "… reasoning done", "✓ done")
}

// approvalReady is the card's key hint, drawn once it has the keys.
const approvalReady = "y allow · a session · n deny"

// focusCard waits for a card showing what and, if it opened without the
// keys (the person had just typed: the focus rule), gives it them with Tab;
// it returns once the card offers its answers (ready).
func (p *pane) focusCard(what, ready string) {
	p.t.Helper()
	p.waitFor(what)
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		screen := p.capture()
		switch {
		case strings.Contains(screen, ready):
			return
		case strings.Contains(screen, views.UnfocusedHint):
			p.keys("Tab")
			p.waitFor(what, ready)
			return
		}
	}
	p.t.Fatalf("the card never offered %q:\n%s", ready, p.capture())
}

func bashCall(id, cmd string) fakemodel.Reply {
	args, _ := json.Marshal(map[string]any{"command": cmd})
	return fakemodel.Tools(fakemodel.Call{ID: id, Name: "Bash", Args: string(args)})
}

func TestE2EApproveAndDenyABashCall(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, bashCall("c1", "touch denied.txt"), fakemodel.Text("Not running it."),
		bashCall("c2", "touch approved.txt && echo approved-output"), fakemodel.Text("It ran."))
	p := startTUI(t, srv)
	p.line("run it")
	p.waitFor("Command: touch denied.txt", "▸ Deny this call")
	p.focusCard("Command: touch denied.txt", approvalReady)
	p.keys("n")
	p.waitFor("✕ Bash touch denied.txt", "denied by user", "✓ done")
	p.line("run it now")
	p.focusCard("Command: touch approved.txt && echo approved-output", approvalReady)
	p.keys("y")
	p.waitFor("✓ Bash touch approved.txt && echo approved-output", "│ approved-output", "● It ran.")
	if _, err := os.Stat(filepath.Join(p.ws, "denied.txt")); err == nil {
		t.Error("the denied command ran")
	}
	if _, err := os.Stat(filepath.Join(p.ws, "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
}

func TestE2ETabAndShiftTabCycleTheStatusBar(t *testing.T) {
	t.Parallel()
	p := startTUI(t, nil)
	p.waitFor(" · act · effort auto · ask · ")
	p.keys("Tab")
	p.waitFor(" · operate · effort auto · ask · ")
	p.keys("Tab")
	p.waitFor(" · plan · effort auto · read only · files: read-only")
	p.keys("Tab")
	p.waitFor(" · act · effort auto · ask · ")
	p.keys("BTab")
	p.waitFor(" · act · effort auto · auto · files: workspace")
	p.keys("BTab")
	p.waitFor(" · act · effort auto · Full Access · files: workspace (") // Full Access approves prompts; the sandbox stays
	p.keys("BTab")
	p.waitFor(" · act · effort auto · ask · files: workspace")
}

// receipt runs `codewhale tools --json` in p's environment.
func receipt(t *testing.T, p *pane) (active []string, digest string) {
	t.Helper()
	cmd := exec.Command(binary(t), "-C", p.ws, "tools", "--json")
	cmd.Env = p.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("codewhale tools --json: %v", err)
	}
	var r struct {
		Active []string `json:"active"`
		Digest *string  `json:"active_tool_catalog_sha256"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.Digest == nil {
		t.Fatalf("receipt %s: %v", out, err)
	}
	return r.Active, *r.Digest
}

// CONTRACT.md §11.1: the host shows the latest turn's captured snapshot, and nothing before the first seam (also
// CONTRACT.md §11.6).
func TestE2EToolsShowsTheActiveToolsAndTheReceiptDigest(t *testing.T) {
	t.Parallel()
	p := startTUI(t, fakemodel.New(t, fakemodel.Text("ok")))
	active, digest := receipt(t, p)
	p.line("/tools")
	p.waitFor("Tool request snapshot unavailable — no model request has been captured for the latest turn.")
	p.line("hi")
	p.waitFor("✓ done")
	p.line("/tools")
	p.waitFor("Prepared Tool Request", digest, fmt.Sprintf("Tool count: %d", len(active)),
		fmt.Sprintf("Tools in this request (%d): %s, %s", len(active), active[0], active[1]))
	for _, name := range active {
		p.keys("/")
		p.keys("-l", fmt.Sprintf("%q", name))
		p.keys("Enter")
		p.waitFor("match 1/")
		p.keys("g", "g")
	}
	p.keys("q")
	p.waitFor("❯")
}

func TestE2EJobsShowsABackgroundJobAndCancelsIt(t *testing.T) {
	t.Parallel()
	args, _ := json.Marshal(map[string]any{"command": "sleep 60", "background": true})
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "b1", Name: "Bash", Args: string(args)}), fakemodel.Text("Started."))
	p := startTUI(t, srv)
	p.line("/jobs")
	p.waitFor("No live Bash jobs. Bash jobs are process-local;")
	p.line("start a server")
	p.focusCard("Command: sleep 60", approvalReady)
	p.keys("y")
	p.waitFor("● Started.")
	p.line("/jobs")
	p.waitFor("Bash jobs (1)", "cmd: sleep 60")
	id := regexp.MustCompile(`shell_[0-9a-f]{8}`).FindString(p.capture())
	if id == "" {
		t.Fatalf("no job id on screen:\n%s", p.capture())
	}
	p.waitFor(id + "  running")
	p.line("/jobs cancel " + id)
	p.waitFor("Bash job " + id + ": killed")
}

func TestE2EEscMidStreamReturnsControlQuickly(t *testing.T) {
	t.Parallel()
	slow := fakemodel.Text(strings.Repeat("streaming words ", 2000))
	slow.Delay = 3 * time.Millisecond
	p := startTUI(t, fakemodel.New(t, slow))
	p.line("stream a lot")
	p.waitFor("streaming words streaming words", "Esc to interrupt")
	// The reference, measured the same way a moment before: a key typed
	// into the composer mid-stream and seen on screen. It holds the cost of
	// tmux round trips and of a loaded machine, which a bare 100 ms bound
	// charged to the Esc (the stream itself runs 6 s, so waiting for its end
	// would still fail by far).
	p.keys("-l", "z")
	echo := p.waitFor("❯ z")
	p.keys("BSpace")
	p.waitFor("Esc to interrupt")
	p.keys("Escape")
	took := p.waitFor("Request cancelled", "▌· idle")
	t.Logf("Esc → composer back in %v (a typed key showed in %v)", took.Round(time.Millisecond), echo.Round(time.Millisecond))
	if limit := 100*time.Millisecond + 2*echo; took > limit {
		t.Errorf("control returned after %v, want under %v (100 ms beyond twice a typed key's %v)", took, limit, echo)
	}
	p.waitFor("⎿ interrupted")
	// The strip is idle at once; the engine's TurnComplete follows. /status
	// says which, so ask until the turn has stopped.
	for i := 0; ; i++ {
		p.line("/status")
		if p.seenWithin(500*time.Millisecond, "State: idle") {
			break
		}
		if i == 20 {
			t.Fatalf("the turn never stopped:\n%s", p.capture())
		}
	}
}

// CONTRACT.md §13.4: SIGTERM exits 128+15 after restoring the terminal (also CONTRACT.md §14.1).
func TestE2ESigtermRestoresTheTerminalAndExits143(t *testing.T) {
	t.Parallel()
	p := startTUI(t, nil)
	pid := p.childPID()
	if pid == "" {
		t.Fatal("no codewhale process under the pane shell")
	}
	if out, err := exec.Command("kill", "-TERM", pid).CombinedOutput(); err != nil {
		t.Fatalf("kill: %v %s", err, out)
	}
	p.waitFor("[codewhale exited: 143]", "\nicanon")
	if strings.Contains(p.capture(), "❯") {
		t.Errorf("the UI is still on screen after exit:\n%s", p.capture())
	}
}

// harnessBaseline is how long the tmux harness takes to show a prompt
// printed by a trivial command: the overhead inside the first-frame time.
func harnessBaseline(t *testing.T) time.Duration {
	t.Helper()
	best := time.Hour
	for i := 0; i < 3; i++ {
		name := fmt.Sprintf("cw-e2e-base-%d-%d", os.Getpid(), i)
		start := time.Now()
		if err := tmux("new-session", "-d", "-s", name, "-x", "100", "-y", "30", "sh", "-c", "printf '❯'; sleep 60").Run(); err != nil {
			t.Fatal(err)
		}
		p := &pane{t: t, session: name}
		p.waitFor("❯")
		best = min(best, time.Since(start))
		_ = tmux("kill-session", "-t", name).Run()
	}
	return best
}

// TestE2EFirstFrame measures process start to the first full frame (the
// composer prompt on screen), best of three, outside the parallel tests.
func TestE2EFirstFrame(t *testing.T) {
	best := time.Hour
	for i := 0; i < 3; i++ {
		p := startTUI(t, nil) // waits for the composer prompt
		best = min(best, time.Since(p.started))
		p.keys("C-c", "C-c") // two Ctrl+C within two seconds quit with status 0
		p.waitFor("[codewhale exited: 0]")
	}
	base := harnessBaseline(t)
	t.Logf("first frame visible %v after tmux started the process (best of 3); the same harness shows a bare "+
		"printf in %v, so codewhale's own share is about %v", best.Round(time.Millisecond), base.Round(time.Millisecond),
		(best - base).Round(time.Millisecond))
	if best > time.Second {
		t.Errorf("first frame took %v", best)
	}
}

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// Tests of CONTRACT.md §13.1 and §13.5 claims the other end-to-end tests
// leave unchecked, each against the built binary and the fake model.

// CONTRACT.md §13.1: the commands are exec, tools, resume, sessions, mcp …, auth set|status, models, doctor, acp,
// init and automation …; -m/--model, --base-url, --api-key, --config and -C/--workspace are global (a subcommand
// takes them), while -r/--resume and -c/--continue belong to the TUI and -p.
func TestContract131CommandsAndGlobalFlags(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	out, _, code := c.run("--help")
	_, list, _ := strings.Cut(out, "Available Commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	have := map[string]bool{}
	for _, l := range strings.Split(list, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			have[f[0]] = true
		}
	}
	for _, name := range []string{"exec", "tools", "resume", "sessions", "mcp", "auth", "models", "doctor", "acp", "init", "automation"} {
		if code != 0 || !have[name] {
			t.Errorf("command %s missing from --help (%d): %v", name, code, have)
		}
	}
	if out, _, code := c.run("auth", "--help"); code != 0 || !strings.Contains(out, "\n  set ") || !strings.Contains(out, "\n  status ") {
		t.Errorf("auth set|status: %d %s", code, out)
	}
	ws := t.TempDir()
	cfgPath := filepath.Join(t.TempDir(), "other.toml")
	if err := os.WriteFile(cfgPath, []byte("[memory]\nenabled = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("tools", "--json", "-m", "deepseek-v4-flash", "--base-url", "http://127.0.0.1:9", "--api-key",
		"sk-unused", "--config", cfgPath, "-C", ws)
	if code != 0 || !strings.Contains(out, `"remember"`) {
		t.Errorf("global flags on a subcommand (--config's memory = true shows remember): %d %s %s", code, out, errOut)
	}
	for _, flag := range []string{"-r", "-c"} {
		if _, errOut, code := c.run("tools", flag, "x"); code != 1 || !strings.Contains(errOut, "unknown shorthand flag") {
			t.Errorf("tools %s: %d %s", flag, code, errOut)
		}
	}
}

// CONTRACT.md §13.1: codewhale PROMPT and codewhale --prompt TEXT start the TUI with the prompt as the first message.
func TestContract131PromptStartsTheTUI(t *testing.T) {
	t.Parallel()
	e2e.Tmux(t)
	for _, args := range [][]string{{"fix", "the", "build"}, {"--prompt", "fix the build"}} {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			got := make(chan *fakemodel.Request, 4)
			srv := fakemodel.New(t)
			srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
				got <- r
				return fakemodel.Text("ok")
			})
			c := newCLI(t, srv)
			c.env = append(c.env, "TERM=xterm-256color")
			tuiOnTerminal(t, c, args...)
			select {
			case r := <-got:
				if !strings.HasPrefix(r.LastUserText(), "fix the build\n<turn_meta>") || len(r.ToolNames()) == 0 {
					t.Errorf("first message %q, tools %v", r.LastUserText(), r.ToolNames())
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the TUI sent no request")
			}
		})
	}
}

// tuiOnTerminal runs codewhale args in c's workspace in a private tmux
// server's pane (standard input and output a terminal), ended with the
// test: the server is killed and the program waited for, so it is no
// longer writing (its checkpoints) when the test's directories go.
func tuiOnTerminal(t *testing.T, c *cli, args ...string) {
	t.Helper()
	tmux := e2e.Tmux(t)
	dir := t.TempDir()
	sock, pidFile := filepath.Join(dir, "tmux.sock"), filepath.Join(dir, "pid")
	argv := append(append(append([]string{"env", "-i"}, c.env...), binary), args...)
	script := "cd " + shellWord(c.ws) + " && " + recordPid(pidFile) + shellWords(argv) + "; sleep 600"
	if out, err := exec.Command(tmux, "-S", sock, "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "30", "sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		_ = exec.Command(tmux, "-S", sock, "kill-server").Run()
		awaitExit(t, pidFile)
	})
}

// recordPid is the start of a pane's command line that records the pid of
// the program it runs (the sh becomes the program: exec) in pidFile.
func recordPid(pidFile string) string {
	return "sh -c " + shellWord("echo $$ > "+shellWord(pidFile)+"; exec \"$@\"") + " sh "
}

// awaitExit waits until the program whose pid recordPid wrote has exited
// (gone, or a zombie, which writes nothing), so that it no longer writes
// into the test's directories (its checkpoints) when they are removed.
func awaitExit(t *testing.T, pidFile string) {
	pid, err := os.ReadFile(pidFile)
	if err != nil {
		return // it never started
	}
	stat := "/proc/" + strings.TrimSpace(string(pid)) + "/stat"
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(stat)
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
	}
	t.Errorf("codewhale (pid %s) was still running 15 s after its terminal went", strings.TrimSpace(string(pid)))
}

// CONTRACT.md §13.1: each headless flag without -p is refused before any request.
func TestContract131HeadlessFlagsNeedPrint(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	c := newCLI(t, srv)
	for _, args := range [][]string{{"--output-format", "json"}, {"--auto"}, {"--mode", "plan"}, {"--max-turns", "3"},
		{"--allowed-tools", "File"}, {"--disallowed-tools", "Bash"}, {"--append-system-prompt", "x"}, {"--reasoning-effort", "low"}} {
		_, errOut, code := c.run(append(args, "hello")...)
		if code != 1 || !strings.Contains(errOut, "--"+strings.TrimPrefix(args[0], "--")+" applies to a headless run: add -p/--print") {
			t.Errorf("%v without -p: %d %s", args, code, errOut)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
}

// CONTRACT.md §13.1: -p continues a session with the TUI's -r/--resume and -c/--continue, and refuses approvals
// headless (approval_required) unless --auto.
// README.md "Command line": -p -r/-c continue; approval_required unless --auto.
func TestContract131PrintResumesAndRefusesApprovals(t *testing.T) {
	t.Parallel()
	write := fakemodel.Tools(fakemodel.Call{Name: "File", Args: `{"action":"write","path":"new.txt","content":"x"}`})
	srv := fakemodel.New(t, fakemodel.Text("first answer"), fakemodel.Text("second"), fakemodel.Text("third"),
		write, fakemodel.Text("refused"), write, fakemodel.Text("written"))
	c := newCLI(t, srv)
	out, errOut, code := c.run("-p", "remember the word pelican", "--output-format", "json")
	var first struct {
		SessionID string `json:"session_id"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &first) != nil || first.SessionID == "" {
		t.Fatalf("-p: %d %s %s", code, out, errOut)
	}
	for i, args := range [][]string{{"-p", "-c", "which word?"}, {"-p", "-r", first.SessionID[:8], "which word?"}} {
		if _, errOut, code := c.run(args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errOut)
		}
		if raw := string(srv.Requests()[i+1].Raw); !strings.Contains(raw, "remember the word pelican") || !strings.Contains(raw, "first answer") {
			t.Errorf("%v did not continue the session: %s", args, raw)
		}
	}
	out, errOut, code = c.run("-p", "--output-format", "stream-json", "write a file")
	evs := lines(t, out)
	meta, _ := evs[len(evs)-2]["meta"].(map[string]any)
	if code != 0 || meta["termination_reason"] != "approval_required" {
		t.Errorf("-p without --auto: %d %v %s", code, meta, errOut)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "new.txt")); err == nil {
		t.Fatal("the write ran without approval")
	}
	if _, errOut, code := c.run("-p", "--auto", "write a file"); code != 0 {
		t.Fatalf("-p --auto: %d %s", code, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(c.ws, "new.txt")); err != nil || string(b) != "x" {
		t.Errorf("-p --auto did not write: %v %q", err, b)
	}
}

// CONTRACT.md §13.1: a prompt read from stdin is refused when empty or over 1 MiB; /dev/null is no piped stdin; with
// --api-key - stdin is the key and is never attached.
func TestContract131StdinPromptLimits(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("a"), fakemodel.Text("b"))
	c := newCLI(t, srv)
	for name, stdin := range map[string]string{"empty": " \n\n", "over 1 MiB": strings.Repeat("x", 1<<20+1)} {
		if _, errOut, code := c.runIn(stdin, "-p", "-"); code != 1 || errOut == "" {
			t.Errorf("%s stdin prompt: %d %s", name, code, errOut)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests after refused stdin prompts", n)
	}
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	cmd := c.command("-p", "hello")
	cmd.Stdin = devNull
	if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), "stdin:") {
		t.Errorf("/dev/null stdin: %v %s", err, out)
	}
	if got := srv.Requests()[0].LastUserText(); !strings.HasPrefix(got, "hello\n<turn_meta>") {
		t.Errorf("/dev/null was attached: %q", got)
	}
	if _, errOut, code := c.runIn("sk-fromstdin1234567\n", "--api-key", "-", "-p", "hello"); code != 0 {
		t.Fatalf("--api-key -: %d %s", code, errOut)
	}
	r := srv.Requests()[1]
	if bearer(r) != "sk-fromstdin1234567" || !strings.HasPrefix(r.LastUserText(), "hello\n<turn_meta>") {
		t.Errorf("--api-key - sent key %q and prompt %q", bearer(r), r.LastUserText())
	}
}

// toolsReceiptJSON is `codewhale tools --json args…`, decoded.
func toolsReceiptJSON(t *testing.T, c *cli, args ...string) toolsReceipt {
	t.Helper()
	out, errOut, code := c.run(append([]string{"tools", "--json"}, args...)...)
	var rec toolsReceipt
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil || rec.Digest == nil {
		t.Fatalf("tools --json %v: %d %s %s", args, code, out, errOut)
	}
	return rec
}

// CONTRACT.md §13.5: the text form prints the names in order, eager or deferred, each with its origin, and the digest
// the JSON form gives; neither contacts a provider, and neither needs a key.
func TestContract135ToolsTextAndNoProvider(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	c := newCLI(t, srv)
	c.env = append(c.env, "DEEPSEEK_API_KEY=")
	rec := toolsReceiptJSON(t, c)
	out, errOut, code := c.run("tools")
	if code != 0 {
		t.Fatalf("tools: %d %s", code, errOut)
	}
	if !strings.Contains(out, "Active tool catalog digest: "+*rec.Digest+"\n") {
		t.Errorf("text digest differs from --json's %s:\n%s", *rec.Digest, out)
	}
	var deferred []string
	for _, tl := range rec.Tools {
		if tl.State == "deferred" {
			deferred = append(deferred, tl.Name+" ("+tl.Origin+")")
		}
	}
	if len(deferred) == 0 || !strings.Contains(out, "Deferred, loaded through tool_search ("+itoa(len(deferred))+"): "+strings.Join(deferred, ", ")) {
		t.Errorf("deferred %v not listed:\n%s", deferred, out)
	}
	_, rows, _ := strings.Cut(out, "Sent on the first request ("+itoa(len(rec.Active))+"), in order:\n")
	rows, _, _ = strings.Cut(rows, "Deferred, ")
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(rows), "\n") {
		got = append(got, strings.Join(strings.Fields(l), " "))
	}
	var want []string
	for i, name := range rec.Active {
		want = append(want, strings.Join(strings.Fields(itoa(i+1)+". "+name+" "+originOf(rec, name)), " "))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("active rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("tools contacted the provider (%d requests)", n)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// CONTRACT.md §13.5: --mcp starts the configured MCP servers and adds their tools with origin mcp, and the receipt's
// digest and active names still equal the first request's; without --mcp no server is started.
func TestContract135ToolsWithMCP(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPServerBin(t, "mcp-server-everything")
	srv := fakemodel.New(t, fakemodel.Text("ok"))
	c := newCLI(t, srv)
	cfg, _ := json.Marshal(map[string]any{"servers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{bin, "stdio"}},
	}})
	if err := os.WriteFile(filepath.Join(c.home, ".codewhale", "mcp.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	plain := toolsReceiptJSON(t, c)
	for _, tl := range plain.Tools {
		if tl.Origin == "mcp" {
			t.Fatalf("without --mcp the receipt lists %s", tl.Name)
		}
	}
	rec := toolsReceiptJSON(t, c, "--mcp")
	var mcpTools []string
	for _, tl := range rec.Tools {
		if tl.Origin == "mcp" {
			mcpTools = append(mcpTools, tl.Name)
		}
	}
	if !strings.Contains(","+strings.Join(mcpTools, ",")+",", ",mcp_everything_echo,") {
		t.Errorf("--mcp tools %v", mcpTools)
	}
	if _, errOut, code := c.run("exec", "--agent", "hi"); code != 0 {
		t.Fatalf("exec: %d %s", code, errOut)
	}
	first := srv.Requests()[0]
	if got := strings.Join(first.ToolNames(), ","); got != strings.Join(rec.Active, ",") || wireDigest(t, first) != *rec.Digest {
		t.Errorf("request 1 tools %s (digest %s), receipt %v (digest %s)", got, wireDigest(t, first), rec.Active, *rec.Digest)
	}
}

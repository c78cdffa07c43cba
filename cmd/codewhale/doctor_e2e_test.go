package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

type doctorReport struct {
	OK     bool `json:"ok"`
	Checks []struct {
		Name, Status, Detail string
		Data                 map[string]any
	} `json:"checks"`
}

func (r doctorReport) check(t *testing.T, name string) (status, detail string) {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c.Status, c.Detail
		}
	}
	t.Fatalf("no %q check in %+v", name, r.Checks)
	return "", ""
}

func runDoctor(t *testing.T, c *cli) (doctorReport, int) {
	t.Helper()
	out, errOut, code := c.run("doctor", "--json")
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errOut)
	}
	return r, code
}

// `codewhale doctor` is a real subcommand (issue 14: it started the TUI
// and sent "doctor" to the model): a healthy setup against a loopback
// endpoint passes, with an MCP server connected and a broken one named.
func TestDoctorReportsAHealthySetup(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	c := newCLI(t, srv)
	bin := e2e.MCPServerBin(t, "mcp-server-everything")
	cfg, _ := json.Marshal(map[string]any{"servers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{bin, "stdio"}},
		"broken":     map[string]any{"command": "/nonexistent/mcp-server"},
	}})
	if err := os.MkdirAll(filepath.Join(c.home, ".codewhale"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.home, ".codewhale", "mcp.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	r, code := runDoctor(t, c)
	if code != 0 || !r.OK {
		t.Fatalf("code %d, report %+v", code, r)
	}
	if st, d := r.check(t, "api key"); st != "ok" || !strings.Contains(d, "none needed") {
		t.Errorf("api key: %s %s", st, d)
	}
	if st, d := r.check(t, "base url"); st != "ok" || !strings.Contains(d, "answered HTTP") {
		t.Errorf("base url: %s %s", st, d)
	}
	if st, d := r.check(t, "mcp everything"); st != "ok" || !strings.HasPrefix(d, "connected") {
		t.Errorf("mcp everything: %s %s", st, d)
	}
	if st, _ := r.check(t, "mcp broken"); st != "warn" {
		t.Errorf("a broken optional server is a warning, got %s", st)
	}
	for _, req := range srv.Requests() {
		if strings.Contains(req.Path, "chat/completions") {
			t.Errorf("doctor sent a prompt to the model: %s", req.Raw)
		}
	}
}

// A malformed config file is a finding with its line, the missing key and
// an endpoint that does not answer fail, and the exit code says so.
func TestDoctorNamesWhatIsBroken(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	c.config("model = \"deepseek-v4-pro\"\nmodle = 3\n")
	r, code := runDoctor(t, c)
	if code != 1 || r.OK {
		t.Fatalf("code %d ok %v", code, r.OK)
	}
	if st, d := r.check(t, "config user"); st != "fail" || !strings.Contains(d, "modle") {
		t.Errorf("config user: %s %s", st, d)
	}
	out, _, code := c.run("doctor")
	if code != 1 || !strings.Contains(out, "✕ config user") || !strings.Contains(out, "Some checks failed") {
		t.Errorf("text report (code %d):\n%s", code, out)
	}

	d := newCLI(t, nil)
	d.env = append(d.env, "CODEWHALE_BASE_URL=http://127.0.0.1:1")
	d.config(`base_url = "https://127.0.0.1:1"` + "\n")
	r, _ = runDoctor(t, d)
	if st, _ := r.check(t, "base url"); st != "fail" {
		t.Errorf("an endpoint nobody listens on: %s", st)
	}
}

// Without a terminal the TUI says so and draws nothing (issue 14: a raw
// Bubble Tea error, the alternate screen and mouse reporting left on).
func TestTUIWithoutATerminalExplainsAndTouchesNothing(t *testing.T) {
	t.Parallel()
	c := newCLI(t, fakemodel.New(t))
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	cmd := c.command("hello")
	cmd.Stdin = devnull
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("exit 0:\n%s", out)
	}
	if !strings.Contains(string(out), "the interactive UI needs a terminal, but standard input is not one") ||
		!strings.Contains(string(out), "codewhale exec") {
		t.Errorf("message:\n%s", out)
	}
	if strings.Contains(string(out), "\x1b[") {
		t.Errorf("terminal escapes were written: %q", out)
	}
}

package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func find(r Report, name string) Check {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return Check{}
}

func TestRunReportsEachFinding(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "sessions"), nil, 0o644); err != nil { // a file where the dir belongs
		t.Fatal(err)
	}
	r := Run(context.Background(), Options{Home: home,
		Effective: &Effective{Provider: "DeepSeek", BaseURL: "https://api.example.invalid", KeySource: "none"},
		LookPath: func(name string) (string, error) {
			if name == "git" {
				return "/usr/bin/git", nil
			}
			return "", errors.New("not found")
		},
		Version: func(context.Context, string, string) (string, error) { return "git version 9", nil },
		Reach:   func(context.Context, string) (int, error) { return 0, errors.New("no route") },
		MCP: func(context.Context) (MCPReport, error) {
			return MCPReport{Servers: []MCPServer{{Name: "req", State: "failed", Error: "exit 1", Required: true}}}, nil
		},
		Sandbox: SandboxStatus{Reason: "no backend"}})
	cases := map[string]Status{"api key": Fail, "base url": Fail, "sandbox": Warn, "git": OK, "rg": Warn,
		"mcp req": Fail, "sessions": Fail}
	for name, want := range cases {
		if got := find(r, name); got.Status != want {
			t.Errorf("%s = %+v, want %s", name, got, want)
		}
	}
	if r.OK {
		t.Error("a failed check leaves the report not OK")
	}
	if d := find(r, "git").Detail; !strings.Contains(d, "git version 9") {
		t.Errorf("git detail %q", d)
	}
}

// An enforced sandbox that cannot do all it should (Landlock carving
// around protected paths) is a warning that says what and why.
func TestSandboxCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		s      SandboxStatus
		want   Status
		detail string
	}{
		{"full", SandboxStatus{Enforced: true, Mechanism: "landlock (user + mount namespace)"}, OK, "enforced by landlock"},
		{"degraded", SandboxStatus{Enforced: true, Mechanism: "landlock", Degraded: "new entries cannot be created directly in the workspace root"},
			Warn, "enforced by landlock; new entries cannot be created directly in the workspace root"},
		{"unenforced", SandboxStatus{Reason: "no backend"}, Warn, "unenforced: commands run with your full permissions (no backend)"},
	}
	for _, c := range cases {
		var r Report
		sandboxCheck(&r, c.s)
		if got := find(r, "sandbox"); got.Status != c.want || !strings.HasPrefix(got.Detail, c.detail) {
			t.Errorf("%s: %+v", c.name, got)
		}
	}
}

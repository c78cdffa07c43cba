package config_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/sandbox"
)

// README.md "Sandbox": precedence --sandbox > CODEWHALE_SANDBOX_MODE > the project file (which may only tighten) > the user config; an unknown value is an error.
func TestSandboxResolution(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, user, project string
		flag, envMode       string
		want                sandbox.Mode
		network             bool
		err                 string
	}{
		{name: "default", want: sandbox.WorkspaceWrite, network: true},
		{name: "user", user: `sandbox_mode = "danger-full-access"`, want: sandbox.FullAccess, network: true},
		{name: "project tightens", user: `sandbox_mode = "danger-full-access"`, project: `sandbox_mode = "workspace-write"`, want: sandbox.WorkspaceWrite, network: true},
		{name: "project cannot loosen", project: `sandbox_mode = "danger-full-access"`, want: sandbox.WorkspaceWrite, network: true},
		{name: "env beats files", user: `sandbox_mode = "read-only"`, envMode: "workspace-write", want: sandbox.WorkspaceWrite, network: true},
		{name: "flag beats env", envMode: "read-only", flag: "danger-full-access", want: sandbox.FullAccess, network: true},
		{name: "network deny", user: "[network]\ndefault = \"deny\"", want: sandbox.WorkspaceWrite},
		{name: "network prompt blocks commands", user: "[network]\ndefault = \"prompt\"", want: sandbox.WorkspaceWrite},
		{name: "bad user value", user: `sandbox_mode = "yolo"`, err: "sandbox_mode: unknown sandbox mode \"yolo\""},
		{name: "bad project value", project: `sandbox_mode = "off"`, err: "sandbox_mode: unknown sandbox mode \"off\""},
		{name: "bad flag", flag: "none", err: "--sandbox: unknown sandbox mode"},
		{name: "bad env", envMode: "x", err: "CODEWHALE_SANDBOX_MODE: unknown sandbox mode"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home, ws := t.TempDir(), t.TempDir()
			write(t, filepath.Join(home, "config.toml"), c.user+"\n")
			if c.project != "" {
				write(t, filepath.Join(ws, ".codewhale", "config.toml"), c.project+"\n")
			}
			e := map[string]string{"CODEWHALE_HOME": home, "CODEWHALE_SANDBOX_MODE": c.envMode}
			cfg, err := config.Load(config.Flags{Workspace: ws, SandboxMode: c.flag}, env(e))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Sandbox.Mode != c.want || cfg.Sandbox.Network != c.network {
				t.Fatalf("sandbox %+v, want %s network %v", cfg.Sandbox, c.want, c.network)
			}
		})
	}
}

// README.md "Sandbox": writable_roots and env_passthrough are read from the user file and ignored in the project file.
func TestSandboxTables(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "config.toml"), "[sandbox]\nwritable_roots = [\"~/.cache/go-build\", \"build\"]\n"+
		"[shell]\nenv_passthrough = [\"GH_TOKEN\"]\n")
	// A project may not widen either.
	write(t, filepath.Join(ws, ".codewhale", "config.toml"), "[sandbox]\nwritable_roots = [\"/\"]\n[shell]\nenv_passthrough = [\"DEEPSEEK_API_KEY\"]\n")
	cfg, err := config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Sandbox.WritableRoots, []string{"~/.cache/go-build", "build"}) ||
		!slices.Equal(cfg.Sandbox.EnvPassthrough, []string{"GH_TOKEN"}) {
		t.Fatalf("sandbox %+v", cfg.Sandbox)
	}
	d := cfg.SandboxDefaults()
	if d.Workspace != ws || d.Home != home || d.Config != filepath.Join(home, "config.toml") || len(d.TempDirs) != 1 {
		t.Fatalf("defaults %+v", d)
	}
	write(t, filepath.Join(home, "config.toml"), "[sandbox]\nwritable_root = [\"x\"]\n")
	if _, err := config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home})); err == nil ||
		!strings.Contains(err.Error(), `did you mean "writable_roots"`) {
		t.Fatalf("typo in [sandbox]: %v", err)
	}
}

// Build caches are writable by default, as the environment places them;
// build_caches = false in the user file, or in a project file (which may
// only tighten), leaves them out, and a project cannot turn them back on.
// README.md "Sandbox": build_caches is on by default; false in the user or project file keeps the caches read-only and a project cannot turn them on.
func TestSandboxBuildCaches(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, user, project string
		want                bool
	}{
		{name: "default", want: true},
		{name: "user off", user: "[sandbox]\nbuild_caches = false\n"},
		{name: "project off", project: "[sandbox]\nbuild_caches = false\n"},
		{name: "project cannot turn on", user: "[sandbox]\nbuild_caches = false\n", project: "[sandbox]\nbuild_caches = true\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home, ws, user := t.TempDir(), t.TempDir(), t.TempDir()
			write(t, filepath.Join(home, "config.toml"), c.user+"\n")
			if c.project != "" {
				write(t, filepath.Join(ws, ".codewhale", "config.toml"), c.project+"\n")
			}
			e := map[string]string{"CODEWHALE_HOME": home, "HOME": user, "GOCACHE": "/gc", "GOENV": "off"}
			cfg, err := config.Load(config.Flags{Workspace: ws}, env(e))
			if err != nil {
				t.Fatal(err)
			}
			d := cfg.SandboxDefaults()
			if got := slices.Contains(d.Caches, "/gc"); got != c.want {
				t.Fatalf("caches %v, want GOCACHE among them: %v", d.Caches, c.want)
			}
			if c.want && !slices.Contains(sandbox.DefaultPolicy(d).Caches, filepath.Join(user, ".npm")) {
				t.Fatalf("policy caches %v", sandbox.DefaultPolicy(d).Caches)
			}
		})
	}
}

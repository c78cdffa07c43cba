package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture builds a Policy over a temp user home and a custom CodeWhale home
// that lives elsewhere (as CODEWHALE_HOME allows).
func fixture(t *testing.T) (p *Policy, home, cw string) {
	t.Helper()
	root := t.TempDir()
	home = filepath.Join(root, "home")
	cw = filepath.Join(root, "custom-cw")
	for _, d := range []string{home, cw} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(root, "etc", "cw.toml")
	return New(Options{UserHome: home, Home: cw, ConfigFiles: []string{cfg}}), home, cw
}

func TestIsSecretPath(t *testing.T) {
	t.Parallel()
	p, home, cw := fixture(t)
	root := filepath.Dir(home)
	cases := []struct {
		path string
		want bool
	}{
		{filepath.Join(cw, "config.toml"), true},
		{filepath.Join(cw, "secrets", "deepseek.key"), true},
		{filepath.Join(cw, "sessions", "x.jsonl"), true},
		{cw, true},
		{filepath.Join(root, "etc", "cw.toml"), true},
		{filepath.Join(root, "etc", "cw.toml.bak"), true},
		{filepath.Join(root, "etc", "other.toml"), false},
		{filepath.Join(home, ".codewhale", "config.toml"), false}, // not the real home: CODEWHALE_HOME is custom
		{filepath.Join(home, ".deepseek", "config.toml"), true},
		{filepath.Join(home, ".ssh", "config"), true},
		{filepath.Join(home, ".aws", "credentials"), true},
		{filepath.Join(home, ".gnupg", "pubring.kbx"), true},
		{filepath.Join(home, ".config", "gh", "hosts.yml"), true},
		{filepath.Join(home, ".config", "ghostty"), false},
		{filepath.Join(home, ".netrc"), true},
		{"/etc/shadow", true},
		{"/etc/gshadow", true},
		{"/etc/passwd", false},
		{"/ws/.env", true},
		{"/ws/.env.local", true},
		{"/ws/.env.production", true},
		{"/ws/prod.env", true},
		{"/ws/.env.example", false},
		{"/ws/.env.sample", false},
		{"/ws/.envrc", false},
		{"/ws/.venv", false},
		{"/ws/certs/server.pem", true},
		{"/ws/tls/server.KEY", true},
		{"/ws/keys/id_rsa", true},
		{"/ws/keys/id_ed25519", true},
		{"/ws/keys/id_ed25519_sk", true},
		{"/ws/keys/id_rsa.work", true},
		{"/ws/keys/id_rsa.pub", false},
		{"/ws/id_test.go", false},
		{"/ws/fake-home/.ssh/authorized_keys", true},
		{"/ws/fake-home/.SSH/config", true}, // a case-folding filesystem's .ssh
		{"/ws/fake-home/.Aws/credentials", true},
		{"/ws/fake-home/.GnuPG/pubring.kbx", true},
		{"/ws/main.go", false},
		{"/ws/keyboard.go", false},
		{"", false},
	}
	for _, c := range cases {
		why, got := p.IsSecretPath(c.path)
		if got != c.want {
			t.Errorf("IsSecretPath(%q) = %v (%q), want %v", c.path, got, why, c.want)
		}
		if got && why == "" {
			t.Errorf("IsSecretPath(%q): no reason", c.path)
		}
	}
}

// A secret root matches without case where the filesystem folds it (APFS,
// NTFS: ~/.AWS/credentials is ~/.aws/credentials) and exactly elsewhere.
func TestWithinFoldsCaseWhereTheFilesystemDoes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		p, dir string
		fold   bool
		want   bool
	}{
		{"/Users/me/.AWS/credentials", "/Users/me/.aws", true, true},
		{"/Users/me/.AWS/credentials", "/Users/me/.aws", false, false},
		{"/Users/me/.aws/credentials", "/Users/me/.aws", false, true},
		{"/Users/me/.awsx/credentials", "/Users/me/.aws", true, false},
		{"/Users/me/.aw", "/Users/me/.aws", true, false},
	} {
		if got := withinFold(c.p, c.dir, c.fold); got != c.want {
			t.Errorf("withinFold(%q, %q, %v) = %v, want %v", c.p, c.dir, c.fold, got, c.want)
		}
	}
}

func TestIsSecretPathFollowsSymlinkedRoots(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	real := filepath.Join(root, "real-cw")
	link := filepath.Join(root, "link-cw")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	p := New(Options{UserHome: filepath.Join(root, "home"), Home: link})
	if _, ok := p.IsSecretPath(filepath.Join(real, "secrets", "deepseek.key")); !ok {
		t.Fatal("the resolved form of a symlinked CODEWHALE_HOME is not secret")
	}
}

// README.md "Modes and permissions": Protected writes: .git/** (config, hooks, index, refs), .codewhale/** and the user-level configuration need an explicit approval that names why.
func TestProtectedWrite(t *testing.T) {
	t.Parallel()
	p, home, cw := fixture(t)
	ws := filepath.Join(filepath.Dir(home), "ws")
	cases := []struct {
		path string
		want bool
	}{
		{filepath.Join(ws, ".git", "config"), true},
		{filepath.Join(ws, ".git", "hooks", "pre-commit"), true},
		{filepath.Join(ws, ".git", "index"), true},
		{filepath.Join(ws, ".git", "refs", "heads", "main"), true},
		{filepath.Join(ws, ".git"), true},
		{filepath.Join(ws, ".GIT", "config"), true},
		{filepath.Join(ws, "vendor", "sub", ".git", "config"), true},
		{filepath.Join(ws, ".codewhale", "config.toml"), true},
		{filepath.Join(ws, ".codewhale", "permissions.toml"), true},
		{filepath.Join(cw, "config.toml"), true},
		{filepath.Join(home, ".ssh", "authorized_keys"), true},
		{filepath.Join(filepath.Dir(home), "etc", "cw.toml"), true},
		{filepath.Join(home, ".bashrc"), true},
		{filepath.Join(home, ".profile"), true},
		{filepath.Join(home, ".zshrc"), true},
		{filepath.Join(home, ".gitconfig"), true},
		{filepath.Join(home, ".config", "git", "config"), true},
		{filepath.Join(home, ".config", "systemd", "user", "x.service"), true},
		{filepath.Join(home, ".bashrc.d"), false},
		{filepath.Join(home, "notes.txt"), false},
		{filepath.Join(ws, ".bashrc"), false},
		{filepath.Join(ws, ".gitignore"), false},
		{filepath.Join(ws, ".github", "workflows", "ci.yml"), false},
		{filepath.Join(ws, "src", "git.go"), false},
		{filepath.Join(ws, "main.go"), false},
	}
	for _, c := range cases {
		why, got := p.ProtectedWrite(c.path, ws)
		if got != c.want {
			t.Errorf("ProtectedWrite(%q) = %v (%q), want %v", c.path, got, why, c.want)
		}
		if got && !strings.HasPrefix(why, "writes ") {
			t.Errorf("ProtectedWrite(%q): reason %q", c.path, why)
		}
	}
}

func TestDefaultBeforeAndAfterConfigure(t *testing.T) {
	// Not parallel: it swaps the process-wide Policy.
	prev := current.Load()
	t.Cleanup(func() { current.Store(prev) })
	cw := t.TempDir()
	Configure(New(Options{UserHome: t.TempDir(), Home: cw, Keys: func() []string { return []string{"sk-configured-0123456789abcdef"} }}))
	if _, ok := IsSecretPath(filepath.Join(cw, "config.toml")); !ok {
		t.Error("the configured home is not secret")
	}
	if got := Redact("key=sk-configured-0123456789abcdef"); got != "key="+Marker("api-key") {
		t.Errorf("Redact = %q", got)
	}
	if _, ok := ProtectedWrite("/ws/.git/config", "/ws"); !ok {
		t.Error(".git/config not protected")
	}
}

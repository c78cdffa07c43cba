package sandbox

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// world is a workspace (a real git repository with .codewhale), a canary
// directory beside it that no sandboxed command may change, a private temp
// dir and a codewhale home, all under one test directory that is itself not
// writable to the sandbox.
type world struct {
	base, ws, canary, tmp, home string
}

func newWorld(t *testing.T) world {
	t.Helper()
	base := t.TempDir()
	w := world{base: base, ws: filepath.Join(base, "ws"), canary: filepath.Join(base, "outside"),
		tmp: filepath.Join(base, "tmp"), home: filepath.Join(base, "home")}
	for _, d := range []string{w.ws, w.canary, w.tmp, filepath.Join(w.home, "tmp"), filepath.Join(w.ws, ".codewhale"),
		filepath.Join(w.ws, "sub")} {
		mustMkdir(t, d)
	}
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(t, "git is not installed")
	}
	if out, err := exec.Command("git", "init", "-q", w.ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	files := map[string]string{
		filepath.Join(w.canary, "keep.txt"):                "canary\n",
		filepath.Join(w.canary, "dir", "deep.txt"):         "deep\n",
		filepath.Join(w.ws, "file.txt"):                    "workspace file\n",
		filepath.Join(w.ws, "sub", "a.txt"):                "a\n",
		filepath.Join(w.ws, ".codewhale", "config.toml"):   "model = \"x\"\n",
		filepath.Join(w.ws, ".git", "hooks", "README"):     "hooks\n",
		filepath.Join(w.home, "config.toml"):               "api_key = \"sk-test\"\n",
		filepath.Join(w.ws, ".git", "info", "exclude.bak"): "x\n",
	}
	for p, body := range files {
		mustMkdir(t, filepath.Dir(p))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w world) policy(mode Mode, network bool) Policy {
	return DefaultPolicy(Defaults{Mode: mode, Workspace: w.ws, Home: w.home, Config: filepath.Join(w.home, "config.toml"),
		TempDirs: []string{w.tmp}, Network: network})
}

func mustMkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

// tree is a byte-for-byte picture of a directory: every entry's type, mode,
// content or link target.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		v := info.Mode().String()
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		case info.Mode().IsRegular():
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(raw)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(a, b map[string]string) (string, bool) {
	for k, v := range a {
		if b[k] != v {
			return k + ": " + v + " became " + b[k], false
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			return k + " appeared: " + v, false
		}
	}
	return "", true
}

// run runs script with /bin/sh under sb in dir and returns its combined
// output and whether it exited 0.
func run(t *testing.T, sb *Sandbox, dir, script string, env ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = sb.Environ(env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := sb.Start(cmd)
	if err != nil {
		t.Fatalf("start %q: %v", script, err)
	}
	err = p.Wait()
	return strings.TrimSpace(out.String()), err == nil
}

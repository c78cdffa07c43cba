package main

import (
	"archive/zip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// goInstallEnv is a fresh HOME and GOPATH for `go install`, as a new user's
// machine has them: only the build cache is shared (it is keyed by content,
// so it changes no result), and no network is reachable.
func goInstallEnv(t *testing.T, proxy string) (env []string, gobin string) {
	t.Helper()
	home := t.TempDir()
	gobin = filepath.Join(home, "bin")
	env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GOPATH=" + filepath.Join(home, "go"), "GOBIN=" + gobin,
		"GOCACHE=" + goEnv("GOCACHE"), "GOPROXY=" + proxy, "GOSUMDB=off", "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local"}
	return env, gobin
}

// The README's Install section: `go install ./cmd/codewhale` from a clone
// works in a fresh HOME, go.mod has no replace directive, and the binary
// reports the version the build information holds.
// README.md "Install": go install ./cmd/codewhale from a clone; no replace; the build info's version.
func TestGoInstallFromClone(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: builds codewhale in a fresh GOPATH")
	}
	t.Parallel()
	root := e2e.ModuleRoot(t)
	out, err := exec.Command("go", "mod", "edit", "-json", filepath.Join(root, "go.mod")).Output()
	if err != nil {
		t.Fatal(err)
	}
	var mod struct{ Replace []any }
	if err := json.Unmarshal(out, &mod); err != nil || len(mod.Replace) > 0 {
		t.Fatalf("go.mod has replace directives %v (%v): go install …@latest cannot build it", mod.Replace, err)
	}
	// The clone's own dependencies come from the real module cache, read
	// as a file proxy: GOPATH stays fresh and nothing is fetched.
	env, gobin := goInstallEnv(t, "file://"+filepath.Join(goEnv("GOMODCACHE"), "cache", "download"))
	install := exec.Command("go", "install", "./cmd/codewhale")
	install.Dir, install.Env = root, env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/codewhale: %v\n%s", err, out)
	}
	got := versionOf(t, filepath.Join(gobin, "codewhale"))
	if strings.Contains(got, "0.1.0-dev") || !strings.HasPrefix(got, "codewhale version ") {
		t.Errorf("--version printed %q, want the build information's version", got)
	}
}

// `go install github.com/codewhale/codewhale/cmd/codewhale@latest`: the
// module as a proxy serves it (a zip of the tracked files at v0.99.0, the
// dependencies from the module cache) installs, and --version prints the
// module version with no -X flag.
// README.md "Install": go install …@latest; --version prints the module version.
func TestGoInstallLatest(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: builds codewhale in a fresh GOPATH")
	}
	t.Parallel()
	root := e2e.ModuleRoot(t)
	proxy := t.TempDir()
	writeModuleVersion(t, root, proxy, "github.com/codewhale/codewhale", "v0.99.0")
	env, gobin := goInstallEnv(t, "file://"+proxy+",file://"+filepath.Join(goEnv("GOMODCACHE"), "cache", "download"))
	install := exec.Command("go", "install", "github.com/codewhale/codewhale/cmd/codewhale@latest")
	install.Dir, install.Env = t.TempDir(), env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install …@latest: %v\n%s", err, out)
	}
	if got := versionOf(t, filepath.Join(gobin, "codewhale")); got != "codewhale version v0.99.0" {
		t.Errorf("--version printed %q, want codewhale version v0.99.0", got)
	}
}

func versionOf(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", bin, err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeModuleVersion lays out module mod at version v in the proxy
// directory: list, .info, .mod and a zip of the files git tracks.
func writeModuleVersion(t *testing.T, root, proxy, mod, v string) {
	t.Helper()
	dir := filepath.Join(proxy, filepath.FromSlash(mod), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info := `{"Version":"` + v + `","Time":"` + time.Now().UTC().Format(time.RFC3339) + `"}`
	for name, body := range map[string][]byte{"list": []byte(v + "\n"), v + ".info": []byte(info), v + ".mod": gomod} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		e2e.Missing(t, "git ls-files in the clone: "+err.Error())
	}
	f, err := os.Create(filepath.Join(dir, v+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		body, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(mod + "@" + v + "/" + name)
		if err == nil {
			_, err = w.Write(body)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

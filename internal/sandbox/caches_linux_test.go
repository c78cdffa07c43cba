package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/goproxy"
)

// A real `go build` and `go test` of a small module with a dependency work
// under every confinement with the build caches writable, and fail without
// them: go must download the dependency (from a file:// module proxy) into
// its module cache, the default under a private, fresh HOME (created by
// CreateCaches, as a session does). GOCACHE is the
// machine's own (a fresh one would rebuild the standard library for
// minutes). Nothing outside the workspace, the temp dir and the caches
// changes.
func TestGoBuildsInTheSandbox(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		e2e.Missing(t, "go is not installed")
	}
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			user := filepath.Join(w.base, "user")
			env := map[string]string{"HOME": user, "GOENV": "off", "GOCACHE": goCache(t, goBin),
				"TMPDIR": w.tmp, "PATH": filepath.Dir(goBin) + ":/usr/bin:/bin"}
			caches := BuildCaches(func(k string) string { return env[k] })
			modcache := filepath.Join(user, "go", "pkg", "mod")
			if len(caches) < 2 || caches[0] != env["GOCACHE"] || caches[1] != modcache {
				t.Fatalf("caches %v", caches)
			}
			// A fresh home: the session creates the missing module cache.
			mustMkdir(t, user)
			if got := CreateCaches(caches, CacheBases(func(k string) string { return env[k] })); !slices.Contains(got, modcache) {
				t.Fatalf("the module cache was not created: %v", got)
			}
			t.Cleanup(func() { // go makes what it downloads read-only
				clean := exec.Command(goBin, "clean", "-modcache")
				clean.Env = append(os.Environ(), "GOMODCACHE="+modcache)
				_ = clean.Run()
			})
			goproxy.WriteModule(t, w.ws)
			if !v.rootEntries { // carving: go could not create go.sum in the workspace root
				if err := os.WriteFile(filepath.Join(w.ws, "go.sum"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			vars := append(goproxy.Env(t, filepath.Join(w.base, "proxy")),
				"GOMODCACHE=", "GOPATH=", "XDG_CACHE_HOME=", "XDG_CONFIG_HOME=")
			for k, val := range env {
				vars = append(vars, k+"="+val)
			}
			// Into sub/: carving Landlock creates no entry in the workspace
			// root (the other variants do, TestWritableRootsStayWritable).
			script := `go build -o sub/app . && ./sub/app && go test -count=1 ./... && touch sub/built`
			p := w.policy(WorkspaceWrite, true)
			if out, ok := run(t, New(p, v.options()), w.ws, script, vars...); ok || !strings.Contains(out, modcache) {
				t.Fatalf("without writable caches, go did not fail on its module cache:\n%s", out)
			}
			before := tree(t, w.canary)
			p.Caches = caches
			out, ok := run(t, New(p, v.options()), w.ws, script, vars...)
			if !ok || !strings.Contains(out, goproxy.Greeting) || !strings.Contains(out, "ok  \texample.com/tiny") {
				t.Fatalf("go build/test under the sandbox failed:\n%s", out)
			}
			if _, err := os.Stat(filepath.Join(w.ws, "sub", "built")); err != nil {
				t.Fatal(err)
			}
			if diff, ok := sameTree(before, tree(t, w.canary)); !ok {
				t.Fatalf("outside changed: %s", diff)
			}
		})
	}
}

// goCache is the machine's Go build cache.
func goCache(t *testing.T, goBin string) string {
	t.Helper()
	out, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil || !filepath.IsAbs(strings.TrimSpace(string(out))) {
		e2e.Missing(t, fmt.Sprintf("go env GOCACHE: %v %s", err, out))
	}
	return strings.TrimSpace(string(out))
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/testutil/goproxy"
)

// codewhale exec runs a real go build and go test in a repository under the
// sandbox: by default the module cache the environment names is writable,
// so go downloads the dependency into it; with [sandbox] build_caches =
// false the same command fails on that cache and the model is told which
// write was refused.
func TestExecGoBuildsUnderTheSandbox(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, config string
		ok           bool
	}{
		{"default", "", true},
		{"build_caches off", "[sandbox]\nbuild_caches = false\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t)
			cl, _ := sandboxedCLI(t, srv)
			cl.config("[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n" + c.config)
			modcache := filepath.Join(cl.home, "go", "pkg", "mod")
			if err := os.MkdirAll(modcache, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { // go makes what it downloads read-only
				clean := exec.Command("go", "clean", "-modcache")
				clean.Env = append(os.Environ(), "GOMODCACHE="+modcache)
				_ = clean.Run()
			})
			cl.env = append(cl.env, goproxy.Env(t, t.TempDir())...)
			cl.env = append(cl.env, "GOMODCACHE="+modcache, "GOFLAGS=-mod=mod -buildvcs=false")
			goproxy.WriteModule(t, cl.ws)
			if out, err := exec.Command("git", "init", "-q", cl.ws).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
				if r.HasToolResult("") {
					return fakemodel.Text("done")
				}
				return fakemodel.Tools(fakemodel.Call{ID: "b", Name: "Bash",
					Args: `{"command":"go build -o app . && ./app && go test -count=1 ./..."}`})
			})
			out, errOut, code := cl.run("exec", "--auto", "--output-format", "stream-json", "build it")
			if code != 0 {
				t.Fatalf("code %d\n%s\n%s", code, out, errOut)
			}
			got := toolMessages(srv.Requests()[len(srv.Requests())-1])
			built := strings.Contains(got, goproxy.Greeting) && strings.Contains(got, "ok  \texample.com/tiny")
			if built != c.ok {
				t.Fatalf("built %v, want %v:\n%s", built, c.ok, got)
			}
			if !c.ok && !strings.Contains(got, "refused a write to "+modcache) {
				t.Fatalf("the refused cache write was not named:\n%s", got)
			}
		})
	}
}

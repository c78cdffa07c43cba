package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// In a fresh home the session creates the missing build caches before the
// sandbox applies its policy, so the first sandboxed command that fills
// one (npm install, go build) can write it, and nothing else in the home.
func TestFirstBuildInAFreshHomeCanWriteItsCache(t *testing.T) {
	t.Parallel()
	script := "mkdir -p ~/.npm/_cacache && echo cached > ~/.npm/_cacache/probe && cat ~/.npm/_cacache/probe; " +
		"echo x > ~/outside.txt || echo home-refused"
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "b", Name: "Bash", Args: jsonCommand(script)}),
		fakemodel.Text("done"))
	c, _ := sandboxedCLI(t, srv) // the home is outside every writable root
	// The Go caches stay the machine's (newCLI); the others are the home's.
	homeCaches := []string{".npm", filepath.Join(".cache", "pip"), filepath.Join(".cargo", "registry"), filepath.Join(".cargo", "git")}
	for _, d := range homeCaches {
		if _, err := os.Stat(filepath.Join(c.home, d)); err == nil {
			t.Fatalf("~/%s exists before the session, so the test shows nothing", d)
		}
	}
	out, errOut, code := c.run("exec", "--auto", "fill the cache")
	if len(srv.Requests()) < 2 {
		t.Fatalf("exit %d: %s\n%s", code, out, errOut)
	}
	res := toolResults(srv.Requests()[1])["b"]
	if !strings.Contains(res, "cached") || !strings.Contains(res, "home-refused") {
		t.Errorf("the sandboxed command could not write the new cache, or could write the home: %q", res)
	}
	for _, d := range homeCaches {
		if fi, err := os.Stat(filepath.Join(c.home, d)); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("~/%s: %v %v, want a 0700 directory", d, fi, err)
		}
	}
	if _, err := os.Stat(filepath.Join(c.home, "outside.txt")); err == nil {
		t.Error("the sandboxed command wrote into the home")
	}
}

// A build cache configured in a writable directory outside the home
// (npm_config_cache in the workspace or the temp dir, as CI setups do) that
// does not exist yet — the session creates caches below the home only — is
// where a sandboxed command could plant a link to a directory outside; the
// next command must not get the link's target writable.
func TestPlantedCacheLinkDoesNotWidenTheSandbox(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	c, canary := sandboxedCLI(t, srv)
	cache := filepath.Join(c.ws, ".npm-cache")
	c.env = append(c.env, "npm_config_cache="+cache)
	srv.Push(fakemodel.Tools(fakemodel.Call{ID: "ln", Name: "Bash", Args: jsonCommand("ln -s " + canary + " " + cache)}),
		fakemodel.Tools(fakemodel.Call{ID: "w", Name: "Bash", Args: jsonCommand("echo pwned > " + cache + "/keep.txt; echo wrote")}),
		fakemodel.Text("done"))
	before := snapshot(t, canary)
	out, errOut, code := c.run("exec", "--auto", "plant a link")
	if len(srv.Requests()) < 3 {
		t.Fatalf("exit %d: %s\n%s", code, out, errOut)
	}
	if target, err := os.Readlink(cache); err != nil || target != canary {
		t.Fatalf("the first command did not plant the link, so the test shows nothing: %v %q", err, toolResults(srv.Requests()[1])["ln"])
	}
	if after := snapshot(t, canary); after != before {
		t.Errorf("the second command wrote through the planted cache link: %q", toolResults(srv.Requests()[2])["w"])
	}
}

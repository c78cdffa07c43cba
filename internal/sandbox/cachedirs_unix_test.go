//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// In a fresh home every default build cache is created (0700, parents
// too) before the policy is applied, so the sandbox can make it writable;
// a cache outside the home, an existing one and one behind a symbolic link
// are left as they are.
// README.md "Sandbox": missing caches are created (0700, parents included) only below the home and never through a symbolic link.
func TestCreateCachesInAFreshHome(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the defaults below are Linux's") // other systems' defaults follow os.UserCacheDir
	}
	home := t.TempDir()
	env := map[string]string{"HOME": home, "GOENV": "off"}
	get := func(k string) string { return env[k] }
	caches := BuildCaches(get)
	if len(caches) != 6 {
		t.Fatalf("caches %v", caches)
	}
	created := CreateCaches(caches, CacheBases(get))
	if !slices.Equal(created, caches) {
		t.Fatalf("created %v, want every cache %v", created, caches)
	}
	for _, c := range append(caches, filepath.Join(home, ".cache"), filepath.Join(home, "go", "pkg")) {
		fi, err := os.Lstat(c)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a 0700 directory", c, fi, err)
		}
	}
	// A second session creates nothing and changes nothing.
	if again := CreateCaches(caches, CacheBases(get)); len(again) != 0 {
		t.Errorf("created again: %v", again)
	}
	if err := os.Chmod(caches[0], 0o755); err != nil {
		t.Fatal(err)
	}
	CreateCaches(caches, CacheBases(get))
	if fi, _ := os.Stat(caches[0]); fi.Mode().Perm() != 0o755 {
		t.Errorf("an existing cache's mode changed to %v", fi.Mode().Perm())
	}
}

func TestCreateCachesStaysBelowTheHome(t *testing.T) {
	t.Parallel()
	home, outside := t.TempDir(), t.TempDir()
	// ~/.cache is a link out of the home: the walk does not follow it.
	if err := os.Symlink(outside, filepath.Join(home, ".cache")); err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(outside, "gomod")
	caches := []string{filepath.Join(home, ".cache", "go-build"), mod, filepath.Join(home, ".npm"), home, "relative/x"}
	created := CreateCaches(caches, []string{home})
	if !slices.Equal(created, []string{filepath.Join(home, ".npm")}) {
		t.Errorf("created %v, want only ~/.npm", created)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("created outside the home: %v", entries)
	}
	// A cache directory outside the home is created below its own base
	// only when that is one ($XDG_CACHE_HOME outside the home).
	get := func(k string) string { return map[string]string{"HOME": home, "XDG_CACHE_HOME": outside}[k] }
	if bases := CacheBases(get); !slices.Equal(bases, []string{home, outside}) {
		t.Errorf("bases %v", bases)
	}
	if got := CreateCaches([]string{filepath.Join(outside, "pip")}, CacheBases(get)); len(got) != 1 {
		t.Errorf("the XDG cache below its base was not created: %v", got)
	}
}

// The walk refuses a link at any depth below the base, not only the first.
func TestMkdirBeneathRefusesLinks(t *testing.T) {
	t.Parallel()
	base, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(base, "a", "b")); err != nil {
		t.Fatal(err)
	}
	if err := mkdirBeneath(base, filepath.Join(base, "a", "b", "c")); err == nil {
		t.Error("mkdirBeneath followed a link")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("created through the link: %v", entries)
	}
}

// A cache or writable root reached through a link that a sandboxed command
// could have made (one inside a writable root) is not writable: the link's
// target would be. The user's own link outside every writable root stays.
// README.md "Sandbox": a cache or writable root reached through a link inside a writable root is left read-only.
func TestPlantedLinkToACacheIsNotWritable(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws, tmp, home, secret, data := filepath.Join(base, "ws"), filepath.Join(base, "tmp"), filepath.Join(base, "home"),
		filepath.Join(base, "secret"), filepath.Join(base, "data")
	for _, d := range []string{ws, tmp, home, secret, filepath.Join(data, "go-build")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{filepath.Join(tmp, "npm-cache"): secret,
		filepath.Join(ws, ".gomod"): secret, filepath.Join(home, ".cache"): data} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	p := Policy{Mode: WorkspaceWrite, Workspace: ws, WritableRoots: []string{tmp},
		Caches: []string{filepath.Join(tmp, "npm-cache"), filepath.Join(ws, ".gomod"), filepath.Join(home, ".cache", "go-build")}}
	rw := p.resolve().rw
	if under(secret, rw) || slices.Contains(rw, secret) {
		t.Errorf("a link planted in a writable root made its target writable: %v", rw)
	}
	if !slices.Contains(rw, filepath.Join(data, "go-build")) {
		t.Errorf("the user's own ~/.cache link was dropped: %v", rw)
	}
	if !slices.Contains(rw, ws) || !slices.Contains(rw, tmp) {
		t.Errorf("the workspace or the temp dir is missing: %v", rw)
	}
}

package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// README.md "Sandbox": the build caches: GOCACHE/GOMODCACHE (or ~/.cache/go-build, ~/go/pkg/mod, go env -w), npm_config_cache/~/.npm, PIP_CACHE_DIR/~/.cache/pip, CARGO_HOME's registry/ and git/.
func TestBuildCaches(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the defaults below are Linux's") // other systems' defaults follow os.UserCacheDir
	}
	goenv := filepath.Join(t.TempDir(), "env")
	if err := os.WriteFile(goenv, []byte("# go env -w\nGOMODCACHE=/from/file/mod\nGOCACHE=/from/file/build\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"defaults", map[string]string{"HOME": "/h", "GOENV": "off"},
			[]string{"/h/.cache/go-build", "/h/go/pkg/mod", "/h/.npm", "/h/.cache/pip", "/h/.cargo/registry", "/h/.cargo/git"}},
		{"variables", map[string]string{"HOME": "/h", "GOENV": "off", "GOCACHE": "/gc", "GOPATH": "/gp1:/gp2",
			"npm_config_cache": "/npm", "PIP_CACHE_DIR": "/pip", "CARGO_HOME": "/cargo"},
			[]string{"/gc", "/gp1/pkg/mod", "/npm", "/pip", "/cargo/registry", "/cargo/git"}},
		{"xdg and GOMODCACHE", map[string]string{"HOME": "/h", "GOENV": "off", "XDG_CACHE_HOME": "/x", "GOMODCACHE": "/mc"},
			[]string{"/x/go-build", "/mc", "/h/.npm", "/x/pip", "/h/.cargo/registry", "/h/.cargo/git"}},
		{"go env file below the environment", map[string]string{"HOME": "/h", "GOENV": goenv, "GOCACHE": "/env/build"},
			[]string{"/env/build", "/from/file/mod", "/h/.npm", "/h/.cache/pip", "/h/.cargo/registry", "/h/.cargo/git"}},
		{"GOCACHE=off", map[string]string{"HOME": "/h", "GOENV": "off", "GOCACHE": "off"},
			[]string{"/h/go/pkg/mod", "/h/.npm", "/h/.cache/pip", "/h/.cargo/registry", "/h/.cargo/git"}},
		// A cache variable naming the home directory, an ancestor of it or
		// the root would make all of it writable, and a relative path
		// means nothing here: each is left out (the tool uses it, not its
		// default).
		{"home or root as a cache", map[string]string{"HOME": "/h", "GOENV": "off", "GOCACHE": "/h", "GOMODCACHE": "/",
			"npm_config_cache": "relative", "PIP_CACHE_DIR": "/h/..", "CARGO_HOME": "/h/.cargo"},
			[]string{"/h/.cargo/registry", "/h/.cargo/git"}},
		{"no home", map[string]string{"GOENV": "off"}, nil},
	}
	for _, c := range cases {
		got := BuildCaches(func(k string) string { return c.env[k] })
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// Status names the writable caches among what the sandbox does not cover.
// README.md "Sandbox": /status lists the writable caches under what is not covered.
func TestStatusNamesWritableCaches(t *testing.T) {
	t.Parallel()
	p := Policy{Mode: WorkspaceWrite, Workspace: "/ws", Network: true, Caches: []string{"/h/.cache/go-build"}}
	st := New(p, fixedCaps(Caps{LandlockABI: 7, MountNS: true})).Status()
	if !strings.Contains(st.Report(), "Not covered: the build caches that exist (/h/.cache/go-build) are writable") {
		t.Fatalf("report %q", st.Report())
	}
	p.Caches = nil
	if st := New(p, fixedCaps(Caps{LandlockABI: 7, MountNS: true})).Status(); strings.Contains(st.Report(), "build caches") {
		t.Fatalf("report without caches %q", st.Report())
	}
}

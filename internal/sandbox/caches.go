package sandbox

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// BuildCaches are the cache directories that builds and package managers
// write while they work, as env (the agent's environment) places them: Go's
// build cache and module cache, npm's and pip's caches, and cargo's
// registry and git checkouts (not the rest of CARGO_HOME: its bin/ is on
// PATH and config.toml names programs). Without them a sandboxed `go build`
// or `npm install` fails on its first cache write. Directories that do not
// exist are left out when the policy is resolved, so a sandboxed command
// cannot create one: the session creates the missing ones first, below the
// home only (CreateCaches).
//
// Each path follows the tool's own rules: its variable, then its default.
// Go also reads the file `go env -w` writes ($GOENV, or go/env in the user
// config dir), below the process environment, as the go command does.
func BuildCaches(env func(string) string) []string {
	home := env("HOME")
	if runtime.GOOS == "windows" {
		home = env("USERPROFILE")
	}
	cache := userCacheDir(env, home)
	goEnv := goEnvFile(env, home)
	goVar := func(k string) string {
		if v := env(k); v != "" {
			return v
		}
		return goEnv[k]
	}
	var out []string
	add := func(p string) {
		p = filepath.Clean(p)
		// A cache variable pointing at the home directory (or above it)
		// would make all of it writable: such a "cache" is left out.
		if filepath.IsAbs(p) && !contains(out, p) && (home == "" || !within(filepath.Clean(home), p)) &&
			filepath.Dir(p) != p {
			out = append(out, p)
		}
	}
	switch gc := goVar("GOCACHE"); {
	case gc == "off":
	case gc != "":
		add(gc)
	case cache != "":
		add(filepath.Join(cache, "go-build"))
	}
	if mc := goVar("GOMODCACHE"); mc != "" {
		add(mc)
	} else if gp := filepath.SplitList(goVar("GOPATH")); len(gp) > 0 && gp[0] != "" {
		add(filepath.Join(gp[0], "pkg", "mod"))
	} else if home != "" {
		add(filepath.Join(home, "go", "pkg", "mod"))
	}
	if nc := firstOf(env, "npm_config_cache", "NPM_CONFIG_CACHE"); nc != "" {
		add(nc)
	} else if home != "" {
		add(filepath.Join(home, ".npm"))
	}
	if pc := env("PIP_CACHE_DIR"); pc != "" {
		add(pc)
	} else if cache != "" {
		add(filepath.Join(cache, "pip"))
	}
	cargo := env("CARGO_HOME")
	if cargo == "" && home != "" {
		cargo = filepath.Join(home, ".cargo")
	}
	if cargo != "" {
		add(filepath.Join(cargo, "registry"))
		add(filepath.Join(cargo, "git"))
	}
	return out
}

// userCacheDir is os.UserCacheDir read from env instead of the process.
func userCacheDir(env func(string) string, home string) string {
	return userDir(env, home, "LocalAppData", "Caches", "XDG_CACHE_HOME", ".cache")
}

// userConfigDir is os.UserConfigDir read from env instead of the process.
func userConfigDir(env func(string) string, home string) string {
	return userDir(env, home, "AppData", "Application Support", "XDG_CONFIG_HOME", ".config")
}

// userDir is the one rule both follow, as the os package's: a Windows
// variable, ~/Library/<darwin> on Apple systems, else an absolute $<xdg> or
// ~/<fallback>; "" where the home is unknown.
func userDir(env func(string) string, home, windows, darwin, xdg, fallback string) string {
	switch runtime.GOOS {
	case "windows":
		return env(windows)
	case "darwin", "ios":
		if home == "" {
			return ""
		}
		return filepath.Join(home, "Library", darwin)
	}
	if x := env(xdg); filepath.IsAbs(x) {
		return x
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, fallback)
}

// goEnvFile reads the go command's environment file: KEY=VALUE lines.
func goEnvFile(env func(string) string, home string) map[string]string {
	path := env("GOENV")
	if path == "off" {
		return nil
	}
	if path == "" {
		path = userConfigDir(env, home)
		if path == "" {
			return nil
		}
		path = filepath.Join(path, "go", "env")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	vars := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "="); ok && !strings.HasPrefix(k, "#") {
			vars[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return vars
}

func firstOf(env func(string) string, names ...string) string {
	for _, n := range names {
		if v := env(n); v != "" {
			return v
		}
	}
	return ""
}

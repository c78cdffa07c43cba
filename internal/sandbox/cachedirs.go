package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
)

// CacheBases are the directories below which CreateCaches may create a
// missing build cache: the home directory, and the user cache directory
// when it lies outside the home ($XDG_CACHE_HOME=/x). Both come from env,
// as BuildCaches reads them.
func CacheBases(env func(string) string) []string {
	home := env("HOME")
	if runtime.GOOS == "windows" {
		home = env("USERPROFILE")
	}
	var out []string
	if filepath.IsAbs(home) && filepath.Dir(filepath.Clean(home)) != filepath.Clean(home) {
		out = append(out, filepath.Clean(home))
	}
	if c := userCacheDir(env, home); filepath.IsAbs(c) && (len(out) == 0 || !within(filepath.Clean(c), out[0])) {
		out = append(out, filepath.Clean(c))
	}
	return out
}

// CreateCaches creates the build caches that do not exist yet, each with
// its missing parents, mode 0700, so the first `go build` or `npm install`
// in a fresh home works in the sandbox (which makes only existing caches
// writable: a sandboxed command cannot create one). Only a cache strictly
// below one of bases (an existing directory) is created, and the walk from
// the base never follows a symbolic link: a link on the way (one a
// workspace command could have planted, or a user's own ~/.cache → /data)
// leaves that cache uncreated. It returns the caches it created; failures
// leave a cache missing, as before.
func CreateCaches(caches, bases []string) []string {
	var created []string
	for _, c := range caches {
		c = filepath.Clean(c)
		if _, err := os.Lstat(c); err == nil || !filepath.IsAbs(c) {
			continue
		}
		for _, b := range bases {
			if c == b || !within(c, b) {
				continue
			}
			if mkdirBeneath(b, c) == nil {
				created = append(created, c)
			}
			break
		}
	}
	return created
}

// dropPlanted removes from rw (the canonical writable roots) each root of
// linked (a writable root or build cache as configured, and where it
// resolves, for those whose path passes through a symbolic link) that is
// reached through a link inside a writable root: a sandboxed command could
// have made that link (ln -s ~/.ssh /tmp/npm-cache, with
// npm_config_cache=/tmp/npm-cache), and the next command would then get
// the link's target writable. A link outside every writable root (the
// user's own ~/.cache → /data/cache) is kept.
func dropPlanted(rw []string, linked [][2]string) []string {
	out := rw
	for _, l := range linked {
		if !plantedLink(l[0], rw) {
			continue
		}
		kept := out[:0:0]
		for _, x := range out {
			if x != l[1] {
				kept = append(kept, x)
			}
		}
		out = kept
	}
	return out
}

// plantedLink reports a symbolic link on the way to abs whose directory
// lies in one of the writable roots rw.
func plantedLink(abs string, rw []string) bool {
	for q := filepath.Clean(abs); filepath.Dir(q) != q; q = filepath.Dir(q) {
		fi, err := os.Lstat(q)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		if dir, ok := canonical(filepath.Dir(q)); !ok || under(dir, rw) {
			return true
		}
	}
	return false
}

// Package secrets is the one place that answers three questions every tool
// and the engine ask: is this path a secret (IsSecretPath), is this path one
// a write must not touch without an explicit human approval (ProtectedWrite),
// and what does this text look like with the secrets taken out (Redact).
//
// The answers depend on facts only the wiring knows (the real
// $CODEWHALE_HOME, the active config file, the configured API key), so they
// come from a Policy built from Options. The package-level functions consult
// the process-wide Policy installed with Configure; until the wiring calls
// it, a Policy built on first use from the user's home directory and
// CODEWHALE_HOME stands in. Nothing is read or compiled at package init.
package secrets

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Options are the facts a Policy is built from. Zero values work: the user's
// home comes from os.UserHomeDir, the CodeWhale home from CODEWHALE_HOME (or
// ~/.codewhale), and no API key is known.
type Options struct {
	// UserHome is the user's home directory ("" = os.UserHomeDir()).
	UserHome string
	// Home is the real CodeWhale home, $CODEWHALE_HOME when set ("" =
	// CODEWHALE_HOME from the environment, else UserHome/.codewhale).
	Home string
	// ConfigFiles are the active configuration files (the user config the run
	// loaded, typically). Each is secret wherever it lives; so is its ".bak".
	ConfigFiles []string
	// Keys returns the configured secrets Redact must remove wherever they
	// appear (the provider's API key). It is called on every Redact, so a key
	// set later (`auth set`) is honoured; nil means none is known.
	Keys func() []string
	// EnvPassthrough names secret-looking variables the person lets
	// children keep ([shell] env_passthrough); Environ honours it.
	EnvPassthrough []string
}

// Policy answers the package's questions for one set of Options. Its zero
// value is not usable; build one with New.
type Policy struct {
	opts  Options
	roots func() *roots // resolved on first use: it stats and resolves symlinks
}

// New returns a Policy for o.
func New(o Options) *Policy {
	p := &Policy{opts: o}
	p.roots = sync.OnceValue(func() *roots { return buildRoots(o) })
	return p
}

var current atomic.Pointer[Policy]

// fallback is the Policy used before Configure: facts read from the process
// environment on first use.
var fallback = sync.OnceValue(func() *Policy { return New(Options{}) })

// Configure installs p as the process-wide Policy the package functions use.
// The wiring calls it once the configuration is loaded.
func Configure(p *Policy) { current.Store(p) }

// Default returns the process-wide Policy.
func Default() *Policy {
	if p := current.Load(); p != nil {
		return p
	}
	return fallback()
}

// IsSecretPath reports whether abs (absolute, symlinks resolved) is a secret
// under the process-wide Policy, and why.
func IsSecretPath(abs string) (reason string, ok bool) { return Default().IsSecretPath(abs) }

// ProtectedWrite reports whether a write to abs needs an explicit approval
// under the process-wide Policy, and why.
func ProtectedWrite(abs, workspace string) (reason string, ok bool) {
	return Default().ProtectedWrite(abs, workspace)
}

// Redact returns text with every secret the process-wide Policy knows of
// replaced by a marker.
func Redact(text string) string { return Default().Redact(text) }

// dirRule marks everything at or below dir.
type dirRule struct {
	dir    string
	reason string
}

// roots are the resolved locations of a Policy.
type roots struct {
	dirs  []dirRule
	files map[string]string // exact path → reason
	// protect are the user-level locations a write must never touch silently
	// (a subset of dirs plus the config files).
	protect []dirRule
}

// The reasons of CodeWhale's own locations, so a caller can tell them from
// third-party credentials (File keeps the contract's exact refusal for them).
const (
	ReasonHome       = "the CodeWhale home ($CODEWHALE_HOME: configuration, credential store, sessions)"
	ReasonConfig     = "the active CodeWhale configuration file"
	ReasonLegacyHome = "the legacy DeepSeek home (~/.deepseek: configuration, credential store)"
)

// IsCodeWhaleReason reports whether reason names one of CodeWhale's own
// configuration or credential locations.
func IsCodeWhaleReason(reason string) bool {
	return reason == ReasonHome || reason == ReasonConfig || reason == ReasonLegacyHome
}

func buildRoots(o Options) *roots {
	home := o.UserHome
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	cw := o.Home
	if cw == "" {
		cw = strings.TrimSpace(os.Getenv("CODEWHALE_HOME"))
	}
	if cw == "" && home != "" {
		cw = filepath.Join(home, ".codewhale")
	}
	r := &roots{files: map[string]string{}}
	if cw != "" {
		r.addDir(cw, ReasonHome, true)
	}
	if home != "" {
		for _, d := range homeDirs {
			r.addDir(filepath.Join(home, d.dir), d.reason, d.protect)
		}
		for _, f := range homeFiles {
			r.addFile(filepath.Join(home, f.dir), f.reason)
		}
		for _, f := range homeProtected {
			for _, form := range canonicalForms(filepath.Join(home, f.dir)) {
				r.protect = append(r.protect, dirRule{form, f.reason})
			}
		}
	}
	for _, f := range systemFiles {
		r.addFile(f.dir, f.reason)
	}
	for _, c := range o.ConfigFiles {
		if c == "" {
			continue
		}
		r.addFile(c, ReasonConfig)
		r.addFile(c+".bak", ReasonConfig)
		for _, form := range canonicalForms(c) {
			r.protect = append(r.protect, dirRule{form, ReasonConfig}, dirRule{form + ".bak", ReasonConfig})
		}
	}
	return r
}

// homeDirs are the directories under the user's home whose contents are
// secret; protect marks the ones whose writes need an explicit approval too.
var homeDirs = []struct {
	dir, reason string
	protect     bool
}{
	{".ssh", "SSH keys and configuration (~/.ssh)", true},
	{".aws", "AWS credentials (~/.aws)", true},
	{".gnupg", "GnuPG keyring (~/.gnupg)", true},
	{filepath.Join(".config", "gh"), "GitHub CLI credentials (~/.config/gh)", true},
	{".deepseek", ReasonLegacyHome, true},
	{".kube", "Kubernetes credentials (~/.kube)", true},
	{filepath.Join(".docker", "config.json"), "Docker registry credentials (~/.docker/config.json)", true},
}

// homeProtected are the files and directories under the user's home that
// are not secret but decide what later programs run, so writing them needs
// an explicit approval: shell startup files (every new shell runs them),
// git's user configuration (its aliases, pager and fsmonitor run on a read
// as ordinary as git status), and the user's service and autostart units.
var homeProtected = []struct{ dir, reason string }{
	{".bashrc", "a shell startup file (~/.bashrc: every new shell runs it)"},
	{".bash_profile", "a shell startup file (~/.bash_profile: every login shell runs it)"},
	{".bash_login", "a shell startup file (~/.bash_login: every login shell runs it)"},
	{".bash_logout", "a shell startup file (~/.bash_logout: every login shell runs it on exit)"},
	{".bash_aliases", "a shell startup file (~/.bash_aliases: ~/.bashrc runs it)"},
	{".profile", "a shell startup file (~/.profile: every login shell runs it)"},
	{".zshrc", "a shell startup file (~/.zshrc: every new zsh runs it)"},
	{".zshenv", "a shell startup file (~/.zshenv: every zsh runs it)"},
	{".zprofile", "a shell startup file (~/.zprofile: every login zsh runs it)"},
	{".zlogin", "a shell startup file (~/.zlogin: every login zsh runs it)"},
	{filepath.Join(".config", "fish"), "the fish shell's configuration (~/.config/fish: every new fish runs it)"},
	{".gitconfig", "git's user configuration (~/.gitconfig: its aliases, pager and fsmonitor run on ordinary reads)"},
	{filepath.Join(".config", "git"), "git's user configuration (~/.config/git: its config and attributes decide what git runs)"},
	{filepath.Join(".config", "systemd"), "the user's systemd units (~/.config/systemd: services it starts)"},
	{filepath.Join(".config", "autostart"), "the desktop's autostart entries (~/.config/autostart: programs a login starts)"},
}

var homeFiles = []struct{ dir, reason string }{
	{".netrc", "network credentials (~/.netrc)"},
	{".git-credentials", "stored git credentials (~/.git-credentials)"},
}

var systemFiles = []struct{ dir, reason string }{
	{"/etc/shadow", "the system password database (/etc/shadow)"},
	{"/etc/shadow-", "the system password database (/etc/shadow)"},
	{"/etc/gshadow", "the system group password database (/etc/gshadow)"},
	{"/etc/gshadow-", "the system group password database (/etc/gshadow)"},
}

func (r *roots) addDir(p, reason string, protect bool) {
	for _, c := range canonicalForms(p) {
		r.dirs = append(r.dirs, dirRule{c, reason})
		if protect {
			r.protect = append(r.protect, dirRule{c, reason})
		}
	}
}

func (r *roots) addFile(p, reason string) {
	for _, c := range canonicalForms(p) {
		r.files[c] = reason
	}
}

// canonicalForms returns p cleaned and, when it differs, its symlink-resolved
// form (or its resolved parent joined with its name, for a path that does not
// exist yet), so a caller's canonical path matches either.
func canonicalForms(p string) []string {
	p = filepath.Clean(p)
	out := []string{p}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		if r != p {
			out = append(out, r)
		}
	} else if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil && r != filepath.Dir(p) {
		out = append(out, filepath.Join(r, filepath.Base(p)))
	}
	return out
}

// foldsCase: the platform's usual filesystems (APFS, NTFS) compare names
// without case, so ~/.SSH is ~/.ssh there and a secret root must match it.
const foldsCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// within reports whether p is dir or below it (without case where the
// filesystem folds it).
func within(p, dir string) bool { return withinFold(p, dir, foldsCase) }

func withinFold(p, dir string, fold bool) bool {
	if len(p) < len(dir) || p[:len(dir)] != dir && !(fold && strings.EqualFold(p[:len(dir)], dir)) {
		return false
	}
	return len(p) == len(dir) || p[len(dir)] == filepath.Separator || strings.HasSuffix(dir, string(filepath.Separator))
}

// file is the reason an exact secret file (the active config, its .bak)
// is one, matched without case where the filesystem folds it.
func (r *roots) file(abs string) (string, bool) {
	if why, ok := r.files[abs]; ok || !foldsCase {
		return why, ok
	}
	for f, why := range r.files {
		if strings.EqualFold(f, abs) {
			return why, true
		}
	}
	return "", false
}

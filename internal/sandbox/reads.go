package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// Reads is a read allow-list, for a command running code the model wrote
// whose reads must leave the user's secrets out (the rlm kernel: docs/RLM.md).
// Landlock can only grant, never deny, so secrets are kept out by granting
// everything else: the roots are granted whole, except that beneath a root
// that holds an unreadable path only the entries around it are granted
// (carved, as writable roots are around protected paths). Paths are
// absolute; missing ones are dropped.
type Reads struct {
	Roots      []string `json:"roots"`
	Unreadable []string `json:"unreadable,omitempty"`
}

// systemReadRoots are the system's own directories: programs, libraries and
// their data, and /etc. /proc is not among them (another process's
// environment, the agent's included, holds API keys), nor /tmp, /home,
// /root, /run or /var.
var systemReadRoots = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store"}

// systemUnreadable are secrets under the system roots: password databases
// and host keys (readable where the command runs as root).
var systemUnreadable = []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssh", "/etc/ssl/private",
	"/etc/sudoers", "/etc/sudoers.d"}

// PrivateReads is the read allow-list of a runner of model-written code:
// the system's directories and roots (the workspace, an interpreter's own
// directories), with the user's dotfiles (every entry of userHome whose
// name starts with a dot: ~/.ssh, ~/.aws, ~/.config, …), the paths in
// hidden ($CODEWHALE_HOME, the config file) and the system's secrets left
// out wherever a root holds them.
func PrivateReads(userHome string, hidden []string, roots ...string) *Reads {
	r := &Reads{Roots: append(append([]string(nil), systemReadRoots...), roots...)}
	r.Unreadable = append(append(r.Unreadable, systemUnreadable...), hidden...)
	if userHome != "" && holds(r.Roots, userHome) {
		entries, _ := os.ReadDir(userHome)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				r.Unreadable = append(r.Unreadable, filepath.Join(userHome, e.Name()))
			}
		}
	}
	return r
}

// holds reports whether one of roots is p or an ancestor of it, as
// written or resolved.
func holds(roots []string, p string) bool {
	cp, _ := canonical(p)
	for _, r := range roots {
		cr, _ := canonical(r)
		if within(p, r) || cp != "" && cr != "" && within(cp, cr) {
			return true
		}
	}
	return false
}

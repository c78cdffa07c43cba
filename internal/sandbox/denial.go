package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Denial says that a failed command was most likely refused by the
// sandbox, and what was refused.
type Denial struct {
	// Path is the write that was refused ("" for the network).
	Path string `json:"path,omitempty"`
	// Reason is one of outside_writable_roots, protected_path,
	// workspace_root_entry, read_only, network.
	Reason string `json:"reason"`
	// Note is the model-readable explanation appended to the result.
	Note string `json:"note"`
}

// explainTail bounds how much output Explain reads: errors are reported
// at the end.
const explainTail = 64 << 10

var deniedMarkers = []string{"permission denied", "read-only file system", "operation not permitted", "eacces", "erofs", "eperm"}

// connectionMarkers are the network markers that say a connection (to a
// unix socket too) was refused rather than a file written.
var connectionMarkers = []string{"connect", "dial "}

var networkMarkers = []string{"connect", "network is unreachable", "resolve", "name or service not known",
	"name resolution", "socket", "dial ", "getaddrinfo"}

// Explain looks at a failed command's output (cwd is where it ran) for a
// refusal the policy explains: a "permission denied" or "read-only file
// system" naming a path the policy does not let it write, or, with the
// network blocked, a refused connection. It is a heuristic over text, so it
// answers only when the policy itself would refuse the named path; nil
// means nothing points at the sandbox.
func (s *Sandbox) Explain(output, cwd string) *Denial {
	if !s.enforcing() {
		return nil
	}
	if len(output) > explainTail {
		output = output[len(output)-explainTail:]
	}
	var l *layout
	netLine := false
	for _, line := range strings.Split(output, "\n") {
		low := strings.ToLower(line)
		if !containsAny(low, deniedMarkers) && !(containsAny(low, networkMarkers) && !s.policy.Network) {
			continue
		}
		// "dial unix /run/docker.sock: connect: permission denied" names a
		// connection, not a write: with the network denied it is the network's.
		connection := !s.policy.Network && containsAny(low, connectionMarkers)
		if containsAny(low, deniedMarkers) && !connection {
			if l == nil {
				r := s.policy.resolve()
				l = &r
			}
			for _, cand := range pathCandidates(line) {
				if !filepath.IsAbs(cand) {
					cand = filepath.Join(cwd, cand)
				}
				if d := s.refusal(filepath.Clean(cand), *l); d != nil {
					return d
				}
			}
		}
		if !s.policy.Network && containsAny(low, networkMarkers) {
			netLine = true
		}
	}
	if netLine {
		return s.networkDenial()
	}
	return nil
}

// refusal explains why the policy refuses a write to p, or nil.
func (s *Sandbox) refusal(p string, l layout) *Denial {
	if strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/") || !writableUnconfined(p) {
		return nil
	}
	c := canonicalPrefix(p)
	head := fmt.Sprintf("The sandbox (%s, %s) refused a write to %s: ", s.policy.Mode, mechanismFor(s.caps()), p)
	switch {
	case s.policy.Mode == ReadOnly:
		return &Denial{Path: p, Reason: "read_only", Note: head + "the sandbox is read-only in this session (Plan mode " +
			"or sandbox_mode = \"read-only\"), so no command may write files."}
	case under(c, l.rwInRO):
		return nil
	case under(c, l.ro):
		return &Denial{Path: p, Reason: "protected_path", Note: head + protectedWhy(c, s.policy)}
	case !under(c, l.rw) && missingCache(p, c, s.policy.Caches) != "":
		m := missingCache(p, c, s.policy.Caches)
		return &Denial{Path: p, Reason: "outside_writable_roots", Note: head + "it is on the way to the build cache " + m +
			", which did not exist when the command started: only existing caches are writable, and a sandboxed " +
			"command does not create one. Ask the user to create " + m + " (or to run the tool once outside " +
			"codewhale), then run the command again."}
	case !under(c, l.rw):
		return &Denial{Path: p, Reason: "outside_writable_roots", Note: head + "it is outside the writable roots (" +
			strings.Join(l.rw, ", ") + "). Write inside the workspace instead, or ask the user to add the directory to " +
			"writable_roots in the [sandbox] configuration, or to approve running this command outside the sandbox."}
	case !s.namespaced(s.caps()) && len(l.ro) > 0 && carvedParent(c, l):
		return &Denial{Path: p, Reason: "workspace_root_entry", Note: head + "in this sandbox (Landlock without a " +
			"mount namespace) new entries cannot be created, removed or renamed directly in " + filepath.Dir(c) +
			", because that would also allow writing into its protected " + protectedBelow(filepath.Dir(c), l) +
			". Create the file with the File tool first (the command may then write to it), or work in a subdirectory."}
	}
	return nil
}

// missingCache is the policy's build cache that does not exist and holds
// the refused path (as written, p, or resolved, c), or lies beneath it when
// p does not exist (a tool creating the cache fails on its first missing
// ancestor), or "".
func missingCache(p, c string, caches []string) string {
	_, err := os.Lstat(p)
	creating := err != nil // an existing ancestor (rm -rf ~) is not on the way to a cache
	for _, m := range caches {
		if _, ok := canonical(m); ok {
			continue
		}
		if within(p, m) || within(c, m) || creating && (within(m, p) || within(m, c)) {
			return m
		}
	}
	return ""
}

func protectedWhy(c string, p Policy) string {
	git := filepath.Join(p.Workspace, ".git")
	switch {
	case within(c, filepath.Join(p.Workspace, ".codewhale")):
		return ".codewhale/ holds codewhale's project configuration and is never writable by a sandboxed command."
	case within(c, filepath.Join(git, "hooks")) || within(c, filepath.Join(git, "config")):
		return "the repository's hooks and config can make git run programs, so they are never writable by a " +
			"sandboxed command."
	case within(c, git) || strings.Contains(c, string(filepath.Separator)+".git"):
		return "the workspace's .git is read-only inside the sandbox, so git commands that change the repository " +
			"(add, commit, checkout, stash, branch) cannot run here. Inspect the repository with the Git tool and ask " +
			"the user to commit, or to approve running this command outside the sandbox."
	}
	return "codewhale's own configuration, sessions and keys are never writable by a sandboxed command."
}

// carvedParent reports whether c's parent is a directory that carving left
// without a grant: a writable root (or a directory below one) on the way to
// a protected path.
func carvedParent(c string, l layout) bool {
	parent := filepath.Dir(c)
	return under(parent, l.rw) && hasBeneath(parent, l.ro) && !contains(l.ro, c)
}

func protectedBelow(dir string, l layout) string {
	for _, p := range l.ro {
		if within(p, dir) {
			return filepath.Base(p)
		}
	}
	return "paths"
}

func (s *Sandbox) networkDenial() *Denial {
	st := s.Status()
	return &Denial{Reason: "network", Note: "The sandbox blocks network access in this session ([network] default = " +
		"\"deny\", read-only sandbox, or Plan mode; " + st.Network + "), which most likely refused this command's " +
		"connection. Work offline, or ask the user to allow network access or to approve running this command outside " +
		"the sandbox."}
}

// pathCandidates are the places an error line names a path, most likely
// first: quoted strings, then the word just before the refusal marker
// ("cannot create X: Permission denied", "open X: permission denied"),
// then other path-like words from the end. A leading "prog:" is the program
// reporting, not the path.
func pathCandidates(line string) []string {
	var out []string
	for _, q := range [][2]string{{"'", "'"}, {"\u2018", "\u2019"}, {"\"", "\""}, {"`", "'"}} {
		rest := line
		for {
			i := strings.Index(rest, q[0])
			if i < 0 {
				break
			}
			rest = rest[i+len(q[0]):]
			j := strings.Index(rest, q[1])
			if j < 0 {
				break
			}
			out = append(out, rest[:j])
			rest = rest[j+len(q[1]):]
		}
	}
	fields := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' })
	if len(fields) > 0 && strings.HasSuffix(fields[0], ":") {
		fields = fields[1:]
	}
	low := strings.ToLower(line)
	for _, m := range deniedMarkers {
		if i := strings.Index(low, m); i > 0 {
			before := strings.Fields(strings.TrimRight(line[:i], ": "))
			if len(before) > 0 {
				if f := strings.Trim(before[len(before)-1], ":;()[]'\"`\u2018\u2019"); strings.ContainsAny(f, "/.") {
					out = append(out, f)
				}
			}
			break
		}
	}
	for i := len(fields) - 1; i >= 0; i-- {
		f := strings.Trim(fields[i], ":;()[]'\"`\u2018\u2019")
		if strings.ContainsAny(f, "/.") && f != "." && f != ".." && !strings.HasSuffix(f, "...") {
			out = append(out, f)
		}
	}
	return out
}

// canonicalPrefix resolves the symlinks of p's deepest existing ancestor.
func canonicalPrefix(p string) string {
	if c, ok := canonical(p); ok {
		return c
	}
	dir := filepath.Dir(p)
	if dir == p {
		return p
	}
	return filepath.Join(canonicalPrefix(dir), filepath.Base(p))
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

package shellpolicy

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/secrets"
)

// maxGlob bounds how many matches of one glob argument are checked, and
// maxLstat how many arguments of one command line are looked up as
// symlinks: the check must stay cheap beside the process it guards.
const (
	maxGlob  = 64
	maxLstat = 32
)

// pathArgs checks every argument that can name a path against the
// credential guard (reads and writes of secrets need explicit approval,
// whatever the verb) and, for commands that may write, against the
// protected paths.
//
// A program's own writing options and operands (sort -o FILE, uniq IN
// OUT, curl -oFILE, wget -e output_document=FILE …) name files it writes
// even when it can be a reader, so those files are checked as a
// redirect's target is: a protected one needs explicit approval.
func (c *classifier) pathArgs(args []value, write bool) {
	for _, a := range args {
		c.pathArg(a, write)
	}
	if len(args) == 0 || strings.Contains(args[0].s, "=") {
		return // no program: the assignments before one
	}
	name := path.Base(args[0].s)
	for _, f := range readerOutputs(name, args[1:]) {
		c.writtenFile(f)
	}
	c.attachedValues(name, args[1:])
}

// writtenFile checks a file a program writes as a redirect to it is
// checked (writeTarget); a name pathArg would take for an option or an
// assignment (-x, a=b, @x) is one here.
func (c *classifier) writtenFile(v value) {
	if s := v.s; s != "" && !path.IsAbs(s) && (strings.ContainsAny(s[:1], "-@") || strings.Contains(s, "=")) {
		v.s = "./" + s
	}
	c.writeTarget(v)
}

// attachedValues checks the values curl and wget take attached to a short
// option (curl -o.git/x, -sSLoFILE, wget -OFILE, -P.git/hooks) as their
// separate words are checked: as files they may write. wget -e and
// --execute run a wgetrc command (output_document = FILE, logfile=FILE,
// dir_prefix=DIR): its value is a file or directory it may write.
// curl takes no --opt=VALUE (it refuses one as unknown).
func (c *classifier) attachedValues(name string, args []value) {
	var short string
	var long []string
	switch name {
	case "curl":
		short = "EKCbcdDFPHhmoUQreXYytzTuAwx" // curl --help all: the short options with a value
	case "wget":
		short = "eoaiBtOTwQPUlARDIX" // wget --help
		long = []string{"--execute"}
	default:
		return
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--":
			return
		case strings.HasPrefix(a.s, "--"):
			opt, v, attached := strings.Cut(a.s, "=")
			if !takesValue(opt, long...) {
				continue
			}
			if !attached {
				if i+1 >= len(args) {
					return
				}
				i++
				v = args[i].s
			}
			c.wgetrc(a, v)
		case len(a.s) > 1 && a.s[0] == '-':
			for j := 1; j < len(a.s); j++ {
				if strings.IndexByte(short, a.s[j]) < 0 {
					continue
				}
				v := a
				switch {
				case j+1 < len(a.s):
					v.s = a.s[j+1:]
					c.pathArg(v, true) // a separate word is checked by pathArgs
				case i+1 < len(args):
					i++
					v = args[i]
				default:
					return
				}
				if name == "wget" && a.s[j] == 'e' {
					c.wgetrc(v, v.s)
				}
				break
			}
		}
	}
}

// wgetrc checks the value of the wgetrc command cmd (name = value, spaces
// allowed around the =) as a file wget may write.
func (c *classifier) wgetrc(v value, cmd string) {
	_, val, ok := strings.Cut(cmd, "=")
	if val = strings.TrimSpace(val); ok && val != "" {
		v.s = val
		c.pathArg(v, true)
	}
}

func (c *classifier) pathArg(v value, write bool) {
	s := v.s
	if i := strings.IndexByte(s, '='); i >= 0 && (strings.HasPrefix(s, "-") || !strings.ContainsAny(s[:i], "/.~")) {
		s = s[i+1:] // --file=/x, of=/x, KEY=/x
	} else if strings.HasPrefix(s, "-") {
		return
	}
	s = strings.TrimPrefix(s, "@") // curl -d @file
	if p, ok := fileURLPath(s); ok {
		c.fileURL(p, s)
		return
	}
	if s == "" || len(s) > 4096 || strings.ContainsAny(s, "\n\x00") || strings.Contains(s, "://") {
		return
	}
	var buf [4]string
	for _, abs := range c.candidates(buf[:0], s, v.glob) {
		if strings.HasPrefix(abs, "/proc/") && path.Base(abs) == "environ" {
			c.flag(Explicit, "reads a process's environment, which holds secrets ("+s+")")
		}
		if reason, ok := c.secretPath(abs); ok {
			c.flag(Explicit, "touches a secret: "+reason+" ("+s+")")
		}
		if !write {
			continue
		}
		if reason, ok := c.protectedWrite(abs); ok {
			c.flag(Explicit, "changes a protected path: "+reason+" ("+s+")")
		}
	}
}

func (c *classifier) secretPath(abs string) (string, bool) {
	if c.env.SecretPath != nil {
		return c.env.SecretPath(abs)
	}
	return secrets.IsSecretPath(abs)
}

func (c *classifier) protectedWrite(abs string) (string, bool) {
	if c.env.ProtectedWrite != nil {
		return c.env.ProtectedWrite(abs, c.env.Workspace)
	}
	if c.env.Workspace == "" {
		return "", false
	}
	return secrets.ProtectedWrite(abs, c.env.Workspace)
}

// candidates are the absolute paths an argument may name: itself, a
// symlink's target, a glob's matches and the glob with its wildcards cut
// (.env* names .env), appended to out.
func (c *classifier) candidates(out []string, s string, glob bool) []string {
	abs := c.absPath(s)
	out = append(out, abs)
	if glob {
		trimmed := strings.TrimRight(abs, "*?[]")
		if trimmed != abs && trimmed != "" && !strings.HasSuffix(trimmed, "/") {
			out = append(out, trimmed)
		}
		if filepath.IsAbs(abs) {
			matches, _ := filepath.Glob(abs)
			if len(matches) > maxGlob {
				matches = matches[:maxGlob]
			}
			out = append(out, matches...)
		}
	}
	n := len(out)
	for _, p := range out[:n] {
		if c.lstats >= maxLstat || !path.IsAbs(p) {
			break
		}
		c.lstats++
		if isSymlink(p) {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				out = append(out, real)
			}
		}
	}
	return out
}

// absPath resolves s against the classifier's directory; a relative path
// stays relative when the directory is unknown.
func (c *classifier) absPath(s string) string {
	if !path.IsAbs(s) && c.cwd != "" {
		if cleanPath(s) && c.cleanCwd() {
			return c.cwd + "/" + s // what path.Join makes of clean parts, in one allocation
		}
		s = path.Join(c.cwd, s)
	}
	return path.Clean(s)
}

// cleanCwd reports cleanPath(c.cwd), remembered for the directory last
// asked about: every argument of a command line asks.
func (c *classifier) cleanCwd() bool {
	if c.cwd != c.cleanDir && cleanPath(c.cwd) {
		c.cleanDir = c.cwd
	}
	return c.cwd != "" && c.cwd == c.cleanDir
}

// cleanPath reports a path path.Clean leaves as it is, other than "/" and
// "": no empty, "." or ".." element and no trailing slash.
func cleanPath(p string) bool {
	if p == "" || p == "/" || p[len(p)-1] == '/' {
		return false
	}
	start := 0
	if p[0] == '/' {
		start = 1
	}
	for i := start; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if e := p[start:i]; e == "" || e == "." || e == ".." {
			return false
		}
		start = i + 1
	}
	return true
}

// catastrophic reports a target whose deletion is a catastrophe: the
// filesystem root, a top-level system directory, /usr/*, another user's
// home (~user), the home directory or one of its ancestors, with or without
// a trailing /* or *, directly or through a symlink.
func (c *classifier) catastrophic(s string) bool {
	if s == "" {
		return false
	}
	if strings.HasPrefix(s, "~") && !strings.Contains(s, "/") {
		return true // ~ unexpanded, or ~user
	}
	p := s
	if path.Base(p) == ".*" {
		p = path.Dir(p) + "/.." // older shells match .. too
	}
	for {
		t := strings.TrimSuffix(strings.TrimSuffix(p, "*"), "/")
		if t == p {
			break
		}
		p = t
	}
	switch {
	case p == "" && s[0] == '/':
		return true
	case p == "":
		p = "." // * in the current directory
	case !path.IsAbs(p) && c.cwd == "":
		return false
	}
	abs := c.absPath(p)
	if c.catastrophicAbs(abs) {
		return true
	}
	if target, ok := c.links[abs]; ok && c.catastrophicAbs(target) {
		return true
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		return c.catastrophicAbs(real)
	}
	return false
}

func (c *classifier) catastrophicAbs(p string) bool {
	if p == "" {
		return false
	}
	p = path.Clean(p)
	if p == "/" || path.Dir(p) == "/" && systemDir(path.Base(p)) || path.Dir(p) == "/usr" {
		return true
	}
	home := c.env.Home
	return home != "" && (p == home || strings.HasPrefix(home, p+"/"))
}

func systemDir(name string) bool {
	switch name {
	case "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "opt", "proc", "root", "sbin",
		"srv", "sys", "usr", "var", "mnt", "media", "snap", "Users", "System", "Library", "Applications", "private",
		"Volumes":
		return true
	}
	return false
}

// containsWorkspace reports the workspace itself or a directory above it.
func (c *classifier) containsWorkspace(abs string) bool {
	ws := c.env.Workspace
	return ws != "" && path.IsAbs(abs) && (abs == ws || strings.HasPrefix(ws, abs+"/"))
}

// treeHoldsSecrets reports a directory whose recursive walk reaches the
// user's credentials: /, the home directory or one of its ancestors.
func (c *classifier) treeHoldsSecrets(abs string) bool {
	home := c.env.Home
	return abs == "/" || home != "" && (abs == home || strings.HasPrefix(home, abs+"/"))
}

// workspaceProgram reports whether the shell would find name through a PATH
// entry inside the workspace (an activated .venv/bin, direnv's bin, a
// relative entry such as ./node_modules/.bin, or an empty one, which means
// the current directory). A File patch can create an executable there, so
// such a program is the workspace's, like ./ls. The first executable on
// PATH decides, as for the shell; a builtin the shell runs instead only
// makes the verdict stricter.
func (c *classifier) workspaceProgram(name string) bool {
	ws := c.env.Workspace
	if ws == "" || c.env.Getenv == nil || name == "" {
		return false
	}
	// Only the entries up to the last one in the workspace can decide, so a
	// PATH without such an entry (the usual case) costs no lookup at all.
	dirs := filepath.SplitList(c.env.Getenv("PATH"))
	last := -1
	for i, dir := range dirs {
		if !path.IsAbs(dir) {
			if c.cwd == "" {
				return true // relative to a directory the script made unknown
			}
			dir = path.Join(c.cwd, dir)
		}
		dirs[i] = path.Clean(dir)
		if within(dirs[i], ws) {
			last = i
		}
	}
	for _, dir := range dirs[:last+1] {
		fi, err := os.Stat(path.Join(dir, name))
		if err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return within(dir, ws)
		}
	}
	return false
}

// pathWritten are the files a bare command name may run that this command
// line wrote: with PATH as the command line set it (PATH=.:$PATH;
// x.sh, or PATH=… before the command) when it can be seen, the entry that
// holds the name (a file on disk in the workspace too); otherwise any file
// the command line wrote under that name, since PATH (the person's, or one
// set to a value the classifier cannot see) may lead there.
func (c *classifier) pathWritten(name string) []string {
	var dirs string
	if v, ok := c.prefix["PATH"]; ok && v.known {
		dirs = v.s
	} else if s, ok := c.vars["PATH"]; ok {
		dirs = s
	} else {
		var out []string
		for p := range c.files {
			if path.Base(p) == name && path.IsAbs(p) {
				out = append(out, p)
			}
		}
		slices.Sort(out)
		return out
	}
	for _, dir := range strings.Split(dirs, ":") {
		if dir == "" {
			dir = "."
		}
		abs := c.absPath(path.Join(dir, name))
		if !path.IsAbs(abs) {
			return nil
		}
		if _, ok := c.files[abs]; ok {
			return []string{abs}
		}
		if c.env.Workspace != "" && within(abs, c.env.Workspace) && fileExists(abs) {
			return []string{abs}
		}
	}
	return nil
}

func within(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

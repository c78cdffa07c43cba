package shellpolicy

import (
	"path"
	"strings"
)

// A script this command line wrote is judged by what it wrote, and one on
// disk by what it holds now (scanFile). Neither holds when a program run
// between may have changed the file: sed -i 's/…/rm -rf ~/' s.sh; sh s.sh,
// git checkout run.sh; ./run.sh, python3 -c 'open("s.sh","w")…'. The
// classifier notes the files every program that may write is given (its
// operands, a glob, the strings of inline code; any file at all when one
// is unknown), and running a noted file needs explicit approval.

// changes are the files programs earlier in the command line may have
// changed.
type changes struct {
	paths []string // files or directories (everything below one counts)
	globs []string
	any   bool // a program was given a file name the classifier cannot see
}

// leavesContent reports programs that change no file's content beyond
// what the classifier records for them (tee, cp, curl -o … in effects).
func leavesContent(name string) bool {
	switch name {
	case "chmod", "chown", "chgrp", "touch", "mkdir", "rm", "rmdir", "cd", "pushd", "popd", "echo", "printf",
		"true", "false", "test", "[", "sleep", "wait", "export", "unset", "shift", "exit", "return", "type",
		"which", "tee", "cp", "mv", "install", "dd", "curl", "wget", "ln", "read", "mapfile", "readarray":
		return true
	}
	return false
}

// mayChange notes the files a program that may write is given.
func (c *classifier) mayChange(name string, args []value) {
	if leavesContent(name) {
		return
	}
	for _, a := range args {
		s := a.s
		if i := strings.IndexByte(s, '='); i >= 0 && strings.HasPrefix(s, "-") {
			s = s[i+1:] // --in-place=x, --file=x
		} else if strings.HasPrefix(s, "-") && a.known {
			continue
		}
		v := a
		v.s = s
		c.changed(v)
	}
}

// changed notes one file a program may have changed.
func (c *classifier) changed(v value) {
	switch {
	case !v.known:
		c.changes.any = true
	case v.s == "" || strings.ContainsAny(v.s, " \t\n"):
	case v.glob:
		c.changes.globs = append(c.changes.globs, c.absPath(v.s))
	default:
		abs := c.absPath(v.s)
		c.changes.paths = append(c.changes.paths, abs)
		for p, w := range c.files {
			if within(p, abs) {
				c.files[p] = written{download: w.download}
			}
		}
	}
}

// mayHaveChanged reports a file on disk that an earlier program of the
// command line may have changed.
func (c *classifier) mayHaveChanged(abs string) bool {
	if c.changes.any {
		return true
	}
	for _, p := range c.changes.paths {
		if within(abs, p) {
			return true
		}
	}
	for _, g := range c.changes.globs {
		if ok, _ := path.Match(g, abs); ok {
			return true
		}
	}
	return false
}

// changedFile flags running a file on disk that an earlier program may
// have changed; it reports whether it did.
func (c *classifier) changedFile(abs, what string) bool {
	if !c.mayHaveChanged(abs) {
		return false
	}
	c.flag(Explicit, what+" runs a file an earlier part of this command line may have changed, so what it holds "+
		"then cannot be seen")
	return true
}

// lostFile flags running a relative path after the classifier lost track
// of the directory (cd "$X", popd of an older stack) when this command
// line wrote or changed files: which file runs cannot be seen.
func (c *classifier) lostFile(abs, what string) bool {
	if path.IsAbs(abs) || len(c.files) == 0 && len(c.changes.paths) == 0 && len(c.changes.globs) == 0 && !c.changes.any {
		return false
	}
	c.atLeast(Ordinary)
	c.flag(Explicit, what+" runs a file in a directory the classifier lost track of, after this command line "+
		"wrote files")
	return true
}

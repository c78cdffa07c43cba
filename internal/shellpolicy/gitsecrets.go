package shellpolicy

import (
	"os"
	"path"
	"strings"
)

// A secret file committed to the repository (.env, a private key) is as
// secret in its history as on disk: cat .env needs explicit approval, so a
// git that prints the blob does too. gitSecrets flags the forms that print
// file content: an explicit REV:PATH naming a secret always; a whole commit,
// diff, grep or archive when the repository tracks a secret file its
// pathspecs (if any) reach. Names, messages and counts are not content.
//
// The repository is the one git would use: after -C, --git-dir and
// --work-tree (gitRepo), with pathspecs relative to the directory -C
// reached.
func (c *classifier) gitSecrets(g gitGlobals, sub string, args []value) {
	saved := c.cwd
	c.cwd = g.cwd
	defer func() { c.cwd = saved }()
	switch sub {
	case "show", "diff", "log", "whatchanged", "reflog", "stash", "cat-file", "grep", "archive", "blame", "annotate":
	default:
		return
	}
	revs, specs := c.gitOperands(sub, args)
	narrow := len(revs) > 0 && len(specs) == 0
	for _, r := range revs {
		p, ok := revPath(r.s)
		if !ok {
			narrow = false
			continue
		}
		if reason, ok := c.secretPath(c.absPath(p)); ok {
			c.flag(Explicit, "git "+sub+" would print a committed secret file: "+reason+" ("+r.s+")")
		}
	}
	if !gitPrintsContent(sub, args) || narrow && (sub == "show" || sub == "cat-file") {
		return
	}
	r, ok := c.gitRepo(g)
	if !ok {
		return
	}
	whole := len(specs) == 0 || has(args, "-L") // log -L names its file inside the flag
	for _, s := range c.trackedSecrets(r) {
		if whole || c.specsReach(specs, r.top, s.path) {
			c.flag(Explicit, "git "+sub+" would print a committed secret file: the repository tracks "+s.path+" ("+s.reason+")")
			return
		}
	}
	if !readsHistory(sub, revs) {
		return
	}
	past, complete := c.historySecrets(r)
	if !complete {
		c.flag(Explicit, "git "+sub+" may print a secret file from the repository's history, which is too long to check in time")
		return
	}
	for _, s := range past {
		if whole || c.specsReach(specs, r.top, s.path) {
			c.flag(Explicit, "git "+sub+" would print a secret file from the repository's history: an older commit added "+
				s.path+" ("+s.reason+")")
			return
		}
	}
}

// readsHistory reports a form that can print content from commits other
// than the checked-out tree: diff, grep and blame read the work tree and
// the index unless given a revision.
func readsHistory(sub string, revs []value) bool {
	switch sub {
	case "diff", "grep", "blame", "annotate":
		return len(revs) > 0
	}
	return true
}

// gitOperands splits git sub's operands into revisions (or objects) and
// pathspecs: everything after "--" is a pathspec, and before it an operand
// that exists as a file, as git itself decides. grep's first operand is its
// pattern unless -e or -f gave one; cat-file's type word is neither.
func (c *classifier) gitOperands(sub string, args []value) (revs, specs []value) {
	dash := false
	skipped := !(sub == "grep" && !has(args, "-e", "-f") || sub == "cat-file" && len(args) > 0 && catFileType(args))
	for _, a := range args {
		switch {
		case !dash && a.s == "--":
			dash = true
		case !dash && strings.HasPrefix(a.s, "-") && a.s != "-":
		case !skipped:
			skipped = true
		case dash || c.exists(a.s):
			specs = append(specs, a)
		default:
			revs = append(revs, a)
		}
	}
	return revs, specs
}

func catFileType(args []value) bool {
	for _, a := range args {
		if !strings.HasPrefix(a.s, "-") {
			switch a.s {
			case "blob", "tree", "commit", "tag":
				return true
			}
			return false
		}
	}
	return false
}

// exists reports an operand that names an existing file or directory.
func (c *classifier) exists(s string) bool {
	abs := c.absPath(s)
	if !path.IsAbs(abs) {
		return false
	}
	_, err := os.Lstat(abs)
	return err == nil
}

// revPath is the path of a REV:PATH, :PATH or :N:PATH object name.
func revPath(s string) (string, bool) {
	if strings.Contains(s, "://") {
		return "", false
	}
	_, p, ok := strings.Cut(s, ":")
	if !ok || p == "" || strings.HasPrefix(p, "/") && strings.HasPrefix(s, ":/") {
		return "", false // :/text searches commit messages
	}
	if len(p) > 2 && p[0] >= '0' && p[0] <= '3' && p[1] == ':' && strings.HasPrefix(s, ":") {
		p = p[2:]
	}
	return p, true
}

// gitPrintsContent reports a form that prints file content.
func gitPrintsContent(sub string, args []value) bool {
	patch := has(args, "-p", "-u", "--patch", "-U", "--unified", "--cc", "--word-diff", "--color-words",
		"--patch-with-stat", "--patch-with-raw", "-L")
	summary := has(args, "-s", "--no-patch", "--stat", "--numstat", "--shortstat", "--name-only", "--name-status",
		"--summary", "--dirstat", "--raw", "--quiet", "--exit-code")
	switch sub {
	case "show", "diff":
		return patch || !summary
	case "log", "whatchanged", "reflog":
		return patch || has(args, "-c")
	case "stash":
		return len(args) > 0 && args[0].s == "show" && patch
	case "cat-file":
		return has(args, "-p", "--batch", "--batch-command", "--filters", "--textconv") || catFileType(args)
	case "grep":
		return !has(args, "-l", "-L", "--files-with-matches", "--files-without-match", "--name-only", "-c", "--count",
			"-q", "--quiet")
	case "archive", "blame", "annotate":
		return true
	}
	return false
}

// specsReach reports whether pathspecs reach the repository path rel: a
// magic or glob pathspec may reach anything; a plain one reaches itself and
// what is below it.
func (c *classifier) specsReach(specs []value, top, rel string) bool {
	for _, s := range specs {
		if strings.HasPrefix(s.s, ":") || strings.ContainsAny(s.s, "*?[") || !s.literal {
			return true
		}
		abs := c.absPath(s.s)
		if !path.IsAbs(abs) {
			return true
		}
		if abs == top {
			return true
		}
		if r, ok := strings.CutPrefix(abs, top+"/"); ok && (rel == r || strings.HasPrefix(rel, r+"/")) {
			return true
		}
	}
	return false
}

package shellpolicy

import (
	"path"
	"strings"
	"sync"
)

// git classifies a git command: global options first (-c can make git run
// any command), then the subcommand.
func (c *classifier) git(args []value) {
	harmless := true
	g := c.gitGlobalsAt(c.cwd)
	for len(args) > 0 && strings.HasPrefix(args[0].s, "-") {
		v0, a := args[0], args[0].s
		args = args[1:]
		switch {
		case a == "-c" && len(args) > 0:
			c.gitConfigValue(args[0].s, "git -c")
			harmless = false
			args = args[1:]
		case strings.HasPrefix(a, "--config-env"):
			c.flag(Explicit, "sets git configuration from the environment (git --config-env), which can make git run a command")
			if a == "--config-env" && len(args) > 0 {
				args = args[1:]
			}
		case a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--exec-path" ||
			a == "--super-prefix":
			harmless = false
			if len(args) > 0 {
				g.option(c, a, args[0])
				args = args[1:]
			}
		case a == "--no-pager" || a == "-P" || a == "--no-optional-locks" || a == "--literal-pathspecs" ||
			a == "--no-replace-objects" || a == "--glob-pathspecs" || a == "--icase-pathspecs" || a == "--noglob-pathspecs":
		default:
			if name, v, ok := strings.Cut(a, "="); ok && (name == "--git-dir" || name == "--work-tree") {
				g.option(c, name, value{s: v, known: v0.known, literal: v0.literal})
			}
			harmless = false
		}
	}
	if len(args) == 0 {
		c.atLeast(Ordinary)
		return
	}
	sub, rest := args[0].s, args[1:]
	if r := gitDestructive(sub, rest); r != "" {
		c.flag(Explicit, r)
	}
	switch sub {
	case "config":
		c.gitConfig(rest)
	case "submodule":
		if len(rest) > 0 && rest[0].s == "foreach" {
			c.nested(joined(rest[1:]), "git submodule foreach")
		}
	case "rebase":
		for i, a := range rest {
			if (a.s == "-x" || a.s == "--exec") && i+1 < len(rest) {
				c.nested(rest[i+1].s, "git rebase --exec")
			}
		}
	case "bisect":
		if len(rest) > 1 && rest[0].s == "run" {
			c.command(rest[1:], nil)
		}
	}
	c.gitSecrets(g, sub, rest)
	if _, reads := gitInspect()[sub]; !reads {
		c.mayChange("git", rest) // git checkout run.sh, git apply x.patch …
	}
	if !harmless || !c.readOnlyGit(sub, rest) {
		c.atLeast(Ordinary)
	}
}

// gitDestructive is the reason a destructive-but-legitimate git command
// needs explicit approval, or "".
func gitDestructive(sub string, args []value) string {
	ops := operands(args)
	switch sub {
	case "push":
		switch {
		case has(args, "-f", "--force", "--force-with-lease", "--force-if-includes") || plusRefspec(ops):
			return "force-pushes, which can overwrite history on the remote (git push --force)"
		case has(args, "--mirror"):
			return "mirrors the repository onto the remote, deleting what the local side lacks (git push --mirror)"
		case has(args, "-d", "--delete", "--prune") || deleteRefspec(ops):
			return "deletes branches or tags on the remote (git push --delete)"
		}
	case "clean":
		if has(args, "-f", "--force") {
			return "deletes untracked files, which git cannot restore (git clean -f…)"
		}
	case "reset":
		if has(args, "--hard", "--merge", "--keep") {
			return "discards uncommitted changes (git reset --hard)"
		}
	case "checkout", "restore":
		if has(args, "-f", "--force") && sub == "checkout" || dotOperand(ops) && !has(args, "--staged", "-S") {
			return "discards uncommitted changes to every file (git " + sub + " .)"
		}
	case "stash":
		if len(ops) > 0 && (ops[0].s == "drop" || ops[0].s == "clear") {
			return "deletes stashed changes (git stash " + ops[0].s + ")"
		}
	case "branch":
		if has(args, "-D") || has(args, "-d", "--delete") && has(args, "-f", "--force") {
			return "deletes a branch that may hold unmerged commits (git branch -D)"
		}
	case "reflog":
		if len(ops) > 0 && (ops[0].s == "expire" || ops[0].s == "delete") {
			return "deletes reflog entries, the record that recovers lost commits (git reflog " + ops[0].s + ")"
		}
	case "gc", "prune":
		if has(args, "--prune=now", "--prune=all") || sub == "prune" {
			return "deletes unreachable commits now, which the reflog could still recover (git " + sub + ")"
		}
	case "filter-branch", "filter-repo":
		return "rewrites the repository's whole history (git " + sub + ")"
	case "update-ref":
		if has(args, "-d") {
			return "deletes a ref (git update-ref -d)"
		}
	}
	return ""
}

func plusRefspec(ops []value) bool {
	for i, o := range ops {
		if i > 0 && strings.HasPrefix(o.s, "+") {
			return true
		}
	}
	return false
}

func deleteRefspec(ops []value) bool {
	for i, o := range ops {
		if i > 0 && strings.HasPrefix(o.s, ":") && len(o.s) > 1 {
			return true
		}
	}
	return false
}

func dotOperand(ops []value) bool {
	for _, o := range ops {
		if o.s == "." || o.s == ":/" || o.s == "*" {
			return true
		}
	}
	return false
}

// gitConfig: writing a key that makes git run a command needs explicit
// approval; any other write is ordinary; reads are read-only.
func (c *classifier) gitConfig(args []value) {
	ops := operands(args)
	writes := len(ops) >= 2 || has(args, "--unset", "--unset-all", "--add", "--replace-all", "--edit", "-e",
		"--rename-section", "--remove-section")
	if writes && len(ops) > 0 && gitCommandKey(ops[0].s) {
		value := ""
		if len(ops) > 1 {
			value = ops[1].s
		}
		c.gitConfigValue(ops[0].s+"="+value, "git config")
	}
	if has(args, "--edit", "-e") {
		c.atLeast(Ordinary)
	}
}

// gitConfigValue classifies one key=value git is told to use.
func (c *classifier) gitConfigValue(kv, how string) {
	key, val, _ := strings.Cut(kv, "=")
	if !gitCommandKey(key) || plainPager(key, val) {
		return
	}
	c.flag(Explicit, how+" "+key+" makes git run a command")
	if strings.HasPrefix(strings.ToLower(key), "alias.") {
		if !strings.HasPrefix(val, "!") {
			return
		}
		val = val[1:]
	}
	if val != "" {
		c.nested(val, how+" "+key)
	}
}

// plainPager: a pager of cat, less or more (or none) runs nothing else.
func plainPager(key, val string) bool {
	k := strings.ToLower(key)
	return (k == "core.pager" || strings.HasPrefix(k, "pager.")) &&
		(val == "" || val == "cat" || val == "less" || val == "more" || val == "false" || val == "true")
}

// gitCommandKey reports a configuration key whose value git runs as a
// command or that widens what git trusts.
func gitCommandKey(key string) bool {
	k := strings.ToLower(key)
	switch k {
	case "core.pager", "core.fsmonitor", "core.sshcommand", "core.hookspath", "core.editor", "core.askpass",
		"core.gitproxy", "core.alternaterefscommand", "diff.external", "credential.helper", "gpg.program",
		"sequence.editor", "uploadpack.packobjectshook", "safe.directory", "include.path", "ssh.variant",
		"interactive.difffilter", "web.browser", "sendemail.smtpserver", "sendemail.tocmd", "sendemail.cccmd",
		"core.attributesfile", "core.excludesfile":
		return true
	}
	for _, p := range []string{"alias.", "pager.", "includeif.", "protocol.", "filter.", "instaweb."} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	for _, s := range []string{".textconv", ".command", ".cmd", ".driver", ".helper", ".program", ".uploadpack",
		".receivepack", ".proxy", ".clean", ".smudge", ".process", ".insteadof", ".pushinsteadof"} {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}

var gitInspect = sync.OnceValue(func() map[string]func([]value) bool {
	return map[string]func([]value) bool{
		"status": nil, "diff": nil, "log": nil, "show": nil, "blame": nil, "rev-parse": nil, "ls-files": nil,
		"ls-tree": nil, "cat-file": nil, "describe": nil, "shortlog": nil, "rev-list": nil, "merge-base": nil,
		"show-ref": nil, "name-rev": nil, "for-each-ref": nil, "count-objects": nil, "version": nil,
		"help":   onlyFlags("-a", "--all", "-g", "--guides"), // git help CMD runs man or a browser
		"grep":   func(a []value) bool { return !has(a, "-O", "--open-files-in-pager") },
		"branch": onlyFlags("-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "--show-current", "--no-color", "--color"),
		"tag":    onlyFlags("-l", "--list", "-n"),
		"remote": onlyFlags("-v", "--verbose"),
		"config": func(a []value) bool {
			return len(a) > 0 && onlyFlags("--get", "--get-all", "--get-regexp", "--list", "-l")(a[:1])
		},
		"reflog":   func(a []value) bool { return len(a) == 0 || a[0].s == "show" || strings.HasPrefix(a[0].s, "-") },
		"stash":    func(a []value) bool { return len(a) > 0 && (a[0].s == "list" || a[0].s == "show") },
		"worktree": func(a []value) bool { return len(a) > 0 && a[0].s == "list" },
	}
})

// readOnlyGit admits inspection subcommands with literal arguments and no
// output file.
func (c *classifier) readOnlyGit(sub string, args []value) bool {
	rule, ok := gitInspect()[sub]
	if !ok || has(args, "--output", "--ext-diff") || c.implicitGitDir() {
		return false
	}
	for _, a := range args {
		if !a.literal {
			return false
		}
	}
	return rule == nil || rule(args)
}

// onlyFlags admits arguments that are exactly one of allowed; a bundle like
// -ad is refused because it could carry a mutating letter.
func onlyFlags(allowed ...string) func([]value) bool {
	return func(args []value) bool {
		for _, a := range args {
			if !valued(a.s, allowed...) {
				return false
			}
		}
		return true
	}
}

func joined(args []value) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.s
	}
	return strings.Join(parts, " ")
}

// implicitGitDir reports whether git started in the classifier's directory
// would use a repository whose configuration any File write can plant: a
// directory laid out as a git directory (HEAD, objects/, refs/) that git
// discovers as a bare repository before it reaches a .git entry. Only
// .git/** is a protected write, so such a directory's core.fsmonitor or
// diff.external would run on a "read-only" git status. A directory the
// script made unknown (cd "$X") counts too.
func (c *classifier) implicitGitDir() bool {
	if c.cwd == "" {
		return c.env.Workspace != ""
	}
	if c.gitDirs == nil {
		c.gitDirs = map[string]bool{}
	}
	// The answer for a directory is its nearest ancestor's that has a .git
	// entry or a git directory's layout; each directory walked gets it, so
	// later gits of the command line (cd sub && git …) stop where an
	// earlier one walked.
	var walked []string
	found := false
	for d := c.cwd; path.IsAbs(d); d = path.Dir(d) {
		if known, ok := c.gitDirs[d]; ok {
			found = known
			break
		}
		walked = append(walked, d)
		if exists, _ := lstatKind(path.Join(d, ".git")); exists {
			break
		}
		if gitDirLayout(d) {
			found = true
			break
		}
		if d == "/" {
			break
		}
	}
	for _, d := range walked {
		c.gitDirs[d] = found
	}
	return found
}

// gitDirLayout is git's own test of a git directory: a HEAD file with
// objects/ and refs/ beside it.
func gitDirLayout(d string) bool {
	for _, e := range [...]struct {
		name string
		dir  bool
	}{{"HEAD", false}, {"objects", true}, {"refs", true}} {
		if exists, dir := statKind(path.Join(d, e.name)); !exists || dir != e.dir {
			return false
		}
	}
	return true
}

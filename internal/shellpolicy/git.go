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
			c.gitConfigArg(args[0], "git -c")
			harmless = false
			args = args[1:]
		case strings.HasPrefix(a, "--config-env"):
			c.flag(Explicit, "sets git configuration from the environment (git --config-env), which can make git run a command")
			if a == "--config-env" && len(args) > 0 {
				args = args[1:]
			}
		case a == "--exec-path":
			return // git prints its exec path and exits, whatever follows
		case strings.HasPrefix(a, "--exec-path="):
			c.flag(Explicit, "makes git take its commands from "+strings.TrimPrefix(v0.text(), "--exec-path=")+
				" (git --exec-path=DIR), which runs the programs there")
			harmless = false
		case a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--super-prefix":
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
	c.gitConfigFiles()
	switch sub {
	case "config":
		c.gitConfig(rest)
	case "bisect":
		if len(rest) > 1 && rest[0].s == "run" {
			c.command(rest[1:], nil)
		}
	default:
		c.gitPrograms(sub, rest)
	}
	c.gitSecrets(g, sub, rest)
	if _, reads := gitInspect()[sub]; !reads {
		c.mayChange("git", rest) // git checkout run.sh, git apply x.patch …
	}
	if !harmless || !c.readOnlyGit(sub, rest) {
		c.atLeast(Ordinary)
	}
}

// gitProgram is an option of a git subcommand whose value is a command
// line git runs (through the shell): long names (abbreviations count, as
// parse-options accepts them), a short letter (0 for none), the
// subcommand's other short options that take a value (what follows one of
// them in a bundle is its value), and whether the value is optional, so
// given only attached (grep -O).
type gitProgram struct {
	long      []string
	short     byte
	valShorts string
	optional  bool
}

var gitPrograms = map[string][]gitProgram{
	"clone":      {{long: []string{"--upload-pack"}, short: 'u', valShorts: "obcj"}},
	"fetch":      {{long: []string{"--upload-pack"}, valShorts: "oj"}},
	"pull":       {{long: []string{"--upload-pack"}, valShorts: "ojsSX"}},
	"ls-remote":  {{long: []string{"--upload-pack", "--exec"}, short: 'u', valShorts: "o"}},
	"fetch-pack": {{long: []string{"--upload-pack", "--exec"}}},
	"send-pack":  {{long: []string{"--receive-pack", "--exec"}}},
	"push":       {{long: []string{"--receive-pack", "--exec"}, valShorts: "o"}},
	"archive":    {{long: []string{"--exec"}, valShorts: "o"}},
	"difftool":   {{long: []string{"--extcmd"}, short: 'x', valShorts: "t"}},
	"grep":       {{long: []string{"--open-files-in-pager"}, short: 'O', valShorts: "efmABC", optional: true}},
	"rebase":     {{long: []string{"--exec"}, short: 'x', valShorts: "sXCS"}},
	"send-email": {{long: []string{"--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd"}}},
}

// gitPrograms classifies the programs git sub's arguments make it run.
func (c *classifier) gitPrograms(sub string, rest []value) {
	for _, p := range gitPrograms[sub] {
		for _, v := range gitOptionValues(rest, p) {
			c.commandLine(v, "git "+sub+" "+p.long[0])
		}
	}
	ops := operands(rest)
	switch sub {
	case "clone":
		for _, v := range gitOptionValues(rest, gitProgram{long: []string{"--config"}, short: 'c', valShorts: "obuj"}) {
			c.gitConfigArg(v, "git clone -c")
		}
		fallthrough
	case "init":
		for _, v := range gitOptionValues(rest, gitProgram{long: []string{"--template"}}) {
			if !v.known || v.s != "" {
				c.flag(Explicit, "git "+sub+" --template copies hooks and configuration from "+v.text()+
					" into the new repository, which git runs (a clone checks out with its post-checkout hook)")
			}
		}
	case "send-email":
		for _, v := range gitOptionValues(rest, gitProgram{long: []string{"--smtp-server"}}) {
			if !v.known || strings.HasPrefix(v.s, "/") {
				c.commandLine(v, "git send-email --smtp-server") // a full path is a sendmail-like program
			}
		}
	case "submodule", "submodule--helper":
		// git submodule [-q|--quiet|--cached] foreach [-q|--quiet|--recursive] CMD
		i := 0
		for i < len(rest) && strings.HasPrefix(rest[i].s, "-") {
			i++
		}
		if i < len(rest) && rest[i].s == "foreach" {
			i++
			for i < len(rest) && strings.HasPrefix(rest[i].s, "-") {
				i++
				if rest[i-1].s == "--" {
					break
				}
			}
			if i < len(rest) {
				c.commandLine(joinValues(rest[i:]), "git submodule foreach")
			}
		}
	case "filter-branch":
		// Every option but -f and --prune-empty takes the next argument;
		// the filters are shell text eval'd for each commit, and with -f
		// the -d directory is removed with rm -rf.
		force, dir := false, lit(".git-rewrite")
		for i := 0; i < len(rest) && strings.HasPrefix(rest[i].s, "-"); i++ {
			switch a := rest[i].s; a {
			case "--":
				i = len(rest)
			case "-f", "--force":
				force = true
			case "--prune-empty", "--remap-to-ancestor":
			default:
				if i+1 == len(rest) {
					break
				}
				i++
				switch a {
				case "-d":
					dir = rest[i]
				case "--setup", "--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter",
					"--commit-filter", "--tag-name-filter":
					c.commandLine(rest[i], "git filter-branch "+a)
				}
			}
		}
		if force {
			c.command([]value{lit("rm"), lit("-rf"), lit("--"), dir}, nil)
		}
	case "credential":
		if len(ops) > 0 && ops[0].s == "fill" {
			c.flag(Explicit, "prints stored credentials, passwords included (git credential fill)")
		}
	default:
		if strings.HasPrefix(sub, "credential-") && len(ops) > 0 && ops[len(ops)-1].s == "get" {
			c.flag(Explicit, "prints stored credentials, passwords included (git "+sub+" get)")
		}
	}
}

// gitOptionValues are the values given to option p: --long=V, --long V
// (or an abbreviation of long), -sV, -s V, and the letter s ending a
// bundle of flags (-is V). An optional value is only ever attached.
// Arguments after "--" are operands.
func gitOptionValues(args []value, p gitProgram) []value {
	var out []value
	part := func(a value, s string) value {
		return value{s: s, known: a.known, literal: a.literal, download: a.download, opaque: a.opaque}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--":
			return out
		case strings.HasPrefix(a.s, "--"):
			name, v, attached := strings.Cut(a.s, "=")
			for _, l := range p.long {
				if name != l && !abbreviates(name, l) {
					continue
				}
				switch {
				case attached:
					out = append(out, part(a, v))
				case !p.optional && i+1 < len(args):
					i++
					out = append(out, args[i])
				}
				break
			}
		case len(a.s) > 1 && a.s[0] == '-' && p.short != 0:
			for j := 1; j < len(a.s); j++ {
				switch l := a.s[j]; {
				case l == p.short && j+1 < len(a.s):
					out = append(out, part(a, a.s[j+1:]))
				case l == p.short && !p.optional && i+1 < len(args):
					i++
					out = append(out, args[i])
				case strings.IndexByte(p.valShorts, l) < 0:
					continue
				}
				break
			}
		}
	}
	return out
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
// approval; any other write is ordinary; reads are read-only. The file
// options' values (-f FILE, --blob B …) are not operands, and git 2.46's
// subcommands (git config set KEY VALUE, unset, edit …) are judged as the
// classic forms.
func (c *classifier) gitConfig(args []value) {
	ops := gitConfigOperands(args)
	writes := len(ops) >= 2 || has(args, "--unset", "--unset-all", "--add", "--replace-all", "--edit", "-e",
		"--rename-section", "--remove-section")
	if len(ops) > 0 {
		switch ops[0].s {
		case "set", "unset", "rename-section", "remove-section", "edit":
			writes = true
			if ops[0].s == "rename-section" {
				ops = nil
				args = append(args, lit("--rename-section"))
			} else {
				ops = ops[1:]
			}
		case "get", "list", "get-color", "get-colorbool":
			writes = false
		}
	}
	if has(args, "--rename-section") {
		// The keys of the renamed section become keys of the new one
		// (alias.*, core.*), which this cannot see.
		c.flag(Explicit, "git config --rename-section renames configuration keys into a section the classifier "+
			"cannot check for commands git runs")
	}
	if writes && len(ops) > 0 {
		val := lit("")
		if len(ops) > 1 {
			val = ops[1]
		}
		if !ops[0].known {
			c.flag(Explicit, "git config writes a key the classifier cannot see ("+ops[0].text()+"), which can "+
				"make git run a command")
		} else {
			c.gitConfigValue(ops[0].s, val, "git config")
		}
	}
	if has(args, "--edit", "-e") || len(ops) == 0 && writes {
		c.atLeast(Ordinary)
	}
}

// gitConfigOperands are git config's operands, without the values of its
// options that take one.
func gitConfigOperands(args []value) []value {
	var ops []value
	for i := 0; i < len(args); i++ {
		a := args[i].s
		switch {
		case a == "--":
			return append(ops, args[i+1:]...)
		case !strings.HasPrefix(a, "-") || a == "-":
			ops = append(ops, args[i])
		case takesValue(a, "-f", "--file", "--blob", "--type", "--default", "--comment", "--value", "-t"):
			i++
		}
	}
	return ops
}

// gitConfigArg classifies one KEY=VALUE given to git -c or git clone -c: a
// value the classifier cannot see may set an alias or a pager.
func (c *classifier) gitConfigArg(v value, how string) {
	switch {
	case v.download:
		c.flag(Blocked, how+" sets git configuration from a download, which can make git run it")
	case !v.known:
		c.flag(Explicit, how+" sets git configuration the classifier cannot see ("+v.text()+"), which can make "+
			"git run a command (an alias, a pager)")
	default:
		key, val, _ := strings.Cut(v.s, "=")
		c.gitConfigValue(key, value{s: val, known: true, literal: v.literal}, how)
	}
}

// gitConfigValue classifies one key and the value git is told to use.
func (c *classifier) gitConfigValue(key string, v value, how string) {
	val := v.s
	if !gitCommandKey(key) || plainPager(key, val) {
		return
	}
	k := strings.ToLower(key)
	if strings.HasPrefix(k, "submodule.") && strings.HasSuffix(k, ".update") {
		// checkout, rebase, merge, none are strategies; !CMD runs CMD.
		if v.known && !strings.HasPrefix(val, "!") {
			return
		}
		val = strings.TrimPrefix(val, "!")
	}
	c.flag(Explicit, how+" "+key+" makes git run a command")
	if strings.HasPrefix(k, "alias.") {
		if v.known && !strings.HasPrefix(val, "!") {
			return
		}
		val = strings.TrimPrefix(val, "!")
	}
	if gitPathKey(k) {
		return // a directory, a file or a URL, not a command line
	}
	switch {
	case v.download:
		c.flag(Blocked, how+" "+key+" runs a command from a download")
	case !v.known:
		c.flag(Explicit, how+" "+key+" runs a command the classifier cannot see ("+v.text()+")")
	case val != "":
		c.nested(val, how+" "+key)
	}
}

// gitPathKey reports a command key whose value is a path or a name rather
// than a command line.
func gitPathKey(k string) bool {
	switch k {
	case "core.hookspath", "safe.directory", "safe.barerepository", "include.path", "ssh.variant",
		"core.attributesfile", "core.excludesfile", "init.templatedir":
		return true
	}
	return strings.HasPrefix(k, "includeif.") || strings.HasPrefix(k, "protocol.") ||
		strings.HasSuffix(k, ".insteadof") || strings.HasSuffix(k, ".pushinsteadof") || strings.HasSuffix(k, ".vcs")
}

// gitConfigFiles: GIT_CONFIG_GLOBAL or GIT_CONFIG_SYSTEM naming a file
// (other than /dev/null) makes git read configuration from it, as
// git -c include.path=FILE does.
func (c *classifier) gitConfigFiles() {
	for _, name := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		v, ok := c.prefix[name]
		if !ok {
			s, set := c.vars[name]
			v, ok = value{s: s, known: true}, set
			if c.opaque[name] {
				v, ok = value{s: "$" + name}, true
			}
		}
		if ok && (!v.known || v.s != "/dev/null" && v.s != "") {
			c.flag(Explicit, name+"="+v.text()+" makes git read configuration from a file, which can make git run "+
				"a command (as git -c include.path=… does)")
		}
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
		"core.attributesfile", "core.excludesfile", "sendemail.sendmailcmd", "sendemail.headercmd",
		"gpg.ssh.defaultkeycommand", "help.browser", "man.viewer", "imap.tunnel", "init.templatedir",
		"safe.barerepository":
		return true
	}
	for _, p := range []string{"alias.", "pager.", "includeif.", "protocol.", "filter.", "instaweb."} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	section, rest, _ := strings.Cut(k, ".")
	switch section {
	case "difftool", "mergetool", "browser", "man": // <tool>.path is the program git runs
		if strings.HasSuffix(rest, ".path") {
			return true
		}
	case "sendemail": // sendemail.<identity>.tocmd …
		for _, s := range []string{".tocmd", ".cccmd", ".sendmailcmd", ".headercmd", ".smtpserver"} {
			if strings.HasSuffix(k, s) {
				return true
			}
		}
	case "submodule": // submodule.<name>.update = !CMD
		if strings.HasSuffix(rest, ".update") {
			return true
		}
	case "remote": // remote.<name>.vcs runs git-remote-<vcs>
		if strings.HasSuffix(rest, ".vcs") {
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
	if !ok || has(args, "--output", "--ext-diff") || gitRunsDrivers(sub, args) || c.implicitGitDir() {
		return false
	}
	for _, a := range args {
		if !a.literal {
			return false
		}
	}
	return rule == nil || rule(args)
}

// gitRunsDrivers reports the options that make git run the drivers its
// configuration names for a file: cat-file --filters (the smudge filter),
// --textconv anywhere. --text (-a) is its own option, not an abbreviation.
func gitRunsDrivers(sub string, args []value) bool {
	for _, a := range args {
		if a.s == "--" {
			return false
		}
		name, _, _ := strings.Cut(a.s, "=")
		if len(name) > len("--text") && strings.HasPrefix("--textconv", name) ||
			sub == "cat-file" && len(name) > len("--fi") && strings.HasPrefix("--filters", name) {
			return true
		}
	}
	return false
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

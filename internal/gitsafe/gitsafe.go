// Package gitsafe is the one way codewhale starts git: with a configuration
// no repository can turn into code execution (issue 11 §2). A repository's
// .git/config, an included file or the model's own earlier write can name
// programs git runs on an ordinary read — core.fsmonitor on every status,
// diff.external and diff.<driver>.command/textconv on diff, log and show,
// filter.<driver>.clean/smudge/process whenever a work-tree file is compared,
// core.pager, gpg.program under log.showSignature, hooks, ssh and credential
// helpers. Every git the agent runs (the Git tool's binary backend, Run's
// git gate) goes through Command (or Args plus ConfigEnv for a runner that
// builds its own process), which overrides all of them through
// GIT_CONFIG_COUNT, where they beat every configuration file.
//
// Empty values do not always disable a setting (an empty diff.external is a
// command named ""), so the diff family also gets --no-ext-diff and
// --no-textconv; filter drivers have no switch, so the drivers the
// configuration defines are listed first (git config, which runs nothing)
// and each is emptied and made optional.
package gitsafe

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/codewhale/codewhale/internal/secrets"
)

// setting is one configuration override.
type setting struct{ key, value string }

// overrides are the settings every invocation gets.
func overrides() []setting {
	return []setting{
		{"core.fsmonitor", "false"},
		{"core.hooksPath", os.DevNull},
		{"core.pager", "cat"},
		{"core.editor", "false"},
		{"sequence.editor", "false"},
		{"core.sshCommand", "false"},
		{"core.askPass", "false"},
		{"credential.helper", ""},
		{"diff.external", ""},
		{"gpg.program", "false"},
		{"gpg.ssh.program", "false"},
		{"gpg.x509.program", "false"},
		{"log.showSignature", "false"},
		{"protocol.allow", "never"},
	}
}

// droppedEnv are inherited variables that name programs git would run.
var droppedEnv = []string{"GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_PROXY_COMMAND", "GIT_ASKPASS",
	"SSH_ASKPASS", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "PAGER"}

// Env returns base without the variables that name programs for git,
// followed by Overlay. A nil base is the environment every child codewhale
// starts gets (secrets.Environ: the agent's own without its keys and
// tokens), so codewhale's own git never sees the API key either.
func Env(base []string) []string {
	if base == nil {
		base = secrets.Environ()
	}
	out := make([]string, 0, len(base)+16)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !dropped(name) {
			out = append(out, kv)
		}
	}
	return append(out, Overlay()...)
}

// Overlay is what a git environment must end with, for runners that add to
// an environment they do not filter (later entries win): the program
// variables emptied (git ignores an empty one, or the overrides above make
// it unused), no credential prompt, no optional index lock (a status must
// not rewrite the index), cat as the pager and false as the editor.
func Overlay() []string {
	out := make([]string, 0, len(droppedEnv)+2)
	for _, d := range droppedEnv {
		out = append(out, d+"=")
	}
	return append(out, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "PAGER=cat",
		"GIT_EDITOR=false", "GIT_SEQUENCE_EDITOR=false")
}

func dropped(name string) bool {
	for _, d := range droppedEnv {
		if name == d {
			return true
		}
	}
	return false
}

// Command returns git (the binary bin) run in dir with args under the safe
// configuration and environment. ctx bounds the driver listing too.
//
// A switch that would turn back on what the off-switches turn off
// (--textconv, --ext-diff: git honours the later one, and they run
// programs the repository's configuration names) is refused: the command
// fails to start, with an error that says why, and nothing runs.
func Command(ctx context.Context, bin, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, Args(args...)...)
	cmd.Dir = dir
	if sw := undoesSwitches(args); sw != "" {
		cmd.Err = fmt.Errorf("gitsafe: %s runs programs the repository's configuration names; codewhale's git does not take it", sw)
		return cmd
	}
	cmd.Env = append(Env(nil), ConfigEnv(ctx, bin, dir)...)
	return cmd
}

// undoesSwitches is the first of args after the subcommand (and before a
// "--") that re-enables an external diff or a textconv driver, or "".
func undoesSwitches(args []string) string {
	i := subcommand(args)
	if i < 0 || commandSwitches(args[i]) == nil {
		return ""
	}
	for _, a := range args[i+1:] {
		if a == "--" || a == "--end-of-options" {
			break
		}
		if a == "--textconv" || a == "--ext-diff" || strings.HasPrefix(a, "--textconv=") {
			return a
		}
	}
	return ""
}

// ObjectCommand is Command for a read of the object store alone — the Git
// tool's log, show, rev-parse and cat-file with arguments it built itself
// (no --filters, no --textconv), and its blame at a named revision: filter
// drivers run only when git converts a work-tree file or checks one out,
// which these never do, so the driver listing (a second git process, about
// as long as the read itself on a short log) is skipped. Every other
// override still applies. A command outside that list — a blame without a
// revision reads the work-tree file through its clean filter — gets
// Command's full treatment.
func ObjectCommand(ctx context.Context, bin, dir string, args ...string) *exec.Cmd {
	if !readsObjectsOnly(args...) {
		return Command(ctx, bin, dir, args...)
	}
	cmd := exec.CommandContext(ctx, bin, Args(args...)...)
	cmd.Dir = dir
	cmd.Env = append(Env(nil), configEnv(overrides())...)
	return cmd
}

// readsObjectsOnly reports whether args (a git command line without "git")
// is one ObjectCommand runs without the filter-driver listing: log, show,
// rev-parse or cat-file without a converting switch, or a blame of the
// shape objectBlame accepts.
func readsObjectsOnly(args ...string) bool {
	i := subcommand(args)
	if i < 0 || undoesSwitches(args) != "" {
		return false
	}
	if args[i] == "blame" {
		return objectBlame(args[i+1:])
	}
	return objectOnly[args[i]] && !slices.ContainsFunc(args[i+1:], convertsBlobs)
}

// objectOnly are the subcommands that read no work-tree file.
var objectOnly = map[string]bool{"log": true, "show": true, "rev-parse": true, "cat-file": true}

// objectBlame accepts exactly the blame the Git tool builds: formatting
// switches in their joined forms, one revision, "--" and one path. git
// blames the work-tree file (through its clean filter) only when no
// revision is named, and reads --contents the same way; any other switch,
// a second positional word or a missing "--" is not recognised here, so
// it keeps the listing.
func objectBlame(rest []string) bool {
	k := 0
	for ; k < len(rest) && strings.HasPrefix(rest[k], "-") && rest[k] != "--"; k++ {
		a := rest[k]
		if !(a == "--line-porcelain" || a == "--porcelain" || strings.HasPrefix(a, "--date=") ||
			len(a) > 2 && strings.HasPrefix(a, "-L")) {
			return false
		}
	}
	return len(rest) == k+3 && rest[k] != "" && !strings.HasPrefix(rest[k], "-") && rest[k+1] == "--"
}

// convertsBlobs reports the switches that make those subcommands run a
// blob through the work tree's conversions (cat-file --filters, show
// --textconv and the like): ObjectCommand then falls back to Command.
func convertsBlobs(arg string) bool {
	return strings.HasPrefix(arg, "--filters") || strings.HasPrefix(arg, "--textconv")
}

// ConfigEnv is the safe configuration as GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n
// / GIT_CONFIG_VALUE_n entries for a git run in dir, after any the
// environment already carries. Keys and values travel apart, so a driver
// name holding "=" is overridden too (a -c flag would split it).
func ConfigEnv(ctx context.Context, bin, dir string) []string {
	kv := overrides()
	for _, d := range filterDrivers(ctx, bin, dir) {
		f := "filter." + d + "."
		kv = append(kv, setting{f + "clean", ""}, setting{f + "smudge", ""}, setting{f + "process", ""},
			setting{f + "required", "false"})
	}
	return configEnv(kv)
}

func configEnv(kv []setting) []string {
	n, err := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT"))
	if err != nil || n < 0 {
		n = 0
	}
	out := make([]string, 0, 2*len(kv)+1)
	for i, e := range kv {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n+i, e.key), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n+i, e.value))
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n+len(kv)))
}

// Args returns args (a git command line without "git") with paging off and
// the diff family's switches after the subcommand.
func Args(args ...string) []string {
	out := []string{"--no-pager"}
	i := subcommand(args)
	if i < 0 {
		return append(out, args...)
	}
	out = append(out, args[:i+1]...)
	out = append(out, commandSwitches(args[i])...)
	return append(out, args[i+1:]...)
}

// subcommand is the index of the subcommand in args, after global options
// (-c k=v, -C dir, --no-pager, …); -1 when there is none.
func subcommand(args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return i
		}
	}
	return -1
}

// commandSwitches turn off external diff programs and textconv drivers for
// the commands that would run them.
func commandSwitches(sub string) []string {
	switch sub {
	case "diff", "show", "log", "whatchanged", "diff-tree", "diff-index", "diff-files", "format-patch":
		return []string{"--no-ext-diff", "--no-textconv"}
	case "blame", "annotate":
		return []string{"--no-textconv"}
	}
	return nil
}

// filterDrivers lists the filter drivers the configuration of dir defines
// (includes followed), by asking `git config`, which reads configuration
// and runs nothing. A failure lists none: there is then no configuration
// for git to read them from either.
func filterDrivers(ctx context.Context, bin, dir string) []string {
	cmd := exec.CommandContext(ctx, bin, "--no-pager", "config", "-z", "--get-regexp", `^filter\.`)
	cmd.Dir = dir
	cmd.Env = Env(nil)
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var drivers []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		key, _, _ := bytes.Cut(rec, []byte{'\n'})
		// filter.<driver>.<key>: the driver name may itself contain dots.
		k := string(key)
		first, last := strings.Index(k, "."), strings.LastIndex(k, ".")
		if first < 0 || last <= first {
			continue
		}
		if d := k[first+1 : last]; !contains(drivers, d) {
			drivers = append(drivers, d)
		}
	}
	return drivers
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

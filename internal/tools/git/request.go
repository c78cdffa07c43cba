package git

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/codewhale/codewhale/internal/tools"
)

// Defaults and limits of CONTRACT.md §6.3.
const (
	defaultUnified  = 3
	maxUnified      = 50
	defaultMaxCount = 20
	maxMaxCount     = 200
	defaultMaxLines = 200
	maxMaxLines     = 2000
	maxOutputChars  = 40000
	logFormat       = "format:%H%nAuthor: %an <%ae>%nDate: %ad%nSubject: %s%n"
)

// request is one validated Git call: the action, where it runs and its
// parameters with defaults and clamps applied.
type request struct {
	action   string
	rawPath  string // the `path` argument as given; "" when absent
	dir      string // working directory: the workspace, or the trusted root the path lies in
	pathspec string // "" (the whole repository), "." for dir itself, or the path below dir
	kind     scopeKind
	scoped   bool   // dir is below its repository's top level: reads are limited to it
	inner    string // a nested repository or submodule the path reaches (dir-relative), or ""

	cached              bool
	unified             int
	maxCount            int
	author, since, till string
	rev                 string // show and blame: the revision (default HEAD); log and diff: the one sent, or ""
	patch, stat         bool
	startLine, maxLines int
	porcelain           bool
}

// newRequest applies the action's defaults, clamps and value rules to a
// decoded call. The scope is resolved when the call runs (resolve), through
// the workspace boundary of that run's context.
func newRequest(d *tools.Decoded[input]) (*request, error) {
	in := &d.In
	r := &request{action: d.Action, rawPath: in.Path, unified: defaultUnified, maxCount: defaultMaxCount,
		patch: true, stat: true, startLine: 1, maxLines: defaultMaxLines, rev: "HEAD"}
	var err error
	if d.Has("unified") && (r.action == "diff" || r.action == "show") {
		r.unified = min(int(in.Unified), maxUnified)
	}
	switch r.action {
	case "diff":
		r.cached = in.Cached
		if r.rev, err = optionalRev(d); err != nil {
			return nil, err
		}
	case "log":
		if r.rev, err = optionalRev(d); err != nil {
			return nil, err
		}
		if d.Has("max_count") {
			r.maxCount = max(1, min(in.MaxCount, maxMaxCount))
		}
		r.author, r.since, r.till = in.Author, in.Since, in.Until
	case "show":
		if r.rev, err = validateRev(in.Rev); err != nil {
			return nil, err
		}
		r.patch = in.Patch || !d.Has("patch")
		r.stat = in.Stat || !d.Has("stat")
	case "blame":
		if d.Has("rev") {
			if r.rev, err = validateRev(in.Rev); err != nil {
				return nil, err
			}
		}
		if d.Has("start_line") {
			r.startLine = max(1, in.StartLine)
		}
		if d.Has("max_lines") {
			r.maxLines = max(1, min(in.MaxLines, maxMaxLines))
		}
		r.porcelain = in.Porcelain
	}
	return r, nil
}

// resolve resolves the request's scope through tc's workspace boundary and
// checks what needs it: blame needs a file.
func (r *request) resolve(tc *tools.Context, d *tools.Decoded[input]) error {
	if err := r.resolveScope(tc); err != nil {
		return err
	}
	if r.action == "blame" {
		if r.rawPath == "" {
			return d.Missing("path")
		}
		if r.kind == scopeDir {
			return tools.InvalidInput("Git blame needs a file path, but '%s' is a directory; nothing was run. Pass a file inside it.", r.rawPath)
		}
	}
	return nil
}

// optionalRev is log's and diff's `rev`: "" when not sent, else checked
// as every revision is (a range A..B or A...B is checked side by side by
// git itself, which refuses an unknown one).
func optionalRev(d *tools.Decoded[input]) (string, error) {
	if !d.Has("rev") {
		return "", nil
	}
	return validateRev(d.In.Rev)
}

// validateRev refuses revisions that git would read as an option or that
// carry whitespace or control characters.
func validateRev(rev string) (string, error) {
	switch {
	case rev == "":
		return "", tools.InvalidInput("git revision must not be empty")
	case strings.HasPrefix(rev, "-"):
		return "", tools.InvalidInput("git revision must not start with '-'")
	case strings.IndexFunc(rev, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }) >= 0:
		return "", tools.InvalidInput("git revision must not contain whitespace or control characters")
	}
	return rev, nil
}

// cliArgs is the git command line of CONTRACT.md §6.3 for the request, without "git".
func (r *request) cliArgs() []string {
	var a []string
	switch r.action {
	case "status":
		a = []string{"-c", "core.quotepath=false", "status", "--porcelain=v1", "-b"}
	case "diff":
		a = []string{"-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff", "--unified=" + strconv.Itoa(r.unified)}
		if r.cached {
			a = append(a, "--cached")
		}
		if r.rev != "" {
			a = append(a, r.rev)
		}
	case "log":
		a = []string{"log", "--no-color", "--max-count=" + strconv.Itoa(r.maxCount), "--date=iso-strict", "--pretty=" + logFormat}
		for _, f := range [][2]string{{"--author=", r.author}, {"--since=", r.since}, {"--until=", r.till}} {
			if f[1] != "" {
				a = append(a, f[0]+f[1])
			}
		}
		if r.rev != "" {
			a = append(a, r.rev)
		}
	case "show":
		a = append([]string{"show", "--no-color", "--no-ext-diff"}, r.showFormatArgs()...)
		a = append(a, r.rev)
	case "blame":
		a = []string{"blame", "--date=iso", fmt.Sprintf("-L%d,%d", r.startLine, r.startLine+r.maxLines-1)}
		if r.porcelain {
			a = append(a, "--line-porcelain")
		}
		return append(a, r.rev, "--", r.pathspec)
	}
	if r.pathspec != "" {
		a = append(a, "--", r.pathspec)
	}
	return a
}

// showFormatArgs selects show's output parts. With patch off and stat on it
// passes --stat alone: `--no-patch --stat` prints no stat before git 2.43,
// while `--stat` by itself means "stat only" on every version.
func (r *request) showFormatArgs() []string {
	switch {
	case r.patch && r.stat:
		return []string{"--unified=" + strconv.Itoa(r.unified), "--stat"}
	case r.patch:
		return []string{"--unified=" + strconv.Itoa(r.unified)}
	case r.stat:
		return []string{"--stat"}
	default:
		return []string{"--no-patch"}
	}
}

// command is the equivalent git command line, as shown in metadata.
func (r *request) command() string {
	return "git -C " + r.dir + " " + strings.Join(r.cliArgs(), " ")
}

// failurePrefix starts the content of a failed read (CONTRACT.md §6.3).
func (r *request) failurePrefix() string {
	switch r.action {
	case "show":
		return fmt.Sprintf("git show failed for '%s': ", r.rev)
	case "blame":
		return fmt.Sprintf("git blame failed for '%s' at '%s': ", r.rawPath, r.rev)
	}
	return fmt.Sprintf("git %s failed: ", r.action)
}

// metadata is the structured part of the result: where and how the read ran
// and the action's parameters.
func (r *request) metadata(backend string) map[string]any {
	m := map[string]any{"action": r.action, "command": r.command(), "working_dir": r.dir,
		"pathspec": nil, "backend": backend, "truncated": false, "omitted_chars": 0}
	if r.pathspec != "" {
		m["pathspec"] = r.pathspec
	}
	if r.inner != "" {
		// Never a silent switch of repositories: the read is the outer
		// repository's view, and the note says how to get the inner one's.
		m["nested_repository"] = r.inner
		m["note"] = fmt.Sprintf("%s is a separate repository (a submodule or a nested clone) inside the one this reads: "+
			"this is what the outer repository records for it (git %s -- %s at %s). This tool does not read the inner "+
			"repository's own status or history; for those run `git -C %s %s` with Bash, or start codewhale in it.",
			r.inner, r.action, r.pathspec, r.dir, r.inner, r.action)
	}
	switch r.action {
	case "diff":
		m["cached"], m["unified"] = r.cached, r.unified
	case "log":
		m["max_count"] = r.maxCount
		for k, v := range map[string]string{"author": r.author, "since": r.since, "until": r.till} {
			if v != "" {
				m[k] = v
			}
		}
	case "show":
		m["rev"], m["unified"], m["patch"], m["stat"] = r.rev, r.unified, r.patch, r.stat
	case "blame":
		m["rev"], m["start_line"], m["max_lines"], m["porcelain"] = r.rev, r.startLine, r.maxLines, r.porcelain
	}
	return m
}

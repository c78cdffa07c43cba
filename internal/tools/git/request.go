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
	dir      string // working directory: the workspace, the path, or the file's parent
	pathspec string // "" (none), "." for a directory, or the rest of the path below dir
	kind     scopeKind

	cached              bool
	unified             int
	maxCount            int
	author, since, till string
	rev                 string
	patch, stat         bool
	startLine, maxLines int
	porcelain           bool
}

// parseRequest reads and validates the action's parameters and resolves the
// scope through the workspace boundary.
func parseRequest(tc *tools.Context, action string, args tools.Args) (*request, error) {
	r := &request{action: action, unified: defaultUnified, maxCount: defaultMaxCount,
		patch: true, stat: true, startLine: 1, maxLines: defaultMaxLines, rev: "HEAD"}
	var err error
	if r.rawPath, _, err = args.String("path"); err != nil {
		return nil, err
	}
	switch action {
	case "diff":
		err = r.parseDiff(args)
	case "log":
		err = r.parseLog(args)
	case "show":
		err = r.parseShow(args)
	case "blame":
		err = r.parseBlame(args)
	}
	if err != nil {
		return nil, err
	}
	if err := r.resolveScope(tc); err != nil {
		return nil, err
	}
	if action == "blame" {
		if r.rawPath == "" {
			return nil, args.Missing("path")
		}
		if r.kind == scopeDir {
			return nil, tools.InvalidInput("Git blame needs a file path, but '%s' is a directory; nothing was run. Pass a file inside it.", r.rawPath)
		}
	}
	return r, nil
}

func (r *request) parseDiff(args tools.Args) error {
	var err error
	if r.cached, _, err = args.Bool("cached"); err != nil {
		return err
	}
	return r.parseUnified(args)
}

func (r *request) parseUnified(args tools.Args) error {
	n, ok, err := args.Uint("unified")
	if err != nil {
		return err
	}
	if ok {
		r.unified = min(n, maxUnified)
	}
	return nil
}

func (r *request) parseLog(args tools.Args) error {
	n, ok, err := args.Int("max_count")
	if err != nil {
		return err
	}
	if ok {
		r.maxCount = max(1, min(n, maxMaxCount))
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"author", &r.author}, {"since", &r.since}, {"until", &r.till}} {
		if *f.dst, _, err = args.String(f.name); err != nil {
			return err
		}
	}
	return nil
}

func (r *request) parseShow(args tools.Args) error {
	rev, err := args.RequireString("rev")
	if err != nil {
		return err
	}
	if r.rev, err = validateRev(rev); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		dst  *bool
	}{{"patch", &r.patch}, {"stat", &r.stat}} {
		v, ok, err := args.Bool(f.name)
		if err != nil {
			return err
		}
		if ok {
			*f.dst = v
		}
	}
	return r.parseUnified(args)
}

func (r *request) parseBlame(args tools.Args) error {
	rev, ok, err := args.String("rev")
	if err != nil {
		return err
	}
	if ok {
		if r.rev, err = validateRev(rev); err != nil {
			return err
		}
	}
	if n, ok, err := args.Int("start_line"); err != nil {
		return err
	} else if ok {
		r.startLine = max(1, n)
	}
	if n, ok, err := args.Int("max_lines"); err != nil {
		return err
	} else if ok {
		r.maxLines = max(1, min(n, maxMaxLines))
	}
	r.porcelain, _, err = args.Bool("porcelain")
	return err
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
	case "log":
		a = []string{"log", "--no-color", "--max-count=" + strconv.Itoa(r.maxCount), "--date=iso-strict", "--pretty=" + logFormat}
		for _, f := range [][2]string{{"--author=", r.author}, {"--since=", r.since}, {"--until=", r.till}} {
			if f[1] != "" {
				a = append(a, f[0]+f[1])
			}
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

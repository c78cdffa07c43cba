package git

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/gitsafe"
)

// backend produces the text git prints for a request. A read that ran and
// failed (bad revision, not a repository) is a *failure; any other error
// means the backend itself could not run.
type backend interface {
	name() string
	run(ctx context.Context, r *request) (string, error)
	knows(ctx context.Context, r *request) (bool, error)
	// objectKind is "commit" when rev peels to a commit, else the type of
	// the object it names ("tag", "tree", "blob"), or "" when it names none.
	objectKind(ctx context.Context, r *request, rev string) (string, error)
}

// failure is a git read that ran and failed; msg is what git would print on
// stderr (trimmed). needsCLI marks a request the native backend cannot
// answer faithfully, which the tool retries with the git binary if it has
// one.
type failure struct {
	msg      string
	needsCLI bool
}

func (f *failure) Error() string { return f.msg }

func failf(msg string) error { return &failure{msg: msg} }

// cliBackend runs the git binary with the command lines of CONTRACT.md §6.3.
type cliBackend struct{ bin string }

func (cliBackend) name() string { return "git" }

func (c cliBackend) run(ctx context.Context, r *request) (string, error) {
	args := r.cliArgs()
	out, err := c.output(ctx, r.dir, args...)
	if err == nil && !utf8.ValidString(out) && args[0] == "-c" && args[1] == "core.quotepath=false" {
		// A file name that is not UTF-8 cannot reach the model raw; git's
		// default quoting writes it (and every non-ASCII name) in octal.
		args[1] = "core.quotepath=true"
		return c.output(ctx, r.dir, args...)
	}
	return out, err
}

// output runs git in dir and returns its stdout; a non-zero exit is a
// *failure carrying stderr.
func (c cliBackend) output(ctx context.Context, dir string, args ...string) (string, error) {
	// gitsafe: no repository configuration may make this read run a program
	// (fsmonitor, external diff, textconv and filter drivers, pager, hooks),
	// the index is not rewritten (GIT_OPTIONAL_LOCKS=0) and nothing prompts.
	// A read of the object store alone (log, show, rev-parse, cat-file)
	// skips the filter-driver listing, which only work-tree reads need.
	cmd := gitsafe.ObjectCommand(ctx, c.bin, dir, args...)
	// --stat lays out for 80 columns, as git does on a pipe, whatever
	// terminal width the agent itself runs in. A path is a literal pathspec:
	// "*.go" or ":(glob)x" name files, not patterns.
	cmd.Env = append(cmd.Env, "COLUMNS=80", "GIT_LITERAL_PATHSPECS=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return "", failf(strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		return "", err
	}
	return stdout.String(), nil
}

// knows reports whether the index or any commit reachable from a ref has
// something at the request's pathspec.
func (c cliBackend) knows(ctx context.Context, r *request) (bool, error) {
	for _, args := range [][]string{{"ls-files", "--cached", "--", r.pathspec}, {"log", "-1", "--all", "--format=%H", "--", r.pathspec}} {
		out, err := c.output(ctx, r.dir, args...)
		if err != nil {
			return false, err
		}
		if strings.TrimSpace(out) != "" {
			return true, nil
		}
	}
	return false, nil
}

func (c cliBackend) objectKind(ctx context.Context, r *request, rev string) (string, error) {
	_, err := c.output(ctx, r.dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	var fe *failure
	switch {
	case err == nil:
		return "commit", nil
	case !errors.As(err, &fe):
		return "", err
	}
	out, err := c.output(ctx, r.dir, "cat-file", "-t", rev)
	if errors.As(err, &fe) {
		return "", nil
	}
	return strings.TrimSpace(out), err
}

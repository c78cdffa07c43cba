package git

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
)

// backend produces the text git prints for a request. A read that ran and
// failed (bad revision, not a repository) is a *failure; any other error
// means the backend itself could not run.
type backend interface {
	name() string
	run(ctx context.Context, r *request) (string, error)
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

// cliBackend runs the git binary with the command lines of §4.3.
type cliBackend struct{ bin string }

func (cliBackend) name() string { return "git" }

func (c cliBackend) run(ctx context.Context, r *request) (string, error) {
	cmd := exec.CommandContext(ctx, c.bin, r.cliArgs()...)
	cmd.Dir = r.dir
	// A read must not rewrite the index (status refreshes it opportunistically)
	// or wait on a credential prompt; --stat lays out for 80 columns, as git
	// does on a pipe, whatever terminal width the agent itself runs in.
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "COLUMNS=80")
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

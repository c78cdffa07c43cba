// Package jobsview is the /jobs command of the TUI (CONTRACT.md §14.9) over the
// process-local job manager: it parses the arguments, performs the action
// and renders the exact texts of the contract. Actions that wait (poll,
// wait, stdin, cancel) block, so callers run Run off the UI goroutine.
package jobsview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
)

// Exact texts of CONTRACT.md §14.9.
const (
	EmptyList    = "No live Bash jobs. Bash jobs are process-local; after a restart, inspect durable task artifacts for prior command output."
	Controls     = "Controls: /jobs show <id>, /jobs poll <id>, /jobs wait <id>, /jobs stdin <id> <input>, /jobs cancel <id>, /jobs cancel-all."
	Usage        = "Usage: /jobs [list|show <id>|poll <id>|wait <id>|stdin <id> <input>|close-stdin <id>|cancel <id>|cancel-all]"
	NoneToCancel = "No running commands to cancel."
)

// Poll timeouts: poll waits 1 s for news, wait up to 5 s.
const (
	PollTimeout = time.Second
	WaitTimeout = 5 * time.Second
)

// Result is what the command shows: a System cell (Text; an error when
// IsError, to be prefixed "Error: ") or a pager.
type Result struct {
	Text       string
	IsError    bool
	PagerTitle string
	PagerBody  string
}

func text(s string) Result     { return Result{Text: s} }
func usageErr(s string) Result { return Result{Text: s, IsError: true} }

// Run executes `/jobs <arg>` against m (nil behaves as a manager with no
// jobs).
func Run(ctx context.Context, m *jobs.Manager, arg string) Result {
	arg = strings.TrimSpace(arg)
	if arg == "" || strings.EqualFold(arg, "list") {
		return text(List(m))
	}
	action, rest, _ := strings.Cut(arg, " ")
	action = strings.ToLower(action)
	id, input, _ := strings.Cut(strings.TrimSpace(rest), " ")
	input = strings.TrimSpace(input)
	switch action {
	case "show", "inspect":
		if id == "" {
			return usageErr("Usage: /jobs show <id>")
		}
		return show(m, id)
	case "poll", "wait":
		if id == "" {
			return usageErr("Usage: /jobs " + action + " <id>")
		}
		timeout := PollTimeout
		if action == "wait" {
			timeout = WaitTimeout
		}
		return poll(ctx, m, id, timeout)
	case "stdin", "send":
		if id == "" || input == "" {
			return usageErr("Usage: /jobs stdin <id> <input>")
		}
		return interact(ctx, m, id, input+"\n", false)
	case "close-stdin", "eof":
		if id == "" {
			return usageErr("Usage: /jobs close-stdin <id>")
		}
		return interact(ctx, m, id, "", true)
	case "cancel", "kill", "stop":
		if id == "" {
			return usageErr("Usage: /jobs cancel <id>")
		}
		return cancel(ctx, m, id)
	case "cancel-all", "kill-all", "stop-all":
		return cancelAll(m)
	}
	return usageErr(Usage)
}

// List renders the job list, running jobs first (the manager's order).
func List(m *jobs.Manager) string {
	if m == nil {
		return EmptyList
	}
	snaps := m.List()
	if len(snaps) == 0 {
		return EmptyList
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Bash jobs (%d)\n%s\n", len(snaps), strings.Repeat("-", 40))
	for _, s := range snaps {
		fmt.Fprintf(&b, "%s  %-8s  %s  exit=%s", s.ID, Label(s), Elapsed(s.ElapsedMS), jobs.ExitLabel(s.ExitCode))
		if s.LinkedTaskID != "" {
			b.WriteString(" task=" + s.LinkedTaskID)
		}
		fmt.Fprintf(&b, "\n  cwd: %s\n  cmd: %s\n", s.Cwd, s.Command)
		tail := strings.TrimSpace(s.StderrTail)
		if tail == "" {
			tail = strings.TrimSpace(s.StdoutTail)
		}
		if tail != "" {
			b.WriteString("  tail: " + strings.ReplaceAll(tail, "\n", `\n`) + "\n")
		}
	}
	b.WriteString(Controls)
	return b.String()
}

// Label is a job's status word: running, silent, complete, failed, killed,
// timeout, or stale (which overrides the status).
func Label(s jobs.Snapshot) string {
	switch {
	case s.Stale:
		return "stale"
	case s.Status == jobs.Running && s.Silent:
		return "silent"
	case s.Status == jobs.Running:
		return "running"
	case s.Status == jobs.Completed:
		return "complete"
	case s.Status == jobs.Failed:
		return "failed"
	case s.Status == jobs.TimedOut:
		return "timeout"
	}
	return "killed"
}

// Elapsed renders milliseconds as `0s`, `450ms`, `42s`, `1m 05s`; minutes
// never roll into hours.
func Elapsed(ms int64) string {
	switch {
	case ms <= 0:
		return "0s"
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%ds", ms/1000)
	}
	s := ms / 1000
	return fmt.Sprintf("%dm %02ds", s/60, s%60)
}

func lookupFailed(err error) Result { return text("Command lookup failed: " + err.Error()) }

func show(m *jobs.Manager, id string) Result {
	if m == nil {
		return lookupFailed(jobs.ErrNotFound{ID: id})
	}
	d, err := m.Show(id)
	if err != nil {
		return lookupFailed(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Job: %s\nStatus: %s\nCommand: %s\nCwd: %s\nElapsed: %s\nExit Code: %s\nStdin Available: %t\n",
		d.ID, Label(d.Snapshot), d.Command, d.Cwd, Elapsed(d.ElapsedMS), jobs.ExitLabel(d.ExitCode), d.StdinAvailable)
	if d.LinkedTaskID != "" {
		fmt.Fprintf(&b, "Linked Task: %s\n", d.LinkedTaskID)
	}
	if d.Stale {
		b.WriteString("Completion state: stale after restart; the process is no longer running.\n")
	} else {
		b.WriteString("Completion State: live in this TUI process.\n")
	}
	fmt.Fprintf(&b, "\nSTDOUT (%d bytes):\n%s\n\nSTDERR (%d bytes):\n%s", d.Stdout.Len, orEmpty(d.Stdout.Content),
		d.Stderr.Len, orEmpty(d.Stderr.Content))
	return Result{PagerTitle: "Bash Job " + d.ID, PagerBody: b.String()}
}

func orEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(empty)"
	}
	return strings.TrimRight(s, "\n")
}

func poll(ctx context.Context, m *jobs.Manager, id string, timeout time.Duration) Result {
	if m == nil {
		return lookupFailed(jobs.ErrNotFound{ID: id})
	}
	d, err := m.Wait(ctx, id, timeout, jobs.UserReader)
	if err != nil {
		return lookupFailed(err)
	}
	return text(PollText(d))
}

// PollText is the poll/wait report: the status line, a blank line, then
// the output produced since the previous poll.
func PollText(d jobs.Delta) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Bash job %s: %s exit=%s elapsed=%s\n\n", d.ID, Label(d.Snapshot), jobs.ExitLabel(d.ExitCode),
		Elapsed(d.Elapsed.Milliseconds()))
	out, errs := strings.TrimRight(d.Stdout.Content, "\n"), strings.TrimRight(d.Stderr.Content, "\n")
	if out == "" && errs == "" {
		b.WriteString("(no new output)")
		return b.String()
	}
	var parts []string
	if out != "" {
		parts = append(parts, "STDOUT:\n"+out)
	}
	if errs != "" {
		parts = append(parts, "STDERR:\n"+errs)
	}
	b.WriteString(strings.Join(parts, "\n"))
	return b.String()
}

func interact(ctx context.Context, m *jobs.Manager, id, input string, closeStdin bool) Result {
	if m == nil {
		return lookupFailed(jobs.ErrNotFound{ID: id})
	}
	s, err := m.Snapshot(id)
	if err != nil {
		return lookupFailed(err)
	}
	if s.Stale {
		return usageErr(fmt.Sprintf("Bash job %s is stale after restart; the process is no longer running and takes no input.", id))
	}
	d, err := m.Interact(ctx, id, input, closeStdin, PollTimeout, jobs.UserReader)
	if err != nil {
		var nf jobs.ErrNotFound
		if errors.As(err, &nf) {
			return lookupFailed(err)
		}
		return usageErr(fmt.Sprintf("Could not write to Bash job %s: %v", id, err))
	}
	return text(PollText(d))
}

func cancel(ctx context.Context, m *jobs.Manager, id string) Result {
	if m == nil {
		return lookupFailed(jobs.ErrNotFound{ID: id})
	}
	if _, _, err := m.Cancel(id); err != nil {
		return lookupFailed(err)
	}
	return poll(ctx, m, id, 0)
}

func cancelAll(m *jobs.Manager) Result {
	if m == nil {
		return text(NoneToCancel)
	}
	ids := m.CancelAll()
	if len(ids) == 0 {
		return text(NoneToCancel)
	}
	return text(fmt.Sprintf("Canceled %d command(s): %s", len(ids), strings.Join(ids, ", ")))
}

package bash

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tools"
)

// Wait and interact timeouts (CONTRACT.md §15.17, §6.1).
const (
	defaultWaitTimeout     = 5 * time.Second
	defaultInteractTimeout = time.Second
)

func (t *Tool) wait(ctx context.Context, in input) (tools.Result, error) {
	timeout := defaultWaitTimeout
	if in.hasTimeout {
		timeout = min(time.Duration(in.timeoutMS)*time.Millisecond, jobs.MaxWait)
	}
	if in.hasWait && !in.wait {
		timeout = 0
	}
	d, err := t.opts.Jobs.Wait(ctx, in.taskID, timeout, jobs.ModelReader)
	if err != nil {
		return tools.Result{}, lookupError(err)
	}
	return deltaResult(d), nil
}

func (t *Tool) interact(ctx context.Context, in input) (tools.Result, error) {
	timeout := defaultInteractTimeout
	if in.hasTimeout {
		timeout = min(time.Duration(in.timeoutMS)*time.Millisecond, jobs.MaxWait)
	}
	d, err := t.opts.Jobs.Interact(ctx, in.taskID, in.stdin, in.closeStdin, timeout, jobs.ModelReader)
	if err != nil {
		return tools.Result{}, lookupError(err)
	}
	return deltaResult(d), nil
}

func (t *Tool) cancel(in input) (tools.Result, error) {
	m := t.opts.Jobs
	if in.all && in.taskID == "" {
		ids := m.CancelAll()
		m.Acknowledge(ids...)
		if len(ids) == 0 {
			return withMeta(tools.OK("No running background commands."), map[string]any{"status": "Noop"}), nil
		}
		noun := "command"
		if len(ids) > 1 {
			noun = "commands"
		}
		return withMeta(tools.OK(fmt.Sprintf("Canceled %d background %s: %s", len(ids), noun, strings.Join(ids, ", "))),
			map[string]any{"status": string(jobs.Killed), "task_ids": ids}), nil
	}
	snap, killed, err := m.Cancel(in.taskID)
	if err != nil {
		return tools.Result{}, lookupError(err)
	}
	m.Acknowledge(snap.ID)
	if !killed {
		return withMeta(tools.OK(fmt.Sprintf("Task %s is not running (%s); nothing to cancel.", snap.ID, jobs.StateWord(snap.Status))),
			map[string]any{"status": "Noop", "task_id": snap.ID}), nil
	}
	return withMeta(tools.OK("Canceled background command: "+snap.ID),
		map[string]any{"status": string(jobs.Killed), "task_id": snap.ID}), nil
}

// deltaResult renders a wait or interact (CONTRACT.md §6.1): a timing line, a
// blank line, then the new output or a no-new-output line by status.
func deltaResult(d jobs.Delta) tools.Result {
	var b strings.Builder
	if d.Canceled {
		fmt.Fprintf(&b, "Wait canceled; background shell task %s is still running.\n\n", d.ID)
	}
	fmt.Fprintf(&b, "Task %s %s after %s.\n\n", d.ID, jobs.StateWord(d.Status), jobs.FormatElapsed(d.Elapsed))
	out, errs := d.Stdout.Content, d.Stderr.Content
	switch {
	case out == "" && errs == "":
		b.WriteString(noNewOutput(d))
	case errs == "":
		b.WriteString(out)
	default:
		b.WriteString(out + "\n\nSTDERR:\n" + errs)
	}
	if d.Denial != nil {
		b.WriteString("\n\n[sandbox] " + d.Denial.Note)
	}
	meta := metadata(d)
	meta["stream_delta"] = true
	if d.Canceled {
		meta["wait_canceled"] = true
	}
	return tools.Result{Content: b.String(), Success: d.Status == jobs.Running || d.Status == jobs.Completed, Metadata: meta}
}

func noNewOutput(d jobs.Delta) string {
	switch d.Status {
	case jobs.Running:
		return "Background task running (no new output)."
	case jobs.Completed:
		return "(no new output)"
	case jobs.Failed:
		return "Command failed (" + exitLabel(d.Snapshot) + ")"
	case jobs.TimedOut:
		return "Command timed out (no new output)."
	default:
		return "Command killed (no new output)."
	}
}

// lookupError maps job errors to refusals: an unknown id is the contract's
// `Task <id> not found`, a stdin failure says why.
func lookupError(err error) error {
	var nf jobs.ErrNotFound
	if errors.As(err, &nf) {
		return tools.ExecutionFailed("%s", nf.Error())
	}
	return tools.ExecutionFailed("%v", err)
}

func withMeta(r tools.Result, meta map[string]any) tools.Result {
	r.Metadata = meta
	return r
}

package bash

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// Model-visible refusals (CONTRACT.md §6.1, exact).
const (
	msgShellDisabled = "Shell tools are disabled by the active permission profile."
	msgReadOnlyShell = "Shell command blocked by read-only shell policy. Use a non-mutating, non-background inspection command, or switch to Act mode (`/mode act`) for write-capable shell work."
	msgInteractiveBg = "Interactive commands cannot run in background mode."
	msgInteractiveTT = "Interactive mode cannot be combined with TTY or combined_output sessions."
	msgInteractiveIn = "Interactive mode cannot be combined with stdin data."
)

// Capabilities this build does not have are refused plainly rather than
// approximated.
const (
	msgNoTTY = "TTY sessions are not supported in this build: there is no pseudo-terminal backend. Run the command " +
		"without tty (combined_output=true gives one merged stdout/stderr stream; background=true plus " +
		"action=\"interact\" sends it input)."
	msgNoInteractive = "Interactive terminal commands are not supported: the terminal belongs to the TUI. Start the " +
		"command with background=true and send its input with Bash action=\"interact\"."
)

// Run timeouts (CONTRACT.md §6.1).
const (
	defaultRunTimeout = 120 * time.Second
	minRunTimeout     = time.Second
	maxRunTimeout     = 600 * time.Second
)

func (t *Tool) run(ctx context.Context, tc *tools.Context, in input) (tools.Result, error) {
	if t.opts.Policy == ShellNone {
		return tools.Failed(msgShellDisabled), nil
	}
	if msg := invalidCombination(in); msg != "" {
		return tools.Failed(msg), nil
	}
	v := t.verdict(in.command, in.cwd)
	// Hard blocks hold in every posture, Full Access included.
	if v.Class == shellpolicy.Blocked {
		res := tools.Failed(shellpolicy.BlockedContent(v.Reasons))
		res.Metadata = map[string]any{"status": "Blocked", "blocked_reasons": v.Reasons}
		return res, nil
	}
	if t.opts.Policy == ShellReadOnly && (in.background || in.tty || in.hasStdin || v.Class != shellpolicy.ReadOnly) {
		return tools.Failed(msgReadOnlyShell), nil
	}
	if in.tty {
		return tools.Result{}, tools.ExecutionFailed("%s", msgNoTTY)
	}
	if in.interactive {
		return tools.Result{}, tools.ExecutionFailed("%s", msgNoInteractive)
	}
	dir, err := workingDir(tc, in.cwd)
	if err != nil {
		return tools.Result{}, err
	}
	spec := jobs.Spec{Command: in.command, Dir: dir, Stdin: in.stdin, Combined: in.combined, Background: in.background,
		Sandbox: tc.Sandbox}
	if in.background {
		return t.startBackground(spec, in)
	}
	timeout := defaultRunTimeout
	if in.hasTimeout {
		timeout = clamp(time.Duration(in.timeoutMS)*time.Millisecond, minRunTimeout, maxRunTimeout)
	}
	spec.Timeout = timeout
	return t.foreground(ctx, tc, spec)
}

func invalidCombination(in input) string {
	switch {
	case in.interactive && in.background:
		return msgInteractiveBg
	case in.interactive && (in.tty || in.combined):
		return msgInteractiveTT
	case in.interactive && in.hasStdin:
		return msgInteractiveIn
	}
	return ""
}

// workingDir resolves cwd inside the workspace boundary and requires an
// existing directory.
func workingDir(tc *tools.Context, cwd string) (string, error) {
	dir, err := tc.ResolvePath(cwd)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(dir)
	if err != nil {
		return "", tools.ExecutionFailed("Working directory %s is unavailable (%v). Pass an existing directory as `cwd`, relative to the workspace.", dir, err)
	}
	if !info.IsDir() {
		return "", tools.ExecutionFailed("Working directory %s is not a directory. Pass a directory as `cwd`.", dir)
	}
	return dir, nil
}

// startBackground starts a job and returns its id at once. Background jobs
// keep stdin open for interact and have no deadline unless timeout_ms is
// given.
func (t *Tool) startBackground(spec jobs.Spec, in input) (tools.Result, error) {
	spec.KeepStdin = true
	if in.hasTimeout {
		spec.Timeout = clamp(time.Duration(in.timeoutMS)*time.Millisecond, minRunTimeout, maxRunTimeout)
	}
	j, err := t.opts.Jobs.Start(spec)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("Failed to start command: %v", err)
	}
	res := tools.OK(fmt.Sprintf("Background task started: %s\n"+
		"Its completion arrives as a runtime event when the command exits, so keep working meanwhile.\n"+
		"Call Bash action=\"wait\" task_id=\"%s\" only to read early or final output, or when you truly depend on the result.",
		j.ID(), j.ID()))
	res.Metadata = map[string]any{"task_id": j.ID(), "status": string(jobs.Running), "command": spec.Command,
		"backgrounded": true, "auto_resume_on_completion": true}
	if snap, err := t.opts.Jobs.Snapshot(j.ID()); err == nil {
		res.Metadata["sandboxed"], res.Metadata["sandbox_type"] = snap.Sandboxed, snap.SandboxType
	}
	return res, nil
}

// foreground runs the job to its end (or until the turn is cancelled, or the
// user moves it to /jobs) and renders the outcome.
func (t *Tool) foreground(ctx context.Context, tc *tools.Context, spec jobs.Spec) (tools.Result, error) {
	m := t.opts.Jobs
	j, err := m.Start(spec)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("Failed to start command: %v", err)
	}
	var report func(string)
	if tc != nil {
		report = tc.Progress
	}
	stop := watchProgress(j, report)
	moved := m.Await(ctx, j)
	stop()
	if moved {
		res := tools.OK(fmt.Sprintf("Foreground shell wait moved to /jobs: %s\n"+
			"The command keeps running in the background; its completion arrives as a runtime event. "+
			"Use Bash action=\"wait\" task_id=\"%s\" to read its output.", j.ID(), j.ID()))
		res.Metadata = map[string]any{"task_id": j.ID(), "status": string(jobs.Running), "backgrounded": true,
			"auto_resume_on_completion": true}
		return res, nil
	}
	d, err := m.Wait(context.Background(), j.ID(), 0, jobs.ModelReader)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("%v", err)
	}
	content := runContent(d, j.Timeout())
	if d.Denial != nil {
		content += "\n\n[sandbox] " + d.Denial.Note
	}
	res := tools.Result{Content: content, Success: d.Status == jobs.Completed, Metadata: metadata(d)}
	return res, nil
}

// runContent renders a finished foreground run by outcome (CONTRACT.md §6.1).
func runContent(d jobs.Delta, timeout time.Duration) string {
	out, errs := d.Stdout.Content, d.Stderr.Content
	streams := "\n\nSTDOUT:\n" + out + "\n\nSTDERR:\n" + errs
	switch d.Status {
	case jobs.Completed:
		switch {
		case out == "" && errs == "":
			return "(no output)"
		case errs == "":
			return out
		default:
			return out + "\n\nSTDERR:\n" + errs
		}
	case jobs.TimedOut:
		return fmt.Sprintf("Command timed out after %dms; process killed.\n"+
			"If it needs longer, re-run it with background=true and poll it with Bash action=\"wait\" and the returned task_id.",
			timeout.Milliseconds()) + streams
	case jobs.Killed:
		return "Command canceled; process killed." + streams
	default:
		return "Command failed (" + exitLabel(d.Snapshot) + ")" + streams
	}
}

// exitLabel is "exit code N", with the hex form for codes above the i32
// range (Windows NTSTATUS), or "terminated by signal".
func exitLabel(s jobs.Snapshot) string {
	if s.ExitCode == nil {
		return "terminated by signal"
	}
	if code := *s.ExitCode; code > 1<<31-1 {
		return fmt.Sprintf("exit code %d (0x%08X)", code, code)
	}
	return fmt.Sprintf("exit code %d", *s.ExitCode)
}

// metadata is the receipt of a run or wait (never shown to the model).
func metadata(d jobs.Delta) map[string]any {
	var exit any
	if d.ExitCode != nil {
		exit = *d.ExitCode
	}
	summary := jobs.Summary(d.Stderr.Content)
	if summary == "" {
		summary = jobs.Summary(d.Stdout.Content)
	}
	m := map[string]any{
		"exit_code": exit, "status": string(d.Status), "duration_ms": d.Elapsed.Milliseconds(), "task_id": d.ID,
		"command": d.Command, "stdout_len": d.Stdout.Len, "stderr_len": d.Stderr.Len,
		"stdout_truncated": d.Stdout.Truncated, "stderr_truncated": d.Stderr.Truncated,
		"stdout_omitted": d.Stdout.Omitted, "stderr_omitted": d.Stderr.Omitted, "summary": summary,
		"sandboxed": d.Sandboxed, "sandbox_type": d.SandboxType, "backgrounded": d.Background,
	}
	if d.Denial != nil {
		m["sandbox_denied"] = map[string]any{"path": d.Denial.Path, "reason": d.Denial.Reason}
	}
	return m
}

func clamp(d, lo, hi time.Duration) time.Duration { return min(max(d, lo), hi) }

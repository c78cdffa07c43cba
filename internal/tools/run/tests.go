package run

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/budget"
)

// testReport is the content of `tests` (field order is the JSON order).
type testReport struct {
	Success            bool      `json:"success"`
	ExitCode           *int      `json:"exit_code"`
	Status             string    `json:"status"`
	Command            string    `json:"command"`
	Ecosystem          string    `json:"ecosystem"`
	Passed             *int      `json:"passed,omitempty"`
	Failed             *int      `json:"failed,omitempty"`
	Skipped            *int      `json:"skipped,omitempty"`
	Failures           []failure `json:"failures,omitempty"`
	FailuresOmitted    int       `json:"failures_omitted,omitempty"`
	FailuresUnlisted   int       `json:"failures_unlisted,omitempty"`
	DurationMS         int64     `json:"duration_ms"`
	TaskID             string    `json:"task_id"`
	Error              string    `json:"error,omitempty"`
	Stdout             string    `json:"stdout"`
	Stderr             string    `json:"stderr"`
	StdoutTruncated    bool      `json:"stdout_truncated"`
	StderrTruncated    bool      `json:"stderr_truncated"`
	StdoutOmittedChars int       `json:"stdout_omitted_chars,omitempty"`
	StderrOmittedChars int       `json:"stderr_omitted_chars,omitempty"`
}

// tests runs r, the runner detected in the workspace (ok false: none).
func (t *Tool) tests(ctx context.Context, tc *tools.Context, in input, r runner, ok bool) (tools.Result, error) {
	ws := tc.Workspace
	if !ok {
		return tools.Result{}, tools.ExecutionFailed("No test runner detected in %s: looked for go.mod, Cargo.toml, a "+
			"package.json \"test\" script, a pytest configuration or test_*.py files, and a Makefile \"test\" target. "+
			"Configure the project's test command (test_command in the codewhale configuration), or run the tests with Bash.", ws)
	}
	if in.allFeatures && r.ecosystem != "cargo" {
		return tools.Result{}, tools.InvalidInput("all_features applies only to Cargo workspaces; this one runs its tests with %s", r.display())
	}
	if r.program != "" {
		if _, err := exec.LookPath(r.program); err != nil {
			return tools.Result{}, tools.NotAvailable("%s is not installed or not in PATH", r.program)
		}
	}
	p := r.newParser()
	f := newFeed(p)
	stdout, stderr := newHeadText(testStreamChars), newHeadText(testStreamChars)
	spec := jobs.Spec{Command: r.display(), Program: r.program, Args: r.args, Dir: ws, Timeout: t.opts.TestTimeout,
		Stdout: io.MultiWriter(f.out, stdout), Stderr: io.MultiWriter(f.err, stderr), Sandbox: tc.Sandbox}
	if r.shell != "" {
		spec.Program, spec.Args = "", nil
	}
	m := t.opts.Jobs
	j, err := m.Start(spec)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("Failed to start %s: %v", r.display(), err)
	}
	if m.Await(ctx, j) {
		return jsonResult(map[string]any{"success": false, "status": "Running", "task_id": j.ID(),
			"command": "(cd " + ws + " && " + r.display() + ")", "ecosystem": r.ecosystem,
			"note": "The test run was moved to /jobs and keeps running; use Bash action=\"wait\" with this task_id for its output."},
			false, map[string]any{"task_id": j.ID(), "status": "Running"}), nil
	}
	d, err := m.Wait(context.Background(), j.ID(), 0, jobs.ModelReader)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("%v", err)
	}
	rep := testReport{Success: d.Status == jobs.Completed, ExitCode: d.ExitCode, Status: string(d.Status),
		Command: "(cd " + ws + " && " + r.display() + ")", Ecosystem: r.ecosystem,
		DurationMS: d.Elapsed.Milliseconds(), TaskID: j.ID()}
	rep.addCounts(f.report())
	out := stdout.capped()
	if gp, ok := p.(*goParser); ok {
		out = gp.text.capped()
	}
	errs := stderr.capped()
	rep.Stdout, rep.StdoutTruncated, rep.StdoutOmittedChars = out.Text, out.Truncated, out.Omitted
	rep.Stderr, rep.StderrTruncated, rep.StderrOmittedChars = errs.Text, errs.Truncated, errs.Omitted
	switch d.Status {
	case jobs.TimedOut:
		rep.Error = "The test run timed out after " + t.opts.TestTimeout.String() + " and was killed."
	case jobs.Killed:
		rep.Error = "The test run was canceled and killed."
	}
	if d.Denial != nil {
		rep.Error = "[sandbox] " + d.Denial.Note
	}
	res := jsonResult(rep, rep.Success, map[string]any{"task_id": j.ID(), "status": string(d.Status),
		"ecosystem": r.ecosystem, "duration_ms": rep.DurationMS})
	res.Content = rep.fitted(tc.ResultBudget(), res.Content)
	return res, nil
}

// addCounts fills the counts and the failure list so that they agree:
// failed is always the failures listed plus failures_omitted (past the list's
// cap) plus failures_unlisted (counted by the runner but not named in its
// output). A listed failure the runner's summary did not count (a suite that
// failed to load) is a failure all the same.
func (r *testReport) addCounts(c counts) {
	if c.Known {
		switch listed := len(c.Failures); {
		case c.Failed > listed:
			r.FailuresUnlisted = c.Failed - listed
		case c.Failed < listed:
			c.Failed = listed
		}
		r.Passed, r.Failed, r.Skipped = &c.Passed, &c.Failed, &c.Skipped
	}
	if len(c.Failures) > maxFailures {
		r.FailuresOmitted = len(c.Failures) - maxFailures
		c.Failures = c.Failures[:maxFailures]
	}
	r.Failures = c.Failures
}

// Within a budget the failures come first: a report too long for it gets
// its output streams cut to a fifth of the budget each and excerpts to
// fittedExcerpt characters (head and tail), then lists as many failures as
// fit, the rest counted in failures_omitted, so failed still equals the
// list plus failures_omitted plus failures_unlisted.
const fittedExcerpt = 1000

func (r testReport) fitted(chars int, full string) string {
	if budget.Runes(full) <= chars {
		return full
	}
	cut := func(s string, n int, omitted *int) string {
		out := budget.Text(s, n)
		if out != s {
			*omitted += budget.Runes(s) - budget.Runes(out)
		}
		return out
	}
	r.Stdout = cut(r.Stdout, chars/5, &r.StdoutOmittedChars)
	r.Stderr = cut(r.Stderr, chars/5, &r.StderrOmittedChars)
	r.StdoutTruncated = r.StdoutTruncated || r.StdoutOmittedChars > 0
	r.StderrTruncated = r.StderrTruncated || r.StderrOmittedChars > 0
	failures := make([]failure, len(r.Failures))
	for i, f := range r.Failures {
		f.Output = budget.Text(f.Output, fittedExcerpt)
		failures[i] = f
	}
	omitted := r.FailuresOmitted
	text, _ := budget.Prefix(len(failures), chars, func(k int) string {
		r.Failures, r.FailuresOmitted = failures[:k], omitted+len(failures)-k
		raw, _ := json.Marshal(r)
		return string(raw)
	})
	return text
}

package run

import (
	"context"
	"fmt"
	"os/exec"
	"sort"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/tools"
)

// gateTimeout bounds each gate, foreground or background.
const gateTimeout = 600 * time.Second

// gateResult is one gate of the foreground envelope.
type gateResult struct {
	Name            string  `json:"name"`
	Ecosystem       string  `json:"ecosystem"`
	Status          string  `json:"status"` // passed | failed | skipped
	Command         string  `json:"command"`
	Cwd             string  `json:"cwd"`
	ExitCode        *int    `json:"exit_code"`
	DurationMS      int64   `json:"duration_ms"`
	Stdout          string  `json:"stdout"`
	Stderr          string  `json:"stderr"`
	StdoutTruncated bool    `json:"stdout_truncated"`
	StderrTruncated bool    `json:"stderr_truncated"`
	SkippedReason   *string `json:"skipped_reason"`
}

type envelope struct {
	Success         bool         `json:"success"`
	Profile         string       `json:"profile"`
	Level           string       `json:"level"`
	Workspace       string       `json:"workspace"`
	GateCount       int          `json:"gate_count"`
	Passed          int          `json:"passed"`
	Failed          int          `json:"failed"`
	Skipped         int          `json:"skipped"`
	VerifierVerdict string       `json:"verifier_verdict"`
	HuntVerdict     string       `json:"hunt_verdict"`
	GoalStatus      string       `json:"goal_status"`
	Summary         string       `json:"summary"`
	Gates           []gateResult `json:"gates"`
}

func (t *Tool) verifiers(ctx context.Context, tc *tools.Context, in input) (tools.Result, error) {
	gates, err := t.detectGates(tc, in)
	if err != nil {
		return tools.Result{}, err
	}
	sort.Slice(gates, func(a, b int) bool { return gates[a].name < gates[b].name })
	for i := range gates {
		if gates[i].skipReason == "" && gates[i].ecosystem != "custom" {
			if _, err := exec.LookPath(gates[i].program); err != nil {
				gates[i].skipReason = fmt.Sprintf("%s is not installed or not in PATH", gates[i].program)
			}
		}
	}
	if in.background {
		return t.startGates(tc, in, gates), nil
	}
	results := make([]gateResult, len(gates))
	var wg sync.WaitGroup
	for i, g := range gates {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = t.runGate(ctx, tc.Sandbox, g) }()
	}
	wg.Wait()
	env := envelope{Profile: in.profile, Level: in.level, Workspace: tc.Workspace, GateCount: len(gates), Gates: results}
	env.judge()
	return jsonResult(env, env.Success, map[string]any{"verifier_verdict": env.VerifierVerdict, "gate_count": env.GateCount}), nil
}

// runGate runs one gate to completion as a job.
func (t *Tool) runGate(ctx context.Context, sb *sandbox.Sandbox, g gate) gateResult {
	r := gateResult{Name: g.name, Ecosystem: g.ecosystem, Command: g.command(), Cwd: g.dir}
	if g.skipReason != "" {
		r.Status, r.SkippedReason = "skipped", &g.skipReason
		return r
	}
	out, errs := newHeadText(gateStreamChars), newHeadText(gateStreamChars)
	m := t.opts.Jobs
	args, env := g.invocation(ctx)
	j, err := m.Start(jobs.Spec{Command: r.Command, Program: g.program, Args: args, Env: env, Dir: g.dir,
		Timeout: gateTimeout, Stdout: out, Stderr: errs, Sandbox: sb})
	if err != nil {
		r.Status, r.Stderr = "failed", fmt.Sprintf("failed to start: %v", err)
		return r
	}
	// The envelope needs every gate's verdict, even one the user moved to
	// /jobs, so keep waiting unless the turn ends.
	m.AwaitEnd(ctx, j)
	snap, _ := m.Snapshot(j.ID())
	r.ExitCode, r.DurationMS = snap.ExitCode, snap.ElapsedMS
	r.Status = "failed"
	if snap.Status == jobs.Completed {
		r.Status = "passed"
	}
	o, e := out.capped(), errs.capped()
	r.Stdout, r.StdoutTruncated, r.Stderr, r.StderrTruncated = o.Text, o.Truncated, e.Text, e.Truncated
	if snap.Status == jobs.TimedOut {
		r.Stderr += fmt.Sprintf("\n[gate timed out after %dms; process killed]", gateTimeout.Milliseconds())
	}
	if snap.Denial != nil {
		r.Stderr += "\n[sandbox] " + snap.Denial.Note
	}
	return r
}

// judge counts the gates and sets the verdicts and summary (CONTRACT.md §6.4).
func (e *envelope) judge() {
	for _, g := range e.Gates {
		switch g.Status {
		case "passed":
			e.Passed++
		case "failed":
			e.Failed++
		default:
			e.Skipped++
		}
	}
	switch {
	case e.Failed > 0:
		e.VerifierVerdict, e.HuntVerdict, e.GoalStatus = "fail", "escaped", "blocked"
	case e.Skipped > 0 || e.GateCount == 0:
		e.VerifierVerdict, e.HuntVerdict, e.GoalStatus = "partial", "wounded", "paused"
	default:
		e.VerifierVerdict, e.HuntVerdict, e.GoalStatus = "pass", "hunted", "complete"
	}
	e.Success = e.Failed == 0 && e.Skipped == 0 && e.GateCount > 0
	switch {
	case e.GateCount == 0:
		e.Summary = "No verifier gates were detected. Provide custom commands or choose a profile that matches this workspace."
	case e.Success:
		e.Summary = fmt.Sprintf("All %d verifier gates passed.", e.GateCount)
	default:
		e.Summary = fmt.Sprintf("%d passed, %d failed, %d skipped.", e.Passed, e.Failed, e.Skipped)
	}
}

// gateJob is one gate of the background envelope.
type gateJob struct {
	Name          string  `json:"name"`
	Ecosystem     string  `json:"ecosystem"`
	Status        string  `json:"status"` // started | skipped | failed_to_start
	Command       string  `json:"command"`
	Cwd           string  `json:"cwd"`
	TaskID        *string `json:"task_id"`
	SkippedReason *string `json:"skipped_reason"`
	Error         *string `json:"error"`
}

type backgroundEnvelope struct {
	Success       bool      `json:"success"`
	Profile       string    `json:"profile"`
	Level         string    `json:"level"`
	Workspace     string    `json:"workspace"`
	Background    bool      `json:"background"`
	GateCount     int       `json:"gate_count"`
	Started       int       `json:"started"`
	Skipped       int       `json:"skipped"`
	FailedToStart int       `json:"failed_to_start"`
	Summary       string    `json:"summary"`
	Jobs          []gateJob `json:"jobs"`
}

// startGates starts each gate as a background job with the gate timeout;
// completions reach the model through the job manager's finished report.
func (t *Tool) startGates(tc *tools.Context, in input, gates []gate) tools.Result {
	env := backgroundEnvelope{Profile: in.profile, Level: in.level, Workspace: tc.Workspace, Background: true,
		GateCount: len(gates), Jobs: []gateJob{}}
	for _, g := range gates {
		job := gateJob{Name: g.name, Ecosystem: g.ecosystem, Command: g.command(), Cwd: g.dir}
		switch j, err := t.startGate(tc.Sandbox, g); {
		case g.skipReason != "":
			job.Status, job.SkippedReason = "skipped", &g.skipReason
			env.Skipped++
		case err != nil:
			msg := err.Error()
			job.Status, job.Error = "failed_to_start", &msg
			env.FailedToStart++
		default:
			id := j.ID()
			job.Status, job.TaskID = "started", &id
			env.Started++
		}
		env.Jobs = append(env.Jobs, job)
	}
	env.Success = env.Started > 0 && env.FailedToStart == 0
	if env.GateCount == 0 {
		env.Summary = "No verifier gates were detected. Provide custom commands or choose a profile that matches this workspace."
	} else {
		env.Summary = fmt.Sprintf("Started %d verifier gates as background jobs (%d skipped, %d failed to start). "+
			"Their completions arrive as runtime events; use Bash action=\"wait\" with a task_id for a gate's output.",
			env.Started, env.Skipped, env.FailedToStart)
	}
	return jsonResult(env, env.Success, map[string]any{"background": true, "started": env.Started})
}

func (t *Tool) startGate(sb *sandbox.Sandbox, g gate) (*jobs.Job, error) {
	if g.skipReason != "" {
		return nil, nil
	}
	args, env := g.invocation(context.Background())
	return t.opts.Jobs.Start(jobs.Spec{Command: g.command(), Program: g.program, Args: args, Env: env, Dir: g.dir,
		Timeout: gateTimeout, Background: true, Sandbox: sb})
}

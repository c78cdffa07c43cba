package tasks

import (
	"context"
	"path/filepath"
	"time"

	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// gateVerdict classifies a gate_run command in its directory under the
// workspace, for the call's policy; the run classifies it again in the
// directory it resolved.
func (t *Tool) gateVerdict(command, cwd string) shellpolicy.Verdict {
	dir := t.commands().Workspace
	if cwd != "" {
		dir = filepath.Join(dir, cwd)
	}
	return t.commands().Classify(command, dir)
}

func (t *Tool) commands() *shellpolicy.Env {
	if t.opts.Commands != nil {
		return t.opts.Commands
	}
	return &shellpolicy.Env{Workspace: t.opts.Workspace}
}

// gateRun runs a verification command and records structured evidence: a
// gate record, a log artifact, and (inside a durable task) both attached to
// that task. A command the classifier calls dangerous never runs.
func (t *Tool) gateRun(ctx context.Context, tc *tools.Context, d *tools.Decoded[contract]) (tools.Result, error) {
	gate, command, timeout := d.In.Gate, d.In.Command, gateTimeout(d)
	if tc == nil || tc.Workspace == "" {
		tc = &tools.Context{Workspace: t.opts.Workspace}
	}
	cwd, err := gateCwd(tc, d.In.Cwd)
	if err != nil {
		return tools.Result{}, err
	}
	if v := t.commands().Classify(command, cwd); v.Class == shellpolicy.Blocked {
		res := tools.Failed("BLOCKED: gate command classified dangerous: " + v.Reason())
		res.Metadata = map[string]any{"safety_level": "dangerous", "blocked": true, "reasons": v.Reasons, "command": command}
		return res, nil
	}
	if t.opts.Jobs == nil {
		return tools.Result{}, tools.ExecutionFailed("gate_run needs the session's job manager, which this host did not attach; run the command with Bash instead")
	}
	run := runGate(ctx, t.opts.Jobs, tc.Sandbox, command, cwd, timeout)
	if ctx.Err() != nil && !run.timedOut {
		return tools.Result{}, tools.Cancelled("gate_run cancelled; the command was stopped")
	}
	rec := Gate{ID: newGateID(), Gate: gate, Command: command, Cwd: cwd, ExitCode: run.exitCode,
		Status: run.status(), Classification: classify(gate, run), DurationMS: run.duration.Milliseconds(),
		Summary: run.summary(), RecordedAt: time.Now().UTC()}
	meta := map[string]any{"command": command, "cwd": cwd, "exit_code": run.exitCode,
		"duration_ms": rec.DurationMS, "timed_out": run.timedOut}
	t.recordGate(ctx, &rec, run, meta)
	content := map[string]any{"gate": rec, "stdout_summary": Summarize(run.stdout, maxSummaryChars),
		"stderr_summary": Summarize(run.stderr, maxSummaryChars)}
	res := jsonResult(content, rec.Status == "passed")
	res.Metadata = meta
	return res, nil
}

// gateTimeout is the call's timeout_ms (bounded by the schema), or the
// default.
func gateTimeout(d *tools.Decoded[contract]) time.Duration {
	ms := defaultGateTimeout
	if d.Has("timeout_ms") {
		ms = min(max(d.In.TimeoutMS, minGateTimeout), maxGateTimeout)
	}
	return time.Duration(ms) * time.Millisecond
}

// recordGate writes the log artifact and, inside a durable task, attaches
// the gate to it. Failures to record are reported in metadata, not hidden.
func (t *Tool) recordGate(ctx context.Context, rec *Gate, run gateRun, meta map[string]any) {
	store := t.opts.Store
	if store == nil {
		meta["artifact_warning"] = "no task store attached; the gate log was not saved"
		return
	}
	owner := t.opts.ActiveTaskID
	if owner == "" {
		owner = TaskIDFrom(ctx)
	}
	path, err := store.WriteArtifact(owner, "gate", run.log(rec.Command))
	if err != nil {
		meta["artifact_warning"] = "saving the gate log failed: " + err.Error()
		return
	}
	rec.LogPath = path
	meta["artifact_path"] = path
	art := Artifact{Label: "gate_log", Path: path, Summary: Summarize(rec.Summary, 240), CreatedAt: rec.RecordedAt}
	meta["task_updates"] = map[string]any{"gate": *rec, "artifacts": []Artifact{art}}
	if owner != "" {
		if err := store.RecordGate(owner, *rec, &art); err != nil {
			meta["task_warning"] = "attaching the gate to task " + owner + " failed: " + err.Error()
		} else {
			meta["task_id"] = owner
		}
	}
}

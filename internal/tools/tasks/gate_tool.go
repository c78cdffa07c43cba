package tasks

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// gateVerdict classifies a gate_run call's command in its directory; ok is
// false when the input has no command.
func (t *Tool) gateVerdict(in json.RawMessage) (shellpolicy.Verdict, bool) {
	var a struct{ Command, Cwd string }
	if json.Unmarshal(in, &a) != nil || a.Command == "" {
		return shellpolicy.Verdict{}, false
	}
	dir := t.commands().Workspace
	if a.Cwd != "" {
		dir = filepath.Join(dir, a.Cwd)
	}
	return t.commands().Classify(a.Command, dir), true
}

func (t *Tool) commands() *shellpolicy.Env {
	if t.opts.Commands != nil {
		return t.opts.Commands
	}
	return &shellpolicy.Env{Workspace: t.opts.Workspace}
}

func gateKind(g string) bool {
	switch g {
	case "fmt", "check", "clippy", "test", "custom":
		return true
	}
	return false
}

// gateRun runs a verification command and records structured evidence: a
// gate record, a log artifact, and (inside a durable task) both attached to
// that task. A command the classifier calls dangerous never runs.
func (t *Tool) gateRun(ctx context.Context, tc *tools.Context, args tools.Args) (tools.Result, error) {
	gate, command, cwdRaw, timeout, err := gateArgs(args)
	if err != nil {
		return tools.Result{}, err
	}
	if tc == nil || tc.Workspace == "" {
		tc = &tools.Context{Workspace: t.opts.Workspace}
	}
	cwd, err := gateCwd(tc, cwdRaw)
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

func gateArgs(args tools.Args) (gate, command, cwd string, timeout time.Duration, err error) {
	if gate, err = args.RequireString("gate"); err != nil {
		return
	}
	if !gateKind(gate) {
		err = tools.InvalidInput("gate must be one of fmt, check, clippy, test, custom; got %q", gate)
		return
	}
	if command, err = args.RequireString("command"); err != nil {
		return
	}
	if strings.TrimSpace(command) == "" {
		err = tools.InvalidInput("command is empty; pass the gate command to run")
		return
	}
	if cwd, _, err = args.String("cwd"); err != nil {
		return
	}
	ms, ok, err := args.Int("timeout_ms")
	if !ok {
		ms = defaultGateTimeout
	}
	return gate, command, cwd, time.Duration(min(max(ms, minGateTimeout), maxGateTimeout)) * time.Millisecond, err
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

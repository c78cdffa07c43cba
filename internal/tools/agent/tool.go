package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools"
)

// Tool is the `agent` tool.
type Tool struct {
	tools.Spec
	m         *Manager
	forkState func() string
	types     *Types // the session's defined types as this turn's registry was built
	auth      *Authority
}

// Authority is what the turn that starts a child holds (CONTRACT.md §6.5):
// its posture, shell and trust as they are now, after any narrowing; a
// child it starts gets no more.
type Authority = posture.Authority

// Within bounds the children this turn's tool starts by a (the toolset
// passes the turn's own authority); without it they get the session's as
// configured.
func (t *Tool) Within(a Authority) *Tool {
	t.auth = &a
	return t
}

// New returns the agent tool over m; forkState renders the parent's To-do
// for forked children (nil: forking shares nothing).
func New(m *Manager, forkState func() string) *Tool {
	t := &Tool{m: m, forkState: forkState, Spec: tools.Spec{
		ToolName: toolName,
		Desc: "Dispatch one focused sub-agent run (own history, own To-do, tools narrowed to its role) and get an id, " +
			"a compact receipt and a transcript handle at once; it keeps running in the background and its result arrives " +
			"as a runtime event. Use the smallest useful fan-out; status/peek/wait/cancel manage running children.",
		Caps:        []tools.Capability{tools.CapExecutesCode, tools.CapRequiresApproval},
		Approve:     tools.Required,
		StartDetach: true,
	}, types: m.types()}
	t.SchemaFunc = t.schema
	return t
}

// schema is the published schema: the built-in one, or with the session's
// defined types in `type` — memoised per set of types, so the tools field
// is the same bytes on every request while the definitions are unchanged.
func (t *Tool) schema() map[string]any {
	if t.types == nil || len(t.types.list) == 0 {
		return params.Schema()
	}
	r := t.m.root()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.schemaKey != t.types.key {
		r.schemaKey, r.schemaVal = t.types.key, t.types.schemaWith(params.Schema())
	}
	return r.schemaVal
}

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3) and decides its
// policy from the decoded value (policyOf); the bound run never reads the
// raw input again.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := decode(raw)
	if err != nil {
		return nil, err
	}
	if d.Has("type") && !t.types.known(d.In.Type) {
		return nil, tools.Validate(toolName, t.schema(), d.Input())
	}
	if ty, ok := t.types.Lookup(d.In.Type); ok && d.Action == "start" && ty.Untrusted != "" {
		return nil, tools.PermissionDenied("sub-agent type %s %s", ty.Name, ty.Untrusted)
	}
	return tools.NewCall(d.Input(), policyOf(d, t.types), func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		res, err := t.run(ctx, tc, d)
		return tools.Sized(res, err, tc, "read the full transcript with handle_read on the returned handle")
	}), nil
}

// Execute decodes and runs one call (tools.Execute).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

func (t *Tool) run(ctx context.Context, tc *tools.Context, d *tools.Decoded[contract]) (tools.Result, error) {
	action, in := d.Action, d.In
	switch action {
	case "start":
		return t.start(tc, in)
	case "wait":
		return t.wait(ctx, d)
	case "cleanup":
		return t.cleanup(ctx, tc)
	}
	if in.AgentID == "" { // status without a target: every child
		return jsonResult(map[string]any{"agents": compactList(t.m.List())}, map[string]any{"action": action})
	}
	c, err := t.m.Get(in.AgentID)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("%v", err)
	}
	switch action {
	case "status":
		s := c.Snapshot()
		t.m.acknowledge(s)
		return jsonResult(s, map[string]any{"action": action, "agent_id": c.ID})
	case "peek":
		t.m.acknowledge(c.Snapshot())
		return t.peek(c)
	case "message", "followup":
		if err := c.Message(in.Prompt, action == "followup"); err != nil {
			return tools.Failed(err.Error()), nil
		}
		return tools.OK(fmt.Sprintf("Sent to %s (%s).", c.ID, c.Snapshot().Status)), nil
	case "interrupt":
		c.Interrupt()
		return tools.OK(fmt.Sprintf("Interrupted the current turn of %s; it keeps its history for follow-ups.", c.ID)), nil
	default: // cancel
		if !c.Cancel() {
			return tools.OK(fmt.Sprintf("%s had already finished (%s).", c.ID, c.Snapshot().Status)), nil
		}
		return tools.OK(fmt.Sprintf("Cancelled %s.", c.ID)), nil
	}
}

// start admits a child; the prompt and type were checked at Prepare. The
// child's mode never widens the session's: in Plan a built-in role that
// could write becomes planner, and a defined type that needs tools Plan
// never offers is refused.
func (t *Tool) start(tc *tools.Context, in contract) (tools.Result, error) {
	session := posture.Act
	if tc != nil {
		session = tc.Mode
	}
	spec := Spec{Prompt: in.Prompt, Name: in.AgentID, Role: in.Type, Model: in.Model, MaxSteps: in.MaxSteps,
		WallTime: time.Duration(in.WallTimeSecs) * time.Second, Authority: t.auth}
	spec.Type, _ = t.types.Lookup(in.Type)
	mode, err := childMode(session, in.Type, spec.Type)
	if err != nil {
		return tools.Result{}, err
	}
	spec.Mode = mode
	if spec.Type == nil && mode == posture.Plan && !ReadOnlyRole(spec.Role) {
		spec.Role = "planner"
	}
	if spec.Type != nil && spec.Model == "" {
		spec.Model = spec.Type.Model
	}
	if in.ForkContext && t.forkState != nil {
		spec.Fork = t.forkState()
	}
	if in.Worktree {
		if tc == nil || tc.Workspace == "" {
			return tools.Result{}, tools.NotAvailable("worktree: true needs the session's workspace")
		}
		spec.Worktree = &WorktreeRequest{Workspace: tc.Workspace, Branch: in.WorktreeBranch, Base: in.WorktreeBase}
	}
	c, err := t.m.Start(spec)
	var te *tools.Error
	if errors.As(err, &te) {
		return tools.Result{}, te
	}
	if err != nil {
		return tools.Failed(err.Error()), nil
	}
	return t.receipt(c, in.ForkContext, in.Verbose)
}

// cleanup removes the finished children's worktrees.
func (t *Tool) cleanup(ctx context.Context, tc *tools.Context) (tools.Result, error) {
	if tc == nil || tc.Workspace == "" {
		return tools.Result{}, tools.NotAvailable("agent cleanup needs the session's workspace")
	}
	rep, err := t.m.CleanupWorktrees(ctx, tc.Workspace)
	if err != nil {
		return tools.Failed(err.Error()), nil
	}
	res, err := jsonResult(rep, map[string]any{"action": "cleanup", "removed": len(rep.Removed)})
	if len(rep.Kept) > 0 {
		res.Success = false // a worktree asked to go is still there
	}
	return res, err
}

func (t *Tool) receipt(c *Child, fork, verbose bool) (tools.Result, error) {
	s := c.Snapshot()
	mode := "fresh"
	if fork {
		mode = "forked"
	}
	r := map[string]any{"name": s.Name, "agent_id": s.ID, "run_id": "run_" + randomHex(4), "status": s.Status,
		"terminal": s.Terminal, "type": s.Role, "context_mode": mode, "fork_context": fork,
		"prefix_cache": map[string]any{"mode": mode}, "transcript_handle": s.Transcript,
		"follow_up": map[string]any{"wait": map[string]any{"action": "wait", "agent_id": s.ID},
			"peek": map[string]any{"action": "peek", "agent_id": s.ID}, "read_transcript": map[string]any{"tool": "handle_read", "session_id": s.Transcript.SessionID}},
		"usage":   map[string]any{"input_tokens": s.Usage.InputTokens, "output_tokens": s.Usage.OutputTokens},
		"model":   s.Model,
		"compact": !verbose, "compact_note": "The child runs in the background; its result arrives as a <codewhale:subagent.done> runtime event. Poll only at a true dependency."}
	if verbose {
		r["prompt"] = s.Prompt
	}
	if s.Worktree != nil {
		r["worktree"] = map[string]any{"path": s.Worktree.Path, "branch": s.Worktree.Branch, "base": s.Worktree.Base}
	}
	res, err := jsonResult(r, nil)
	res.Metadata = map[string]any{"action": "start", "agent_id": s.ID, "status": s.Status, "terminal": s.Terminal,
		"context_mode": mode, "prefix_cache": mode}
	return res, err
}

func (t *Tool) wait(ctx context.Context, d *tools.Decoded[contract]) (tools.Result, error) {
	timeout := defaultWaitTimeout
	if d.Has("timeout_secs") {
		timeout = min(max(time.Duration(d.In.TimeoutSecs)*time.Second, minWaitTimeout), maxWaitTimout)
	}
	var ids []string
	if ref := d.In.AgentID; ref != "" {
		c, err := t.m.Get(ref)
		if err != nil {
			return tools.Result{}, tools.ExecutionFailed("%v", err)
		}
		ids = []string{c.ID}
	}
	snaps, settled := t.m.Wait(ctx, ids, d.In.Until, timeout)
	t.m.acknowledge(snaps...)
	return jsonResult(map[string]any{"settled": settled, "timed_out": !settled && ctx.Err() == nil,
		"agents": compactList(snaps)}, map[string]any{"action": "wait"})
}

func (t *Tool) peek(c *Child) (tools.Result, error) {
	s := c.Snapshot()
	text, _ := t.m.Transcript(c.ID)
	tail := []rune(text)
	if len(tail) > 2000 {
		tail = append([]rune("…"), tail[len(tail)-2000:]...)
	}
	return jsonResult(map[string]any{"agent_id": s.ID, "status": s.Status, "steps": s.Steps, "result": s.Result,
		"transcript_tail": string(tail), "transcript_handle": s.Transcript}, map[string]any{"action": "peek"})
}

func compactList(snaps []Snapshot) []map[string]any {
	out := make([]map[string]any, 0, len(snaps))
	for _, s := range snaps {
		m := map[string]any{"agent_id": s.ID, "type": s.Role, "status": s.Status, "terminal": s.Terminal, "steps": s.Steps}
		if s.Result != "" {
			m["result"] = truncateRunes(s.Result, 600)
		}
		if s.Error != "" {
			m["error"] = s.Error
		}
		if wt := s.Worktree; wt != nil {
			m["worktree"] = map[string]any{"branch": wt.Branch, "diff_stat": wt.DiffStat, "merge": wt.Merge}
			if wt.Error != "" {
				m["worktree"].(map[string]any)["error"] = wt.Error
			}
		}
		out = append(out, m)
	}
	return out
}

func jsonResult(v any, meta map[string]any) (tools.Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("encoding the agent result: %v", err)
	}
	res := tools.OK(string(b))
	res.Metadata = meta
	return res, nil
}

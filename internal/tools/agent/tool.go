package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/policy"
	"github.com/codewhale/codewhale/internal/tools"
)

var actions = []string{"start", "status", "peek", "message", "followup", "interrupt", "wait", "cancel"}

var synonyms = map[string]string{"spawn": "start", "run": "start", "list": "status", "inspect": "status",
	"progress": "peek", "queue_message": "message", "follow_up": "followup", "steer": "followup",
	"pause": "interrupt", "join": "wait", "await": "wait", "block": "wait", "stop": "cancel", "abort": "cancel"}

var roles = []any{"worker", "scout", "planner", "reviewer", "builder", "verifier", "consultant", "custom"}

// fieldAliases fold onto canonical fields.
var fieldAliases = map[string]string{"op": "action", "message": "prompt", "objective": "prompt", "id": "agent_id",
	"session_name": "agent_id", "name": "agent_id"}

var allowedFields = map[string]bool{"action": true, "prompt": true, "agent_id": true, "type": true, "model": true,
	"max_steps": true, "wall_time_secs": true, "fork_context": true, "until": true, "timeout_secs": true,
	"verbose": true, "reason": true}

func schema() map[string]any {
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	return map[string]any{"type": "object", "properties": map[string]any{
		"action":         map[string]any{"type": "string", "enum": toAny(actions), "description": "Default start."},
		"prompt":         str("start: the child's task, self-contained; message/followup: the text to send."),
		"agent_id":       str("Target of non-start actions (id, name or unique prefix). For start: an optional name."),
		"type":           map[string]any{"type": "string", "enum": roles, "description": "Role. scout/planner/reviewer/verifier/consultant run read-only."},
		"model":          str("Model for the child (default: the session's model)."),
		"max_steps":      map[string]any{"type": "integer", "minimum": 0, "maximum": 2000},
		"wall_time_secs": map[string]any{"type": "integer", "minimum": 1, "maximum": 86400},
		"fork_context":   map[string]any{"type": "boolean", "description": "Give the child the parent's current To-do."},
		"until":          map[string]any{"type": "string", "enum": []any{"completion", "all", "activity"}},
		"timeout_secs":   map[string]any{"type": "integer", "minimum": 5, "maximum": 120},
		"verbose":        map[string]any{"type": "boolean"},
		"reason":         str("Why (cancel, interrupt)."),
	}}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Tool is the `agent` tool.
type Tool struct {
	tools.Spec
	m         *Manager
	forkState func() string
}

// New returns the agent tool over m; forkState renders the parent's To-do
// for forked children (nil: forking shares nothing).
func New(m *Manager, forkState func() string) *Tool {
	return &Tool{m: m, forkState: forkState, Spec: tools.Spec{
		ToolName: "agent",
		Desc: "Dispatch one focused sub-agent run (own history, own To-do, tools narrowed to its role) and get an id, " +
			"a compact receipt and a transcript handle at once; it keeps running in the background and its result arrives " +
			"as a runtime event. Use the smallest useful fan-out; status/peek/wait/cancel manage running children.",
		Schema:      schema(),
		Caps:        []tools.Capability{tools.CapExecutesCode, tools.CapRequiresApproval},
		Approve:     tools.Required,
		StartDetach: true,
	}}
}

// normalize folds aliases and the action synonyms; it rejects unknown keys.
func normalize(in json.RawMessage) (tools.Args, string, error) {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return nil, "", err
	}
	for alias, canon := range fieldAliases {
		if v, ok := args[alias]; ok {
			if _, dup := args[canon]; !dup {
				args[canon] = v
			}
			delete(args, alias)
		}
	}
	for _, k := range args.Keys() {
		if !allowedFields[k] {
			return nil, "", tools.InvalidInput("unknown agent field `%s`; supported fields: action, prompt, agent_id, type, model, "+
				"max_steps, wall_time_secs, fork_context, until, timeout_secs, verbose, reason", k)
		}
	}
	action := "start"
	if raw, ok := args["action"]; ok {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(raw)
		}
		action = strings.ToLower(strings.TrimSpace(s))
		if syn, ok := synonyms[action]; ok {
			action = syn
		}
	}
	for _, a := range actions {
		if a == action {
			b, _ := json.Marshal(action)
			args["action"] = b
			return args, action, nil
		}
	}
	raw, _, _ := args.String("action")
	return nil, "", tools.InvalidInput("Invalid agent action '%s'. Use start, status, peek, message, followup, interrupt, wait, or cancel.", raw)
}

// NormalizeInput gives the exact action error before schema validation.
func (t *Tool) NormalizeInput(in json.RawMessage) (json.RawMessage, error) {
	args, _, err := normalize(in)
	if err != nil {
		return nil, err
	}
	return args.Marshal(), nil
}

func (t *Tool) actionOf(in json.RawMessage) (tools.Args, string) {
	args, action, err := normalize(in)
	if err != nil {
		return tools.Args{}, "status"
	}
	return args, action
}

// ApprovalFor: status, peek and wait are Auto; so is a start of a read-only
// role; everything else needs approval.
func (t *Tool) ApprovalFor(in json.RawMessage) tools.Approval {
	args, action := t.actionOf(in)
	switch action {
	case "status", "peek", "wait":
		return tools.Auto
	case "start":
		role, _, _ := args.String("type")
		if ReadOnlyRole(role) {
			return tools.Auto
		}
	}
	return tools.Required
}

// ReadOnlyFor is true for the inspection actions.
func (t *Tool) ReadOnlyFor(in json.RawMessage) bool {
	_, action := t.actionOf(in)
	return action == "status" || action == "peek" || action == "wait"
}

// ParallelSafeFor matches ReadOnlyFor.
func (t *Tool) ParallelSafeFor(in json.RawMessage) bool { return t.ReadOnlyFor(in) }

// StartsDetachedFor is true for start: it returns before the child runs.
func (t *Tool) StartsDetachedFor(in json.RawMessage) bool {
	_, action := t.actionOf(in)
	return action == "start"
}

// Execute runs the call and sizes its result to the call's budget
// (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	res, err := t.execute(ctx, tc, in)
	return tools.Sized(res, err, tc, "read the full transcript with handle_read on the returned handle")
}

func (t *Tool) execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	args, action, err := normalize(in)
	if err != nil {
		return tools.Result{}, err
	}
	switch action {
	case "start":
		return t.start(tc, args)
	case "wait":
		return t.wait(ctx, args)
	}
	ref, _, err := args.String("agent_id")
	if err != nil {
		return tools.Result{}, err
	}
	if ref == "" && action == "status" {
		return jsonResult(map[string]any{"agents": compactList(t.m.List())}, map[string]any{"action": action})
	}
	if ref == "" {
		return tools.Result{}, tools.MissingField("agent_id")
	}
	c, err := t.m.Get(ref)
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
		text, err := args.RequireString("prompt")
		if err != nil {
			return tools.Result{}, err
		}
		if err := c.Message(text, action == "followup"); err != nil {
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

func (t *Tool) start(tc *tools.Context, args tools.Args) (tools.Result, error) {
	prompt, err := args.RequireString("prompt")
	if err != nil {
		return tools.Result{}, err
	}
	if strings.TrimSpace(prompt) == "" {
		return tools.Result{}, tools.InvalidInput("prompt must not be empty: give the child a self-contained task")
	}
	spec := Spec{Prompt: prompt}
	if spec.Name, _, err = args.String("agent_id"); err != nil {
		return tools.Result{}, err
	}
	if spec.Role, _, err = args.String("type"); err != nil {
		return tools.Result{}, err
	}
	if tc != nil && tc.Mode == policy.Plan && !ReadOnlyRole(spec.Role) {
		spec.Role = "planner" // children started in Plan run read-only
	}
	if spec.Model, _, err = args.String("model"); err != nil {
		return tools.Result{}, err
	}
	if spec.MaxSteps, _, err = args.Uint("max_steps"); err != nil {
		return tools.Result{}, err
	}
	secs, _, err := args.Uint("wall_time_secs")
	if err != nil {
		return tools.Result{}, err
	}
	spec.WallTime = time.Duration(secs) * time.Second
	fork, _, err := args.Bool("fork_context")
	if err != nil {
		return tools.Result{}, err
	}
	if fork && t.forkState != nil {
		spec.Fork = t.forkState()
	}
	c, err := t.m.Start(spec)
	if err != nil {
		return tools.Failed(err.Error()), nil
	}
	verbose, _, _ := args.Bool("verbose")
	return t.receipt(c, fork, verbose)
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
		"compact": !verbose, "compact_note": "The child runs in the background; its result arrives as a <codewhale:subagent.done> runtime event. Poll only at a true dependency."}
	if verbose {
		r["prompt"] = s.Prompt
	}
	res, err := jsonResult(r, nil)
	res.Metadata = map[string]any{"action": "start", "agent_id": s.ID, "status": s.Status, "terminal": s.Terminal,
		"context_mode": mode, "prefix_cache": mode}
	return res, err
}

func (t *Tool) wait(ctx context.Context, args tools.Args) (tools.Result, error) {
	until, _, err := args.String("until")
	if err != nil {
		return tools.Result{}, err
	}
	secs, ok, err := args.Uint("timeout_secs")
	if err != nil {
		return tools.Result{}, err
	}
	timeout := defaultWaitTimeout
	if ok {
		timeout = min(max(time.Duration(secs)*time.Second, minWaitTimeout), maxWaitTimout)
	}
	var ids []string
	if ref, _, _ := args.String("agent_id"); ref != "" {
		c, err := t.m.Get(ref)
		if err != nil {
			return tools.Result{}, tools.ExecutionFailed("%v", err)
		}
		ids = []string{c.ID}
	}
	snaps, settled := t.m.Wait(ctx, ids, until, timeout)
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

package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"runtime/debug"
)

// Policy is how the engine treats one call, decided once from its decoded
// input. Deciding it never fails: input a tool cannot decode is refused
// before any policy is asked for.
type Policy struct {
	Approval Approval
	// Reason says why an Explicit approval is needed ("writes .git/config,
	// which decides what git runs"); the engine puts it into the refusal and
	// the approval card. Empty for other approvals.
	Reason   string
	ReadOnly bool
	// Parallel: a read-only call that may run beside other calls.
	Parallel bool
	// Detached: the call returns before its work finishes (agent start), so
	// it may run beside others too.
	Detached bool
	// Grant is the authority the call gives work that runs later without
	// the person (an automation's runs), as the tool computed it; the
	// approval card shows it. nil: the card lists the authority flags the
	// input names.
	Grant *Grant
}

// Grant is the authority a call leaves to work that runs later, in the
// words and flags an approval card shows.
type Grant struct {
	RunsWith                           string // what a run may do, in words
	AutoApprove, TrustMode, AllowShell bool
	// LoweredFrom is what the work had before this call lowered it to the
	// session's authority ("": not lowered).
	LoweredFrom string
}

// Map is g as an approval card's authority fields.
func (g *Grant) Map() map[string]any {
	m := map[string]any{"runs_with": g.RunsWith, "auto_approve": g.AutoApprove, "trust_mode": g.TrustMode,
		"allow_shell": g.AllowShell}
	if g.LoweredFrom != "" {
		m["lowered_from"] = g.LoweredFrom
	}
	return m
}

// Call is one call the registry prepared: its tool resolved by exact name,
// its input decoded once and refused there if malformed, its policy decided
// from the decoded value. The engine plans, gates, approves and runs the
// Call; nothing after Prepare reads the raw arguments again.
type Call struct {
	Tool Tool
	// Input is the canonical input (aliases folded, the action set): what
	// the schema describes and what permission rules, hooks, checkpoints and
	// the journal read.
	Input  json.RawMessage
	Policy Policy
	// Writes are the files (as the call names them) a call says, before
	// it runs, are all it will change — a File write, edit or patch — so
	// the checkpoint ahead of it need look only at those; nil when it
	// does not say (a shell command may change anything).
	Writes []string
	run    func(ctx context.Context, tc *Context) (Result, error)
}

// NewCall binds a decoded call: run executes it with the value it closed
// over, never re-reading input.
func NewCall(input json.RawMessage, p Policy, run func(ctx context.Context, tc *Context) (Result, error)) *Call {
	return &Call{Input: input, Policy: p, run: run}
}

// Run executes the call, converting a panic into ExecutionFailed. It may run
// more than once (a re-run outside the sandbox after approval).
func (c *Call) Run(ctx context.Context, tc *Context) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("tool panicked", "tool", c.Tool.Name(), "panic", p, "stack", string(debug.Stack()))
			res, err = Result{}, panicked(c.Tool.Name(), p)
		}
	}()
	return c.run(ctx, tc)
}

// Preparer is implemented by typed tools (docs/ARCHITECTURE.md §6): Prepare
// decodes the input once and returns the bound call, or the refusal with the
// contract's text. The registry does not validate a typed tool's input
// against its schema again: the decoder is at least as strict as the
// schema, which each tool's agreement test proves.
type Preparer interface {
	Prepare(in json.RawMessage) (*Call, error)
}

// RawPolicy is the policy of a tool without Prepare: the MCP adapters
// (schemas from servers), whose policy is static (tools.Spec's values).
// Spec implements it with the tool's static values; a tool overrides what
// depends on the input. Each method parses the input again, which is what
// Preparer exists to end.
type RawPolicy interface {
	ApprovalFor(in json.RawMessage) Approval
	ReadOnlyFor(in json.RawMessage) bool
	ParallelSafeFor(in json.RawMessage) bool
	StartsDetachedFor(in json.RawMessage) bool
}

// PrepareCall decodes in for t: through Prepare for a typed tool; for
// another (an MCP adapter), by schema validation and the RawPolicy methods.
// A panic while decoding (a decoder's bug on hostile input) is the call's
// refusal, ExecutionFailed with the same text as a panic while running
// (CONTRACT.md §3.1): one bad call never ends the turn.
func PrepareCall(t Tool, in json.RawMessage) (c *Call, err error) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("tool panicked while preparing a call", "tool", t.Name(), "panic", p, "stack", string(debug.Stack()))
			c, err = nil, panicked(t.Name(), p)
		}
	}()
	return prepareCall(t, in)
}

// panicked is the refusal of a call whose tool panicked (CONTRACT.md §3.1, exact).
func panicked(name string, p any) *Error {
	return ExecutionFailed("tool '%s' failed with an internal error: %v", name, p)
}

// prepareCall is PrepareCall without the recovery, for a wrapper (a replay
// alias) whose own PrepareCall recovers under the name that was called.
func prepareCall(t Tool, in json.RawMessage) (*Call, error) {
	if len(in) == 0 {
		in = json.RawMessage("{}")
	}
	if p, ok := t.(Preparer); ok {
		c, err := p.Prepare(in)
		if err != nil {
			return nil, err
		}
		c.Tool = t
		return c, nil
	}
	if err := Validate(t.Name(), t.InputSchema(), in); err != nil {
		return nil, err
	}
	c := &Call{Tool: t, Input: in, run: func(ctx context.Context, tc *Context) (Result, error) {
		return t.Execute(ctx, tc, in)
	}}
	if rp, ok := t.(RawPolicy); ok {
		c.Policy = Policy{Approval: rp.ApprovalFor(in), ReadOnly: rp.ReadOnlyFor(in),
			Parallel: rp.ParallelSafeFor(in), Detached: rp.StartsDetachedFor(in)}
	} else {
		c.Policy.Approval = Required
	}
	return c, nil
}

// Execute prepares and runs one call of t: the path of hosts that run a
// tool directly (tests, rlm's fetch), with the same decoding, refusals and
// panic recovery as the engine's.
func Execute(ctx context.Context, t Tool, tc *Context, in json.RawMessage) (Result, error) {
	c, err := PrepareCall(t, in)
	if err != nil {
		return Result{}, err
	}
	return c.Run(ctx, tc)
}

// Package file implements the canonical `File` tool (CONTRACT.md §6.2): read,
// list, search_name and search_content on every instance; write and edit on a
// write-capable one (Act, Operate); patch when the patch feature is on too.
// It also provides the hidden replay-only alias `apply_patch` (CONTRACT.md §3.5).
//
// Every action goes through the workspace boundary (tools.Context.ResolvePath).
// Edits require a fresh read recorded in a session-scoped ReadStamps store, and
// every write is atomic (temp file in the same directory, then rename) and
// keeps the file's mode.
package file

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/tools"
)

// Name is the canonical tool name.
const Name = "File"

// readActions are the actions every instance runs, in schema order.
var readActions = []string{"read", "list", "search_name", "search_content"}

// Options configure a File tool instance.
type Options struct {
	// ReadStamps is the session's read-before-edit store. It must outlive the
	// per-turn registry, so the session creates it once and passes it to every
	// instance (File and apply_patch). Nil gives the instance a private store.
	ReadStamps *ReadStamps
	// Writable adds write and edit (Act and Operate modes). False is the Plan
	// projection: read, list, search_name, search_content only.
	Writable bool
	// Patch adds patch (the apply_patch feature). It has effect only on a
	// writable instance.
	Patch bool
	// GuardPaths are absolute paths no action may touch in addition to what
	// the secrets policy guards: typically the active config file. A
	// directory guards everything below it; a file also guards its ".bak".
	GuardPaths []string
	// Secrets decides which paths are secrets (never shown or written) and
	// which writes are protected (explicit approval). Nil uses the
	// process-wide policy (secrets.Default) at each call.
	Secrets *secrets.Policy
	// Workspace is the canonical workspace, for deciding before a call runs
	// whether it writes a protected path (ApprovalFor has no Context).
	// Empty: relative paths are judged by their names alone.
	Workspace string
	// Diagnostics, when set, hears of reads and changes and reports the
	// problems a change introduced (nil: nothing is checked).
	Diagnostics Diagnostics
	// Editor, when set, is the editor File reads text from and writes
	// through (nil: the disk alone).
	Editor Editor
}

// Tool is the File tool.
type Tool struct {
	tools.Spec
	snaps   *ReadStamps
	actions []string
	guard   func() guard // resolved on first use: it stats and resolves symlinks
	secrets *secrets.Policy
	ws      string
	diag    Diagnostics
	editor  Editor
	fs      fileOps // seam for tests that need a write to fail halfway
}

// New returns a File tool with the action set opts allow.
func New(opts Options) *Tool {
	snaps := opts.ReadStamps
	if snaps == nil {
		snaps = NewReadStamps()
	}
	actions := slices.Clone(readActions)
	if opts.Writable {
		actions = append(actions, "write", "edit")
		if opts.Patch {
			actions = append(actions, "patch")
		}
	}
	t := &Tool{snaps: snaps, actions: actions, guard: sync.OnceValue(func() guard { return newGuard(opts.GuardPaths) }),
		secrets: opts.Secrets, ws: opts.Workspace, diag: opts.Diagnostics, editor: opts.Editor, fs: osFileOps{}}
	caps := []tools.Capability{tools.CapReadOnly, tools.CapSandboxable}
	approve := tools.Auto
	if opts.Writable {
		caps = append(caps, tools.CapWritesFiles, tools.CapRequiresApproval)
		approve = tools.Suggest
	}
	t.Spec = tools.Spec{
		ToolName: Name,
		Desc:     description(opts.Writable, t.can("patch")),
		Schema:   params.SchemaFor(actions),
		Caps:     caps,
		Approve:  approve,
		ReadOnly: !opts.Writable,
		Parallel: !opts.Writable,
	}
	return t
}

// Actions returns the actions this instance runs, in schema order.
func (t *Tool) Actions() []string { return slices.Clone(t.actions) }

// ReadStamps returns the read-before-edit store this instance uses.
func (t *Tool) ReadStamps() *ReadStamps { return t.snaps }

func (t *Tool) can(action string) bool { return slices.Contains(t.actions, action) }

func isReadAction(action string) bool { return slices.Contains(readActions, action) }

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3): the action
// among this instance's, aliases folded, unknown keys refused, every field's
// type and presence checked, the action's request built; the contract's
// exact messages win over generic schema errors (CONTRACT.md §15.13). The policy
// comes from the request: the read actions are Auto and may run in
// parallel; a write, edit or patch is Suggest, or Explicit when it touches
// a protected path.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := params.DecodeFor(raw, t.actions)
	if err != nil {
		return nil, err
	}
	req, err := request(d)
	if err != nil {
		return nil, err
	}
	call := tools.NewCall(d.Input(), t.policyOf(req), func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		res, err := t.run(ctx, tc, req)
		return tools.Sized(res, err, tc, "read a narrower window (start_line, max_lines), or search_content for the part you need")
	})
	call.Writes = writes(req)
	return call, nil
}

// Execute decodes and runs one File call (tools.Execute), its result sized
// to the call's budget (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

// run dispatches a parsed request.
func (t *Tool) run(ctx context.Context, tc *tools.Context, req any) (tools.Result, error) {
	switch r := req.(type) {
	case readReq:
		return t.read(ctx, tc, r)
	case listReq:
		return t.list(ctx, tc, r)
	case nameReq:
		return t.searchName(ctx, tc, r)
	case contentReq:
		return t.searchContent(ctx, tc, r)
	case writeReq:
		return t.write(ctx, tc, r)
	case editReq:
		return t.edit(ctx, tc, r)
	case patchReq:
		return t.patch(ctx, tc, r)
	}
	return tools.Result{}, tools.ExecutionFailed("File: unhandled request %T", req)
}

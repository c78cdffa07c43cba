// Package file implements the canonical `File` tool (CONTRACT.md §6.2): read,
// list, search_name and search_content on every instance; write and edit on a
// write-capable one (Act, Operate); patch when the patch feature is on too.
// It also provides the hidden replay-only alias `apply_patch` (CONTRACT.md §3.5).
//
// Every action goes through the workspace boundary (tools.Context.ResolvePath).
// Edits require a fresh read recorded in a session-scoped Snapshots store, and
// every write is atomic (temp file in the same directory, then rename) and
// keeps the file's mode.
package file

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/tools"
)

// Name is the canonical tool name.
const Name = "File"

// readActions are the actions every instance runs, in schema order.
var readActions = []string{"read", "list", "search_name", "search_content"}

// allActions is the full family, in schema order.
var allActions = []string{"read", "list", "search_name", "search_content", "write", "edit", "patch"}

// Options configure a File tool instance.
type Options struct {
	// Snapshots is the session's read-before-edit store. It must outlive the
	// per-turn registry, so the session creates it once and passes it to every
	// instance (File and apply_patch). Nil gives the instance a private store.
	Snapshots *Snapshots
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
}

// Tool is the File tool.
type Tool struct {
	tools.Spec
	snaps   *Snapshots
	actions []string
	guard   func() guard // resolved on first use: it stats and resolves symlinks
	secrets *secrets.Policy
	ws      string
	fs      fileOps // seam for tests that need a write to fail halfway
}

// New returns a File tool with the action set opts allow.
func New(opts Options) *Tool {
	snaps := opts.Snapshots
	if snaps == nil {
		snaps = NewSnapshots()
	}
	actions := slices.Clone(readActions)
	if opts.Writable {
		actions = append(actions, "write", "edit")
		if opts.Patch {
			actions = append(actions, "patch")
		}
	}
	t := &Tool{snaps: snaps, actions: actions, guard: sync.OnceValue(func() guard { return newGuard(opts.GuardPaths) }),
		secrets: opts.Secrets, ws: opts.Workspace, fs: osFileOps{}}
	caps := []tools.Capability{tools.CapReadOnly, tools.CapSandboxable}
	approve := tools.Auto
	if opts.Writable {
		caps = append(caps, tools.CapWritesFiles, tools.CapRequiresApproval)
		approve = tools.Suggest
	}
	t.Spec = tools.Spec{
		ToolName: Name,
		Desc:     description(opts.Writable, t.can("patch")),
		Schema:   schema(actions),
		Caps:     caps,
		Approve:  approve,
		ReadOnly: !opts.Writable,
		Parallel: !opts.Writable,
	}
	return t
}

// Actions returns the actions this instance runs, in schema order.
func (t *Tool) Actions() []string { return slices.Clone(t.actions) }

// Snapshots returns the read-before-edit store this instance uses.
func (t *Tool) Snapshots() *Snapshots { return t.snaps }

func (t *Tool) can(action string) bool { return slices.Contains(t.actions, action) }

func isReadAction(action string) bool { return slices.Contains(readActions, action) }

// ReadOnlyFor reports whether the call only reads.
func (t *Tool) ReadOnlyFor(in json.RawMessage) bool {
	return isReadAction(tools.PeekAction(in, "read"))
}

// ParallelSafeFor reports whether the call may run beside other calls: the
// read-only actions may.
func (t *Tool) ParallelSafeFor(in json.RawMessage) bool { return t.ReadOnlyFor(in) }

// StartsDetachedFor is always false: File never starts background work.
func (t *Tool) StartsDetachedFor(json.RawMessage) bool { return false }

// NormalizeInput folds aliases, rejects unknown keys and checks every field's
// type and presence, so the contract's exact messages win over generic schema
// errors (CONTRACT.md §15.13). The result carries the canonical key names.
func (t *Tool) NormalizeInput(in json.RawMessage) (json.RawMessage, error) {
	c, err := t.parseCall(in)
	if err != nil {
		return nil, err
	}
	if _, err := c.request(); err != nil {
		return nil, err
	}
	out := tools.Args{}
	for k, v := range c.args {
		out[k] = v
	}
	out["action"], _ = json.Marshal(c.action)
	return out.Marshal(), nil
}

// Execute runs one File call and sizes its result to the call's budget
// (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	res, err := t.execute(ctx, tc, in)
	return tools.Sized(res, err, tc, "read a narrower window (start_line, max_lines), or search_content for the part you need")
}

func (t *Tool) execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	c, err := t.parseCall(in)
	if err != nil {
		return tools.Result{}, err
	}
	req, err := c.request()
	if err != nil {
		return tools.Result{}, err
	}
	return t.run(ctx, tc, req)
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
		return t.write(tc, r)
	case editReq:
		return t.edit(tc, r)
	case patchReq:
		return t.patch(tc, r)
	}
	return tools.Result{}, tools.ExecutionFailed("File: unhandled request %T", req)
}

// actionGate refuses an action of the family this instance does not run,
// with the contract's exact texts (CONTRACT.md §4.6, §6.2).
func (t *Tool) actionGate(action string) error {
	if t.can(action) || !slices.Contains(allActions, action) {
		return nil
	}
	avail := strings.Join(t.actions, ", ")
	if action == "patch" && t.can("write") {
		return tools.NotAvailable("File action=\"patch\" is unavailable because the patch feature is disabled; "+
			"nothing was written. Available actions here: %s. When writes are available in this mode, "+
			"action=\"edit\" replaces a single exact match and action=\"write\" replaces the whole file.", avail)
	}
	return tools.NotAvailable("File action=\"%s\" is unavailable in the current mode; nothing was written. "+
		"Available actions here: %s. Switch to Act mode (`/mode act`) for write-capable file work.", action, avail)
}

// isObject reports whether raw JSON (after whitespace) is an object or empty.
func isObject(in json.RawMessage) bool {
	in = bytes.TrimSpace(in)
	return len(in) == 0 || in[0] == '{'
}

// Package tools defines the Tool interface, the two failure channels a tool
// has (a refusal as *Error, an operation that ran and failed as
// Result{Success:false}), the strict input helpers every tool reads its
// parameters through, and the Registry that resolves names exactly.
package tools

import (
	"context"
	"encoding/json"

	"github.com/codewhale/codewhale/internal/provider"
)

// Capability is a declared capability label (snake_case everywhere,
// CONTRACT.md §15.25).
type Capability string

const (
	CapReadOnly         Capability = "read_only"
	CapWritesFiles      Capability = "writes_files"
	CapExecutesCode     Capability = "executes_code"
	CapNetwork          Capability = "network"
	CapSandboxable      Capability = "sandboxable"
	CapRequiresApproval Capability = "requires_approval"
)

// Approval is a tool call's approval requirement.
type Approval int

const (
	Auto Approval = iota
	Suggest
	Required
	// Explicit needs a person's yes for this one call in every posture but
	// Full Access: Ask prompts (never "allow for the session"), Auto-Review
	// and headless runs (exec --auto included) refuse it, naming the reason
	// the tool's Prepare puts in Policy.Reason. Protected-path writes,
	// destructive-but-legitimate commands and secret reads use it.
	Explicit
)

func (a Approval) String() string {
	switch a {
	case Auto:
		return "Auto"
	case Suggest:
		return "Suggest"
	case Explicit:
		return "Explicit"
	default:
		return "Required"
	}
}

// Tool is one executable tool (CONTRACT.md §2.1): its static facts and a way
// to run an input. How the engine treats a call (approval, read-only,
// parallel) is decided per call: by Prepare for a typed tool (Preparer), by
// the RawPolicy methods for the others; PrepareCall is the one entry.
// Execute decodes and runs one input (typed tools: Prepare, then Run).
type Tool interface {
	Name() string
	Description() string
	InputSchema() map[string]any
	Capabilities() []Capability
	ModelVisible() bool
	DeferLoading() bool
	Execute(ctx context.Context, tc *Context, in json.RawMessage) (Result, error)
}

// Result is what a tool that ran returns. Content is what the model sees;
// Metadata is for the UI and receipts and never reaches the model.
type Result struct {
	Content  string
	Success  bool
	Metadata map[string]any
	// ChildUsage is what model requests the tool made itself cost (rlm's
	// child queries); the engine counts it in the session's usage.
	ChildUsage provider.Usage
	// Images are image blocks the model receives with the result
	// (read_media). The engine sends them only to a model that can see:
	// a tool that makes them refuses first when Context.NoVision is set.
	Images []provider.Block
}

// OK returns a successful result.
func OK(content string) Result { return Result{Content: content, Success: true} }

// Failed returns a result for an operation that ran and failed.
func Failed(content string) Result { return Result{Content: content} }

// Spec is the static part of a tool. Tools embed it and add Execute (and
// Prepare, or any input-dependent RawPolicy method). Its policy methods are
// the static values.
type Spec struct {
	ToolName string
	Desc     string
	Schema   map[string]any
	// SchemaFunc, used when Schema is nil, supplies the schema on demand:
	// hidden aliases and deferred tools are rebuilt into every turn's
	// registry but their schemas are rarely read. It must return the same
	// read-only value every time (a sync.OnceValue serves).
	SchemaFunc func() map[string]any
	Caps       []Capability
	Hidden     bool // replay-only alias or internal helper
	// AliasOf is, for a replay alias, the tool it stands for: the alias
	// obeys that tool's allow and deny rules as well as its own name's.
	AliasOf     string
	Deferred    bool
	Approve     Approval
	ReadOnly    bool
	Parallel    bool
	StartDetach bool
}

func (s *Spec) Name() string        { return s.ToolName }
func (s *Spec) Description() string { return s.Desc }
func (s *Spec) InputSchema() map[string]any {
	if s.Schema == nil && s.SchemaFunc != nil {
		return s.SchemaFunc()
	}
	return s.Schema
}
func (s *Spec) Capabilities() []Capability { return s.Caps }
func (s *Spec) ModelVisible() bool         { return !s.Hidden }

// Canonical is the tool a call of s runs: AliasOf for a replay alias, else
// its own name.
func (s *Spec) Canonical() string {
	if s.AliasOf != "" {
		return s.AliasOf
	}
	return s.ToolName
}
func (s *Spec) DeferLoading() bool { return s.Deferred }

// StaticPolicy is the policy of every call of a tool whose policy does not
// depend on its input.
func (s *Spec) StaticPolicy() Policy {
	return Policy{Approval: s.Approve, ReadOnly: s.ReadOnly, Parallel: s.Parallel, Detached: s.StartDetach}
}

func (s *Spec) ApprovalFor(json.RawMessage) Approval   { return s.Approve }
func (s *Spec) ReadOnlyFor(json.RawMessage) bool       { return s.ReadOnly }
func (s *Spec) ParallelSafeFor(json.RawMessage) bool   { return s.Parallel }
func (s *Spec) StartsDetachedFor(json.RawMessage) bool { return s.StartDetach }

// DeclaredApproval is the tool-level approval requirement reported by the
// registry facts, independent of any one input.
func (s *Spec) DeclaredApproval() Approval { return s.Approve }

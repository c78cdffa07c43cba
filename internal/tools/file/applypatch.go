package file

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/codewhale/codewhale/internal/tools"
)

// ApplyPatchName is the replay-only alias of File patch (CONTRACT.md §3.5).
const ApplyPatchName = "apply_patch"

// ApplyPatch is the hidden `apply_patch` alias: the legacy schema without
// `action`, any `action` in the input ignored, and exactly File patch behind
// it (same parser, snapshots, transaction and messages). Its results carry
// metadata `invoked_as: "apply_patch"`.
type ApplyPatch struct {
	tools.Spec
	file *Tool
}

// NewApplyPatch returns the alias over a File instance built from opts. It
// belongs in a registry only when opts allow patch (writable and the patch
// feature on); otherwise every call is refused as File patch would be.
func NewApplyPatch(opts Options) *ApplyPatch { return NewApplyPatchOver(New(opts)) }

// NewApplyPatchOver returns the alias over an existing File tool, the one
// registered beside it.
func NewApplyPatchOver(f *Tool) *ApplyPatch {
	return &ApplyPatch{file: f, Spec: tools.Spec{
		ToolName:   ApplyPatchName,
		Desc:       "Apply a unified-diff patch across one or more files, all or nothing (replay alias of File patch).",
		SchemaFunc: applyPatchSchema,
		Caps:       []tools.Capability{tools.CapWritesFiles, tools.CapSandboxable, tools.CapRequiresApproval},
		Hidden:     true,
		Approve:    tools.Suggest,
	}}
}

// applyPatchSchema is built once, when a replayed call first reads it.
var applyPatchSchema = sync.OnceValue(func() map[string]any {
	props := map[string]any{
		"path":              prop("string", "The single file the hunks apply to (relative to the workspace)."),
		"patch":             prop("string", "Unified diff content."),
		"replace":           replaceEntries("Full-file replacements, each {path, content}."),
		"changes":           replaceEntries("Deprecated alias of `replace`."),
		"fuzz":              prop("integer", "Lines a hunk may be moved from its stated position (default 3, max 50)."),
		"create_if_missing": prop("boolean", "Create the target file if it does not exist (default false)."),
	}
	return map[string]any{"type": "object", "properties": props}
})

// parse strips `action`, folds path aliases, rejects unknown keys and reads
// the patch request, refusing when the instance cannot patch.
func (a *ApplyPatch) parse(in json.RawMessage) (tools.Args, patchReq, error) {
	if !isObject(in) {
		return nil, patchReq{}, tools.InvalidInput("File tool input must be an object")
	}
	args, err := tools.ParseArgs(in)
	if err != nil {
		return nil, patchReq{}, tools.InvalidInput("File tool input must be an object")
	}
	if err := a.file.actionGate("patch"); err != nil {
		return nil, patchReq{}, err
	}
	delete(args, "action")
	if err := foldAliases(args, "patch"); err != nil {
		return nil, patchReq{}, err
	}
	if err := rejectUnknown(args, "patch"); err != nil {
		return nil, patchReq{}, err
	}
	r, err := parsePatch(args)
	return args, r, err
}

// NormalizeInput returns the canonical input (no action, aliases folded).
func (a *ApplyPatch) NormalizeInput(in json.RawMessage) (json.RawMessage, error) {
	args, _, err := a.parse(in)
	if err != nil {
		return nil, err
	}
	return args.Marshal(), nil
}

// Execute runs File patch and records the alias it was invoked as.
func (a *ApplyPatch) Execute(_ context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	_, r, err := a.parse(in)
	if err != nil {
		return tools.Result{}, err
	}
	res, err := a.file.patch(tc, r)
	if err != nil {
		return res, err
	}
	if res.Metadata == nil {
		res.Metadata = map[string]any{}
	}
	res.Metadata["invoked_as"] = ApplyPatchName
	return res, nil
}

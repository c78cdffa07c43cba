package file

import (
	"context"
	"encoding/json"
	"maps"
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
// registered beside it. Its schema is File's patch schema without `action`:
// one definition, not a second hand-written one.
func NewApplyPatchOver(f *Tool) *ApplyPatch {
	return &ApplyPatch{file: f, Spec: tools.Spec{
		ToolName:   ApplyPatchName,
		Desc:       "Apply a unified-diff patch across one or more files, all or nothing (replay alias of File patch).",
		SchemaFunc: applyPatchSchema,
		Caps:       []tools.Capability{tools.CapWritesFiles, tools.CapSandboxable, tools.CapRequiresApproval},
		Hidden:     true,
		AliasOf:    Name,
		Approve:    tools.Suggest,
	}}
}

// applyPatchSchema is built once, when a replayed call first reads it.
var applyPatchSchema = sync.OnceValue(func() map[string]any {
	s := maps.Clone(params.SchemaFor([]string{"patch"}))
	props := maps.Clone(s["properties"].(map[string]any))
	delete(props, "action")
	s["properties"] = props
	delete(s, "required")
	return s
})

// Prepare decodes the call as File patch: any `action` in the input is
// ignored, the instance's gate applies (a File that cannot patch refuses
// it as File would), and the bound call records the alias it ran as.
func (a *ApplyPatch) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, r, err := decodePatch(raw, a.file.actions)
	if err != nil {
		return nil, err
	}
	policy := a.file.policyOf(r)
	call := tools.NewCall(d.Input(), policy, func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		res, err := a.file.patch(ctx, tc, r)
		if err != nil {
			return res, err
		}
		if res.Metadata == nil {
			res.Metadata = map[string]any{}
		}
		res.Metadata["invoked_as"] = ApplyPatchName
		return res, nil
	})
	call.Writes = writes(r)
	return call, nil
}

// Execute decodes and runs one call (tools.Execute).
func (a *ApplyPatch) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, a, tc, in)
}

// decodePatch reads raw as a File patch call among actions, whatever
// `action` it carries.
func decodePatch(raw json.RawMessage, actions []string) (*tools.Decoded[input], patchReq, error) {
	args, err := params.ParseArgs(raw)
	if err != nil {
		return nil, patchReq{}, err
	}
	args["action"] = json.RawMessage(`"patch"`)
	d, err := params.DecodeArgs(args, actions)
	if err != nil {
		return nil, patchReq{}, err
	}
	r, err := parsePatch(d)
	return d, r, err
}

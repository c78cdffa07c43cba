package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/tools"
)

// offerRerun is the one way out of the sandbox a session has besides
// sandbox_mode itself (CONTRACT.md §12.7): when a
// foreground command failed because the sandbox refused something, and a
// person is there to ask (Ask, interactive, not --auto), the engine asks
// for an explicit approval to run that same call once more outside the
// sandbox. A yes re-runs it with the sandbox lifted for that one run; the
// model receives the second result, marked as such. A no (or any other
// host) leaves the refused result as it was. Plan mode never offers it.
func (t *turn) offerRerun(ctx context.Context, p *planned, tc *tools.Context, res tools.Result) tools.Result {
	denied, ok := res.Metadata["sandbox_denied"].(map[string]any)
	if !ok || res.Success || p.prepared == nil || t.set.Mode == posture.Plan || t.set.Posture != posture.Ask ||
		!t.e.opts.Interactive || t.autoApprove || res.Metadata["backgrounded"] == true {
		return res
	}
	key, group := approvalKeys(p.call.name, p.input)
	ask := *p
	ask.need = posture.NeedExplicit
	ask.reason = fmt.Sprintf("the sandbox refused %s (%v); approving runs this command once more OUTSIDE the "+
		"sandbox, where it can write anything your user can", refusedWhat(denied), denied["reason"])
	if err := t.ask(ctx, &ask, key+":outside-sandbox", group+":outside-sandbox"); err != nil {
		res.Content += "\n\n[sandbox] The user did not approve running this command outside the sandbox."
		res.Metadata["sandbox_rerun"] = "denied"
		return res
	}
	outside := *tc
	outside.Sandbox = tc.Sandbox.WithMode(sandbox.FullAccess)
	again, err := p.prepared.Run(ctx, &outside)
	if err != nil {
		res.Content += "\n\n[sandbox] The approved run outside the sandbox could not run: " + tools.AsError(err).ModelText(p.call.name, nil)
		res.Metadata["sandbox_rerun"] = "failed"
		return res
	}
	again.Content = "[sandbox] The first run was refused by the sandbox; the user approved running it once outside " +
		"the sandbox, and this is that run's result.\n\n" + again.Content
	if again.Metadata == nil {
		again.Metadata = map[string]any{}
	}
	again.Metadata["sandbox_rerun"] = "approved"
	again.Metadata["sandbox_denied_first"] = denied
	return again
}

func refusedWhat(denied map[string]any) string {
	if p, _ := denied["path"].(string); p != "" {
		return "a write to " + p
	}
	return "a network connection"
}

// readOnlyShellNote is the CONTRACT.md §12.7 suffix of shell-family
// approvals under a read-only sandbox: approving cannot lift it.
const readOnlyShellNote = " — note: the execution sandbox is read-only for this session; approving runs the " +
	"command without write access (approval cannot lift the sandbox)"

// sandboxReadOnlyFor reports whether a call of tool would run its commands
// under a read-only sandbox: a shell-family tool (it executes code, in the
// sandbox). A File write is not one: it writes in-process, whatever the
// sandbox of commands, so its card must not say approval runs it without
// write access.
func (t *turn) sandboxReadOnlyFor(tool tools.Tool) bool {
	if tool == nil || t.sandbox().Policy().Mode != sandbox.ReadOnly || t.e.opts.Sandbox == nil {
		return false
	}
	caps := tool.Capabilities()
	return slices.Contains(caps, tools.CapExecutesCode) && slices.Contains(caps, tools.CapSandboxable)
}

package file

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

// Protected paths (issue 11 §2): a write to .git/**, .codewhale/** or the
// user-level configuration and credential locations is legitimate now and
// then, and a planted one turns the next git call or session into code
// execution. Such a call needs an explicit approval (tools.Explicit) in
// every posture but Full Access, and the card says which path and why.

// ApprovalFor is Auto for read/list/search, Explicit for a write, edit or
// patch that touches a protected path, and Suggest for any other write;
// input without a readable action counts as read (CONTRACT.md §2.4).
func (t *Tool) ApprovalFor(in json.RawMessage) tools.Approval {
	if isReadAction(tools.PeekAction(in, "read")) {
		return tools.Auto
	}
	if t.protectedWrite(in) != "" {
		return tools.Explicit
	}
	return tools.Suggest
}

// ApprovalReason names the protected path a write touches and why it is
// protected ("" for other calls).
func (t *Tool) ApprovalReason(in json.RawMessage) string { return t.protectedWrite(in) }

// protectedWrite is the reason of the first protected path the call writes.
func (t *Tool) protectedWrite(in json.RawMessage) string {
	for _, p := range t.writePaths(in) {
		if why := t.protectedReason(p); why != "" {
			return why
		}
	}
	return ""
}

// writePaths are the paths a write, edit or patch call names, as given.
// Input that does not parse names none: it fails before writing anything.
func (t *Tool) writePaths(in json.RawMessage) []string {
	c, err := t.parseCall(in)
	if err != nil {
		return nil
	}
	req, err := c.request()
	if err != nil {
		return nil
	}
	switch r := req.(type) {
	case writeReq:
		return []string{r.path}
	case editReq:
		return []string{r.path}
	case patchReq:
		return patchPaths(r)
	}
	return nil
}

func patchPaths(r patchReq) []string {
	if r.form != "patch" {
		out := make([]string, len(r.entries))
		for i, e := range r.entries {
			out[i] = e.path
		}
		return out
	}
	secs, _, err := r.sections()
	if err != nil {
		return nil
	}
	out := make([]string, len(secs))
	for i, s := range secs {
		out[i] = s.path
	}
	return out
}

// protectedReason says why writing raw needs an explicit approval, or "".
// raw is resolved the way the call will resolve it (against the workspace
// the tool was built for), so a link named "hooks" that points into .git
// counts as .git.
func (t *Tool) protectedReason(raw string) string {
	abs := filepath.Clean(raw) // no workspace known: judge a relative path by its names
	if t.ws != "" || filepath.IsAbs(raw) || strings.HasPrefix(raw, "~/") {
		abs = tools.CanonicalPath(raw, t.ws)
	}
	why, ok := t.policy().ProtectedWrite(abs, t.ws)
	if !ok {
		return ""
	}
	return raw + " " + why
}

// checkWrite is the execution-time gate of a write to abs (raw as the call
// gave it): secrets are refused outright, and a protected path is written
// only by a call granted an explicit approval — one that resolves to a
// protected location only now (the tree changed after the approval was
// decided) is refused rather than written without it.
func (t *Tool) checkWrite(action string, tc *tools.Context, raw, abs string) error {
	if err := t.refuseSecret(action, abs); err != nil {
		return err
	}
	why, now := t.policy().ProtectedWrite(abs, tc.Workspace)
	if now && tc.Approval != tools.Explicit {
		return tools.PermissionDenied("File `%s` refused %s: it now resolves to %s, which %s, and this call was not "+
			"approved as a protected write; nothing was written. Retry the call so it can be approved explicitly.",
			action, raw, abs, why)
	}
	return nil
}

// ApprovalFor is Explicit when the replayed patch touches a protected path,
// Suggest otherwise, exactly as File patch.
func (a *ApplyPatch) ApprovalFor(in json.RawMessage) tools.Approval {
	if a.ApprovalReason(in) != "" {
		return tools.Explicit
	}
	return tools.Suggest
}

// ApprovalReason names the protected path the patch touches, or "".
func (a *ApplyPatch) ApprovalReason(in json.RawMessage) string {
	_, r, err := a.parse(in)
	if err != nil {
		return ""
	}
	for _, p := range patchPaths(r) {
		if why := a.file.protectedReason(p); why != "" {
			return why
		}
	}
	return ""
}

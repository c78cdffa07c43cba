package file

import (
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

// Protected paths (issue 11 §2): a write to .git/**, .codewhale/** or the
// user-level configuration and credential locations is legitimate now and
// then, and a planted one turns the next git call or session into code
// execution. Such a call needs an explicit approval (tools.Explicit) in
// every posture but Full Access, and the card says which path and why.

// policyOf is a decoded request's policy: Auto and parallel for the read
// actions, Explicit (with the reason) for a write, edit or patch that
// touches a protected path, Suggest for any other write.
func (t *Tool) policyOf(req any) tools.Policy {
	var paths []string
	switch r := req.(type) {
	case writeReq:
		paths = []string{r.path}
	case editReq:
		paths = []string{r.path}
	case patchReq:
		paths = patchPaths(r)
	default:
		return tools.Policy{Approval: tools.Auto, ReadOnly: true, Parallel: true}
	}
	for _, p := range paths {
		if why := t.protectedReason(p); why != "" {
			return tools.Policy{Approval: tools.Explicit, Reason: why}
		}
	}
	return tools.Policy{Approval: tools.Suggest}
}

// writes are the files a write, edit or patch request names (a patch's
// renamed or copied sources too), for the checkpoint ahead of it; nil for
// a read action or a patch that does not parse (it fails without writing).
func writes(req any) []string {
	switch r := req.(type) {
	case writeReq:
		return []string{r.path}
	case editReq:
		return []string{r.path}
	case patchReq:
		if r.form != "patch" {
			return patchPaths(r)
		}
		secs, _, err := r.sections()
		if err != nil {
			return nil
		}
		var out []string
		for _, s := range secs {
			if s.oldPath != "" && s.oldPath != s.path {
				out = append(out, s.oldPath)
			}
			out = append(out, s.path)
		}
		return out
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
	// A rename's source is written too (it is removed); a copy's is only
	// read, so it is not among the paths a protected write is rated by.
	var out []string
	for _, s := range secs {
		if s.rename && s.oldPath != "" && s.oldPath != s.path {
			out = append(out, s.oldPath)
		}
		out = append(out, s.path)
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

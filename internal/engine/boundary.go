package engine

import (
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/posture"
)

// trustMode reports whether this turn runs in trust mode: Full Access, or a
// host that turned it on (exec --auto, a task's trust_mode). Input that did
// not come from the user never runs in it.
func (t *turn) trustMode() bool {
	return !t.untrusted && (t.set.Trust || t.set.Posture == posture.FullAccess)
}

// trustedRoots are the roots beyond the workspace that path arguments reach
// on this turn (CONTRACT.md §5): the per-workspace trust list always, the
// configured trusted_paths in trust mode too. Nothing else, in any posture:
// trust mode widens the boundary only by what the user listed.
func (t *turn) trustedRoots() []string {
	roots := slices.Clip(t.set.TrustedRoots)
	if t.trustMode() {
		roots = append(roots, t.e.opts.TrustedPaths...)
	}
	return roots
}

// boundaryMeta is the <turn_meta> line that tells the model the file
// boundary in force.
func (t *turn) boundaryMeta() string {
	roots := t.trustedRoots()
	if len(roots) == 0 {
		return "File tool boundary: the workspace only (" + t.e.opts.Workspace + ")"
	}
	return "File tool boundary: the workspace (" + t.e.opts.Workspace + ") and the trusted roots " +
		strings.Join(roots, ", ")
}

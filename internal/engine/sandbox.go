package engine

import (
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/sandbox"
)

// SandboxFor is the sandbox of commands run in mode: the session's,
// read-only in Plan (Plan is never widened). No posture widens it: Full
// Access and --auto approve prompts, they do not lift the sandbox. Hosts
// report its Status (header chip, exec metadata) from here too.
func SandboxFor(sb *sandbox.Sandbox, mode posture.Mode) *sandbox.Sandbox {
	if sb != nil && mode == posture.Plan {
		return sb.WithMode(sandbox.ReadOnly)
	}
	return sb
}

func (t *turn) sandbox() *sandbox.Sandbox { return SandboxFor(t.e.opts.Sandbox, t.set.Mode) }

// sandboxPosture is the turn's fact line about the sandbox, stated as it
// really is (unenforced when no OS mechanism confines commands).
func (t *turn) sandboxPosture() string {
	if t.e.opts.Sandbox == nil {
		return "none (no OS sandbox)"
	}
	return t.sandbox().Status().Label()
}

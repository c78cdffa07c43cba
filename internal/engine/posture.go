package engine

import (
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/prompt"
)

// approval is the posture in force on this turn as the policy applies it
// (CONTRACT.md §12.6): the turn's posture (narrowed for input that is not
// the user's) and who can answer a prompt. approve decides every call by
// it, and <turn_meta> and the system prompt state it, so what the model is
// told is what happens.
func (t *turn) approval() prompt.Approval {
	return prompt.ApprovalOf(t.set.Posture, posture.Host{Interactive: t.e.opts.Interactive, AutoApprove: t.autoApprove})
}

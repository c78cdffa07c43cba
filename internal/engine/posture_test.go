package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/prompt"
	"github.com/codewhale/codewhale/internal/tools"
)

// Under every posture and host, and for input from the user or from a
// parent agent, the <turn_meta> posture line is the Approval the call is
// then decided by: a call that needs ordinary approval runs without asking,
// shows a card, or is refused exactly as that line says.
// CONTRACT.md §9.13: turn_meta's permission posture line is the label of the decision approve makes, for every
// posture, host and provenance.
func TestTurnMetaPostureIsTheDecision(t *testing.T) {
	t.Parallel()
	for _, p := range []posture.Posture{posture.Ask, posture.AutoReview, posture.FullAccess, posture.Never} {
		for _, h := range []posture.Host{{Interactive: true}, {}, {AutoApprove: true}} {
			for _, prov := range []string{engine.ProvenanceUser, engine.ProvenanceSubagent} {
				t.Run(fmt.Sprintf("%v/%+v/%s", p, h, prov), func(t *testing.T) {
					t.Parallel()
					postureIsTheDecision(t, p, h, prov)
				})
			}
		}
	}
}

func postureIsTheDecision(t *testing.T, p posture.Posture, h posture.Host, prov string) {
	g := newGuarded(tools.Required)
	hs := guardedHarness(t, g, p, h.Interactive, h.AutoApprove)
	// Input that is not the user's never inherits Full Access or
	// auto-approval (CONTRACT.md §9.1).
	want := prompt.ApprovalOf(p, h)
	if prov != engine.ProvenanceUser && (p == posture.FullAccess || h.AutoApprove) {
		want = prompt.ApprovalOf(posture.Ask, posture.Host{Interactive: h.Interactive})
	}
	var cards int
	hs.eng.Submit(engine.SendMessage{Content: "write it", Provenance: prov})
	hs.collect(func(ev engine.Event) {
		if a, ok := ev.(engine.ApprovalRequired); ok {
			cards++
			hs.eng.Submit(engine.ApproveToolCall{ID: a.ID})
		}
	})
	meta := hs.srv.Requests()[0].LastUserText()
	if line := "Current permission posture: " + want.Label() + "\n"; !strings.Contains(meta, line) {
		t.Fatalf("turn_meta lacks %q:\n%s", line, meta)
	}
	wantCards, wantRan := 0, false
	switch want.Required {
	case posture.AutoApprove:
		wantRan = true
	case posture.Prompt:
		wantCards, wantRan = 1, true
	}
	if cards != wantCards || (g.ran.Load() == 1) != wantRan {
		t.Errorf("%d cards, ran %d; the posture line says %q", cards, g.ran.Load(), want.Label())
	}
}

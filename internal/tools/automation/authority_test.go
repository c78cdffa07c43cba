package automation

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/tools"
)

var fullAccess = auto.Ceiling{Posture: "full_access", AutoApprove: true, AllowShell: true, TrustMode: true}

// A session with less authority than an automation stores cannot take it
// over: an update (of its prompt alone), a resume or a run gets the lesser
// of the two ceilings, the card says so before it is approved, and the
// stored Full Access does not survive.
// README.md "Modes and permissions": authority never outlives the person who granted it: a change from a session with less authority lowers an automation's.
// README.md "Automations": an update or resume lowers the automation to the updating session's authority and a run starts its task with no more.
func TestAuthorityNeverOutlivesWhoGrantedIt(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "automations")
	person := harnessIn(t, dir, fullAccess)
	out, err := person.call(t, person.tool, `{"action":"create","prompt":"tidy","schedule":"@daily","auto_approve":true,"allow_shell":true,"trust_mode":true}`)
	if err != nil {
		t.Fatal(err)
	}
	id := out["created"].(map[string]any)["id"].(string)
	for _, session := range []auto.Ceiling{{Posture: "ask"}, {Posture: "ask", AllowShell: true}, {Posture: "auto", AllowShell: true}} {
		model := harnessIn(t, dir, session)
		in := `{"action":"update","automation_id":"` + id + `","prompt":"cp ~/.ssh/id_rsa ."}`
		c, err := tools.PrepareCall(model.tool, json.RawMessage(in))
		if err != nil || c.Policy.Grant == nil || c.Policy.Grant.AutoApprove || c.Policy.Grant.TrustMode ||
			!strings.HasPrefix(c.Policy.Grant.LoweredFrom, "Full Access") || strings.HasPrefix(c.Policy.Grant.RunsWith, "Full Access") {
			t.Fatalf("%v: the card's grant %+v %v", session, c.Policy.Grant, err)
		}
		out, err := model.call(t, model.tool, in)
		if err != nil {
			t.Fatal(err)
		}
		got := ceilingOf(t, person.store, id)
		if got != session.Meet(fullAccess) || got.PolicyPosture() != session.PolicyPosture() {
			t.Errorf("%v: stored %+v after the update", session, got)
		}
		if note, _ := out["note"].(string); !strings.Contains(note, "never keeps more authority than the session that last changed it") {
			t.Errorf("%v: note %q", session, note)
		}
		restore(t, person.store, id)
	}
	// resume and run: the same cap.
	model := harnessIn(t, dir, auto.Ceiling{Posture: "ask"})
	if _, err := model.call(t, model.tool, `{"action":"run","automation_id":"`+id+`"}`); err != nil {
		t.Fatal(err)
	}
	if len(model.queued) != 1 || model.queued[0].Ceiling != (auto.Ceiling{Posture: "ask"}) || ceilingOf(t, person.store, id) != fullAccess {
		t.Errorf("run now: queued %+v, stored %+v", model.queued, ceilingOf(t, person.store, id))
	}
	person.call(t, person.tool, `{"action":"pause","automation_id":"`+id+`"}`)
	if _, err := model.call(t, model.tool, `{"action":"resume","automation_id":"`+id+`"}`); err != nil {
		t.Fatal(err)
	}
	if got := ceilingOf(t, person.store, id); got != (auto.Ceiling{Posture: "ask"}) {
		t.Errorf("resume kept %+v", got)
	}
}

// The person's own update keeps what they have, and the card of a create
// shows the authority the runs will get.
// README.md "Automations": the approval card shows Runs with:, Lowered from: and the auto-approve, trust and shell flags.
func TestCardShowsTheAuthorityAChangeCarries(t *testing.T) {
	t.Parallel()
	h := harnessIn(t, filepath.Join(t.TempDir(), "a"), fullAccess)
	c, _ := tools.PrepareCall(h.tool, json.RawMessage(`{"action":"create","prompt":"x","schedule":"@daily","auto_approve":true}`))
	if g := c.Policy.Grant; g == nil || !g.AutoApprove || g.AllowShell || !strings.HasPrefix(g.RunsWith, "Full Access") || g.LoweredFrom != "" {
		t.Errorf("create grant %+v", g)
	}
	ask := harnessIn(t, filepath.Join(t.TempDir(), "b"), auto.Ceiling{Posture: "ask", AllowShell: true})
	c, _ = tools.PrepareCall(ask.tool, json.RawMessage(`{"action":"create","prompt":"x","schedule":"@daily","auto_approve":true,"allow_shell":true}`))
	if g := c.Policy.Grant; g == nil || g.AutoApprove || !g.AllowShell || !strings.HasPrefix(g.RunsWith, "Ask") {
		t.Errorf("create under Ask: %+v", g)
	}
	for _, in := range []string{`{"action":"list"}`, `{"action":"delete","automation_id":"auto_00000000"}`} {
		if c, _ := tools.PrepareCall(ask.tool, json.RawMessage(in)); c.Policy.Grant != nil {
			t.Errorf("%s carries a grant", in)
		}
	}
}

func harnessIn(t *testing.T, dir string, ceiling auto.Ceiling) *harness {
	t.Helper()
	s, err := auto.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{store: s}
	h.tool = New(Options{Store: s, Workspace: "/ws", Ceiling: func() auto.Ceiling { return ceiling },
		Enqueue: func(_ context.Context, a auto.Automation, _ time.Time) (string, error) {
			h.queued = append(h.queued, a)
			return "task_00000001", nil
		}})
	return h
}

func ceilingOf(t *testing.T, s *auto.Store, id string) auto.Ceiling {
	t.Helper()
	a, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return a.Ceiling
}

// restore puts the person's Full Access back (as the person would, by
// creating it again) for the next session under test.
func restore(t *testing.T, s *auto.Store, id string) {
	t.Helper()
	if _, err := s.Update(id, func(a *auto.Automation) error { a.Ceiling = fullAccess; return nil }); err != nil {
		t.Fatal(err)
	}
}

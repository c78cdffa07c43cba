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

// createdBy creates an automation under ceiling in dir and returns its id.
func createdBy(t *testing.T, dir string, ceiling auto.Ceiling, in string) string {
	t.Helper()
	h := harnessIn(t, dir, ceiling)
	out, err := h.call(t, h.tool, in)
	if err != nil {
		t.Fatal(err)
	}
	return out["created"].(map[string]any)["id"].(string)
}

// CONTRACT.md §6.12: an update of any field — the name, the schedule, the
// time zone, the mode or the status alone — stores the lesser of the
// automation's ceiling and the updating session's, each flag only where
// both have it, and its note says authority was lowered.
// README.md "Automations": an update even of the prompt alone lowers the automation's authority.
func TestContractAnUpdateOfAnyFieldLowersTheCeiling(t *testing.T) {
	t.Parallel()
	session := auto.Ceiling{Posture: "auto", AllowShell: false}
	for _, field := range []string{`"name":"renamed"`, `"schedule":"FREQ=HOURLY"`, `"timezone":"Europe/Berlin"`,
		`"mode":"plan"`, `"status":"active"`, `"rrule":"0 3 * * *"`} {
		dir := filepath.Join(t.TempDir(), "automations")
		id := createdBy(t, dir, fullAccess, `{"action":"create","prompt":"tidy","schedule":"@daily","auto_approve":true,"allow_shell":true,"trust_mode":true}`)
		model := harnessIn(t, dir, session)
		out, err := model.call(t, model.tool, `{"action":"update","automation_id":"`+id+`",`+field+`}`)
		if err != nil {
			t.Fatalf("%s: %v", field, err)
		}
		if got := ceilingOf(t, model.store, id); got != (auto.Ceiling{Posture: "auto"}) {
			t.Errorf("update of %s stored %+v", field, got)
		}
		if note, _ := out["note"].(string); !strings.Contains(note, "instead of what it had (Full Access") {
			t.Errorf("update of %s: note %q", field, note)
		}
	}
}

// CONTRACT.md §6.12: an update cannot raise what it stores either: a flag
// the updating session lacks is not granted (and the note says so), and a
// wider session's update does not widen a narrow automation.
func TestContractAnUpdateNeverRaisesTheCeiling(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "automations")
	id := createdBy(t, dir, auto.Ceiling{Posture: "ask"}, `{"action":"create","prompt":"tidy","schedule":"@daily"}`)
	ask := harnessIn(t, dir, auto.Ceiling{Posture: "ask"})
	out, err := ask.call(t, ask.tool, `{"action":"update","automation_id":"`+id+`","allow_shell":true,"trust_mode":true,"auto_approve":true}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := ceilingOf(t, ask.store, id); got != (auto.Ceiling{Posture: "ask"}) {
		t.Errorf("an Ask update granted %+v", got)
	}
	if note, _ := out["note"].(string); !strings.Contains(note, "Not granted: allow_shell, trust_mode, auto_approve") {
		t.Errorf("note %q", note)
	}
	full := harnessIn(t, dir, fullAccess)
	if _, err := full.call(t, full.tool, `{"action":"update","automation_id":"`+id+`","prompt":"tidy more"}`); err != nil {
		t.Fatal(err)
	}
	if got := ceilingOf(t, full.store, id); got != (auto.Ceiling{Posture: "ask"}) {
		t.Errorf("a Full Access update of the prompt widened the automation to %+v", got)
	}
}

// CONTRACT.md §6.12: the approval card of a resume or a run shows the
// authority the runs will get and what it was lowered from; a resume's
// note says authority was lowered; a run's task gets the lesser ceiling
// and the record keeps its own.
func TestContractResumeAndRunCardsShowTheLoweredAuthority(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "automations")
	id := createdBy(t, dir, fullAccess, `{"action":"create","prompt":"tidy","schedule":"@daily","paused":true,"auto_approve":true,"allow_shell":true,"trust_mode":true}`)
	session := auto.Ceiling{Posture: "ask", AllowShell: true}
	model := harnessIn(t, dir, session)
	for _, action := range []string{"run", "resume"} {
		c, err := tools.PrepareCall(model.tool, json.RawMessage(`{"action":"`+action+`","automation_id":"`+id+`"}`))
		g := c.Policy.Grant
		if err != nil || c.Policy.Approval != tools.Required || g == nil || !strings.HasPrefix(g.RunsWith, "Ask") ||
			!strings.HasPrefix(g.LoweredFrom, "Full Access") || g.AutoApprove || g.TrustMode || !g.AllowShell {
			t.Errorf("%s card: %+v %v", action, g, err)
		}
	}
	if _, err := model.call(t, model.tool, `{"action":"run","automation_id":"`+id+`"}`); err != nil {
		t.Fatal(err)
	}
	if len(model.queued) != 1 || model.queued[0].Ceiling != session || ceilingOf(t, model.store, id) != fullAccess {
		t.Errorf("run: task ceiling %+v, record %+v", model.queued, ceilingOf(t, model.store, id))
	}
	out, err := model.call(t, model.tool, `{"action":"resume","automation_id":"`+id+`"}`)
	if err != nil {
		t.Fatal(err)
	}
	if note, _ := out["note"].(string); !strings.Contains(note, "never keeps more authority") || ceilingOf(t, model.store, id) != session {
		t.Errorf("resume: note %q, stored %+v", note, ceilingOf(t, model.store, id))
	}
}

// CONTRACT.md §6.12: runs enqueue durable tasks with no more authority
// than the creating posture: a due run the scheduler fires carries the
// ceiling the create stored, capped to the creating session's flags.
// README.md "Automations": a due run enqueues a durable task with no more authority than the creating session had.
func TestContractScheduledRunsCarryTheCreatingCeiling(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "automations")
	creator := auto.Ceiling{Posture: "ask", AllowShell: true}
	h := harnessIn(t, dir, creator)
	if _, err := h.call(t, h.tool, `{"action":"create","prompt":"tidy","schedule":"FREQ=HOURLY","allow_shell":true,"trust_mode":true,"auto_approve":true}`); err != nil {
		t.Fatal(err)
	}
	h.store.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	var queued []auto.Automation
	fired, err := h.store.RunDue(context.Background(), func(_ context.Context, a auto.Automation, _ time.Time) (string, error) {
		queued = append(queued, a)
		return "task_00000001", nil
	})
	if err != nil || len(fired) != 1 || len(queued) != 1 || queued[0].Ceiling != creator {
		t.Fatalf("fired %+v, queued %+v, err %v; want one run with %+v", fired, queued, err, creator)
	}
}

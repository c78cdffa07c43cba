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

type harness struct {
	store  *auto.Store
	tool   *Tool
	queued []auto.Automation
	wakes  int
}

func newHarness(t *testing.T, ceiling auto.Ceiling, readOnly bool) *harness {
	t.Helper()
	s, err := auto.Open(filepath.Join(t.TempDir(), "automations"))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{store: s}
	h.tool = New(Options{Store: s, ReadOnly: readOnly, Workspace: "/ws", Ceiling: func() auto.Ceiling { return ceiling },
		Wake: func() { h.wakes++ },
		Enqueue: func(_ context.Context, a auto.Automation, _ time.Time) (string, error) {
			h.queued = append(h.queued, a)
			return "task_0000000" + string(rune('0'+len(h.queued))), nil
		}})
	return h
}

func (h *harness) call(t *testing.T, tool tools.Tool, in string) (map[string]any, error) {
	t.Helper()
	reg := tools.NewRegistry()
	reg.Register(tool)
	c, err := reg.Prepare(tool.Name(), json.RawMessage(in))
	if err != nil {
		return nil, err
	}
	res, err := c.Run(context.Background(), &tools.Context{Workspace: "/ws"})
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
		t.Fatalf("not JSON: %s", res.Content)
	}
	return out, nil
}

func TestLifecycle(t *testing.T) {
	t.Parallel()
	h := newHarness(t, auto.Ceiling{Posture: "ask", AllowShell: true}, false)
	out, err := h.call(t, h.tool, `{"action":"create","name":"nightly tests","prompt":"run go test ./... and summarise failures",
		"rrule":"FREQ=DAILY;AT=02:00","timezone":"Europe/Berlin","allow_shell":true,"auto_approve":true}`)
	if err != nil {
		t.Fatal(err)
	}
	created := out["created"].(map[string]any)
	id := created["id"].(string)
	ceiling := created["posture_ceiling"].(map[string]any)
	if ceiling["allow_shell"] != true || ceiling["auto_approve"] != false || ceiling["posture"] != "ask" {
		t.Errorf("ceiling %v", ceiling)
	}
	if note, _ := out["note"].(string); !strings.Contains(note, "Not granted: auto_approve") {
		t.Errorf("note %q", note)
	}
	if created["schedule"] != "FREQ=DAILY;AT=02:00" || created["timezone"] != "Europe/Berlin" || created["next_run"] == nil || h.wakes != 1 {
		t.Errorf("%v wakes=%d", created, h.wakes)
	}
	out, _ = h.call(t, h.tool, `{"action":"list"}`)
	if list := out["automations"].([]any); len(list) != 1 || list[0].(map[string]any)["name"] != "nightly tests" {
		t.Fatalf("list %v", out)
	}
	if _, err := h.call(t, h.tool, `{"action":"update","id":"`+id+`","schedule":"FREQ=WEEKLY;BYDAY=MO;AT=07:00","name":"weekly"}`); err != nil {
		t.Fatal(err)
	}
	out, _ = h.call(t, h.tool, `{"action":"pause","automation_id":"`+id+`"}`)
	if out["status"] != "paused" {
		t.Errorf("pause %v", out)
	}
	out, _ = h.call(t, h.tool, `{"action":"run","automation_id":"`+id+`"}`)
	if out["status"] != "enqueued" || len(h.queued) != 1 || h.queued[0].Ceiling.AutoApprove || !h.queued[0].Ceiling.AllowShell {
		t.Fatalf("run %v %+v", out, h.queued)
	}
	out, _ = h.call(t, h.tool, `{"action":"read","automation_id":"`+id+`"}`)
	a := out["automation"].(map[string]any)
	if a["name"] != "weekly" || a["schedule"] != "FREQ=WEEKLY;BYDAY=MO;AT=07:00" || len(out["recent_runs"].([]any)) != 1 {
		t.Errorf("read %v", out)
	}
	if _, err := h.call(t, h.tool, `{"action":"delete","automation_id":"`+id+`"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := h.call(t, h.tool, `{"action":"read","automation_id":"`+id+`"}`); err == nil || !strings.Contains(err.Error(), "automation not found") {
		t.Errorf("read after delete: %v", err)
	}
}

// Full Access may grant a run its own approvals; nothing else may.
// README.md "Automations": only Full Access can give runs auto_approve.
func TestFullAccessCeiling(t *testing.T) {
	t.Parallel()
	h := newHarness(t, auto.Ceiling{Posture: "full_access", AutoApprove: true, AllowShell: true, TrustMode: true}, false)
	out, err := h.call(t, h.tool, `{"action":"create","prompt":"x","schedule":"@daily","auto_approve":true,"trust_mode":true}`)
	if err != nil {
		t.Fatal(err)
	}
	c := out["created"].(map[string]any)["posture_ceiling"].(map[string]any)
	if c["auto_approve"] != true || c["trust_mode"] != true || out["note"] != nil {
		t.Errorf("%v", out)
	}
}

// README.md "Automations": create, run and delete need approval and list and read do not; a schedule that is neither FREQ= nor cron and an unknown timezone are refused.
func TestApprovalAndErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, auto.Ceiling{Posture: "ask"}, false)
	for in, want := range map[string]tools.Approval{
		`{"action":"list"}`: tools.Auto, `{"action":"read","automation_id":"auto_00000000"}`: tools.Auto,
		`{"action":"create","prompt":"x","schedule":"@daily"}`: tools.Required, `{"action":"run","id":"auto_00000000"}`: tools.Required,
		`{"action":"delete","id":"auto_00000000"}`: tools.Required,
	} {
		c, err := tools.PrepareCall(h.tool, json.RawMessage(in))
		if err != nil || c.Policy.Approval != want || c.Policy.ReadOnly != (want == tools.Auto) {
			t.Errorf("%s: %+v %v", in, c, err)
		}
	}
	for in, want := range map[string]string{
		`{"prompt":"x"}`:       "automation: missing `action` (one of: list, read, create, update, pause, resume, delete, run)",
		`{"action":"explode"}`: "automation: invalid action `explode`",
		`{"action":"create","prompt":"x","schedule":"every tuesday"}`:                    "neither FREQ=",
		`{"action":"create","prompt":"x","schedule":"@daily","timezone":"Mars/Olympus"}`: `unknown timezone "Mars/Olympus"`,
		`{"action":"create","schedule":"@daily"}`:                                        "missing required field 'prompt'",
		`{"action":"read","automation_id":"../etc"}`:                                     "not an automation id",
		`{"action":"list","limit":500}`:                                                  "arguments do not match the tool's schema: ",
		`{"action":"create","prompt":"x","schedule":"@daily","mode":"root"}`:             "arguments do not match the tool's schema: ",
		`{"action":"read","automation_id":"auto_00000000","id":7}`:                       "field 'id' must be a string",
		`{"action":"read"}`: "missing required field 'automation_id'. Input provided: action",
		`{"id":7}`:          "automation: missing `action`",
	} {
		_, err := h.call(t, h.tool, in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	ro := newHarness(t, auto.Ceiling{Posture: "ask"}, true)
	if _, err := ro.call(t, ro.tool, `{"action":"create","prompt":"x","schedule":"@daily"}`); err == nil ||
		!strings.Contains(err.Error(), "automation: invalid action `create` (one of: list, read)") {
		t.Errorf("plan: %v", err)
	}
	if _, err := ro.call(t, ro.tool, `{"action":"list","prompt":"x"}`); err == nil ||
		!strings.Contains(err.Error(), "automation list does not take `prompt`; nothing was run. Its fields are: action, limit.") {
		t.Errorf("plan, a write key: %v", err)
	}
}

func TestAliasesBehaveLikeTheCanonicalTool(t *testing.T) {
	t.Parallel()
	h := newHarness(t, auto.Ceiling{Posture: "ask"}, false)
	aliases := map[string]tools.Tool{}
	for _, a := range Aliases(h.tool) {
		if a.ModelVisible() {
			t.Errorf("%s is visible", a.Name())
		}
		aliases[a.Name()] = a
	}
	if len(aliases) != len(Actions) {
		t.Fatalf("%d aliases", len(aliases))
	}
	out, err := h.call(t, aliases["automation_create"], `{"prompt":"digest","schedule":"FREQ=HOURLY"}`)
	if err != nil {
		t.Fatal(err)
	}
	id := out["created"].(map[string]any)["id"].(string)
	viaAlias, _ := h.call(t, aliases["automation_read"], `{"automation_id":"`+id+`"}`)
	canonical, _ := h.call(t, h.tool, `{"action":"read","automation_id":"`+id+`"}`)
	a, _ := json.Marshal(viaAlias)
	b, _ := json.Marshal(canonical)
	if string(a) != string(b) {
		t.Errorf("alias %s\ncanonical %s", a, b)
	}
	del, derr := tools.PrepareCall(aliases["automation_delete"], json.RawMessage(`{"automation_id":"x"}`))
	list, lerr := tools.PrepareCall(aliases["automation_list"], json.RawMessage(`{}`))
	if derr != nil || lerr != nil || del.Policy.Approval != tools.Required || list.Policy.Approval != tools.Auto {
		t.Error("alias approvals differ from the canonical actions'")
	}
}

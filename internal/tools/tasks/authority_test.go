package tasks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// A task never gets more authority than its creator: requested flags the
// creator lacks are dropped and named; the creator's posture is recorded.
func TestCreateCapsAuthorityByTheCreator(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		creator                 Authority
		wantAuto, wantTrust     bool
		wantShell               bool
		wantPosture, wantCapped string
	}{
		{Authority{Posture: "suggest"}, false, false, false, "suggest", "auto_approve, trust_mode, allow_shell"},
		{Authority{Posture: "suggest", AutoApprove: true, Trust: true, AllowShell: true}, true, true, true, "suggest", ""},
		{Authority{Posture: "auto", AllowShell: true}, false, false, true, "auto", "auto_approve, trust_mode"},
		{Authority{Posture: "bypass"}, true, true, true, "bypass", ""},
		{Authority{Posture: "never", AutoApprove: true}, true, false, false, "never", "trust_mode, allow_shell"},
	} {
		store, _ := openStore(t, t.TempDir())
		reg := taskRegistry(Options{Store: store, Creator: tt.creator})
		res, err := run(t, reg, t.TempDir(), "tasks",
			`{"action":"create","prompt":"x","auto_approve":true,"trust_mode":true,"allow_shell":true}`)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Task TaskRecord `json:"task"`
			Not  *string    `json:"authority_not_granted"`
		}
		if err := json.Unmarshal([]byte(res.Content), &got); err != nil {
			t.Fatal(err)
		}
		r := got.Task
		if r.AutoApprove != tt.wantAuto || r.TrustMode != tt.wantTrust || r.AllowShell != tt.wantShell || r.Posture != tt.wantPosture {
			t.Errorf("%+v: record %+v", tt.creator, r)
		}
		switch {
		case tt.wantCapped == "" && got.Not != nil:
			t.Errorf("%+v: unexpected note %q", tt.creator, *got.Not)
		case tt.wantCapped != "" && (got.Not == nil || !strings.Contains(*got.Not, "Not granted: "+tt.wantCapped)):
			t.Errorf("%+v: note %v, want %q", tt.creator, got.Not, tt.wantCapped)
		}
		if ra := r.RunAuthority(); ra.AutoApprove != tt.wantAuto || ra.Posture != tt.wantPosture {
			t.Errorf("run authority %+v", ra)
		}
	}
	legacy := TaskRecord{AutoApprove: true, TrustMode: true, AllowShell: true}
	if ra := legacy.RunAuthority(); ra.AutoApprove || ra.Trust || ra.Posture != "suggest" {
		t.Errorf("a record without a creator posture gets the least authority: %+v", ra)
	}
}

// Every call a task made is kept in its record, refusals included.
func TestRecordToolCall(t *testing.T) {
	t.Parallel()
	store, _ := openStore(t, t.TempDir())
	rec, err := store.Create(NewTask{Prompt: "x", Mode: "agent", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.RecordToolCall(rec.ID, ToolCallRecord{ID: "c1", Name: "Bash", Input: json.RawMessage(`{"command":"make"}`),
		Refused: true, Category: "permission_denied", Summary: "Tool 'Bash' needs approval"}); err != nil {
		t.Fatal(err)
	}
	got, err := store.Get(rec.ID)
	if err != nil || len(got.ToolCalls) != 1 || !strings.Contains(string(got.ToolCalls[0]), `"refused":true`) ||
		got.Timeline[len(got.Timeline)-1].Kind != "tool_refused" {
		t.Fatalf("%+v %v", got, err)
	}
}

// A hostile create that spells a flag twice, or through an alias that
// replaces `action`, gets one reading: the canonical input the approval
// card shows carries the value the task is created with, and the creator's
// cap applies to it. Under every posture the recorded flags are what the
// card showed, narrowed by the cap.
func TestCreateCardShowsWhatTheTaskGets(t *testing.T) {
	t.Parallel()
	for _, creator := range []Authority{{Posture: "suggest"}, {Posture: "auto", AutoApprove: true},
		{Posture: "bypass"}} {
		store, _ := openStore(t, t.TempDir())
		reg := taskRegistry(Options{Store: store, Creator: creator})
		for name, in := range map[string]string{
			"tasks":       `{"action":"create","prompt":"x","auto_approve":false,"trust_mode":true,"auto_approve":true}`,
			"task_create": `{"action":"list","prompt":"x","auto_approve":false,"trust_mode":true,"auto_approve":true}`,
		} {
			call, err := reg.Prepare(name, json.RawMessage(in))
			if err != nil {
				t.Fatal(err)
			}
			var card map[string]any
			if err := json.Unmarshal(call.Input, &card); err != nil || card["auto_approve"] != true ||
				card["trust_mode"] != true || card["action"] != "create" || call.Policy.Approval != tools.Required {
				t.Fatalf("%s: canonical input %s, policy %+v", name, call.Input, call.Policy)
			}
			res, err := call.Run(t.Context(), &tools.Context{Workspace: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Task TaskRecord `json:"task"`
			}
			if err := json.Unmarshal([]byte(res.Content), &got); err != nil {
				t.Fatal(err)
			}
			full := creator.Posture == "bypass"
			if got.Task.AutoApprove != (creator.AutoApprove || full) || got.Task.TrustMode != full {
				t.Errorf("%s under %+v: recorded auto_approve=%v trust_mode=%v", name, creator, got.Task.AutoApprove,
					got.Task.TrustMode)
			}
		}
	}
}

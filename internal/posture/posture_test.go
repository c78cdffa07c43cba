package posture

import (
	"strings"
	"testing"
)

// README.md "Modes and permissions": Tab cycles Plan → Act → Operate, Shift+Tab Ask → Auto-Review → Full Access; approval_policy accepts suggest, on-request, untrusted, auto, bypass, never and an unknown value (yolo, BYPASS) is an error listing them.
func TestModesAndPostures(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Mode{"act": Act, "agent": Act, "1": Act, "PLAN": Plan, "2": Plan, "operate": Operate, "3": Operate} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseMode("yolo"); err == nil {
		t.Error("yolo is not a mode")
	}
	if Plan.Next() != Act || Act.Next() != Operate || Operate.Next() != Plan {
		t.Error("mode cycle must be Plan → Act → Operate → Plan")
	}
	if Ask.Next() != AutoReview || AutoReview.Next() != FullAccess || FullAccess.Next() != Ask {
		t.Error("posture cycle must be Ask → Auto-Review → Full Access → Ask")
	}
	for in, want := range map[string]Posture{"suggest": Ask, "on-request": Ask, "auto": AutoReview, "bypass": FullAccess, "never": Never} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"yolo", "BYPASS", "Auto", "full", "full-access", " never"} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), Values) {
			t.Errorf("Parse(%q) = %v; want an error naming %s", bad, err, Values)
		}
	}
	if Ask.Chip() != "ask" || AutoReview.Chip() != "auto" || FullAccess.Chip() != "Full Access" || Plan.Title() != "Plan" {
		t.Error("labels")
	}
}

func TestPostureOrder(t *testing.T) {
	t.Parallel()
	order := []Posture{Never, Ask, AutoReview, FullAccess}
	for i, p := range order {
		for j, q := range order {
			if got := p.NoMoreThan(q); got != (i <= j) {
				t.Errorf("%v.NoMoreThan(%v) = %v", p, q, got)
			}
		}
	}
}

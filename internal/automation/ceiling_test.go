package automation

import (
	"strings"
	"testing"
)

func TestCeilingMeet(t *testing.T) {
	t.Parallel()
	full := Ceiling{Posture: "full_access", AutoApprove: true, AllowShell: true, TrustMode: true}
	for _, c := range []struct {
		a, b, want Ceiling
	}{
		{full, Ceiling{Posture: "ask"}, Ceiling{Posture: "ask"}},
		{Ceiling{Posture: "ask"}, full, Ceiling{Posture: "ask"}},
		{full, Ceiling{Posture: "auto", AllowShell: true}, Ceiling{Posture: "auto", AllowShell: true}},
		{Ceiling{Posture: "auto"}, Ceiling{Posture: "never"}, Ceiling{Posture: "never"}},
		{Ceiling{}, full, Ceiling{Posture: "ask"}},
		{full, full, full},
	} {
		if got := c.a.Meet(c.b); got != c.want {
			t.Errorf("%+v meet %+v = %+v, want %+v", c.a, c.b, got, c.want)
		}
	}
	if !full.Exceeds(Ceiling{Posture: "ask"}) || (Ceiling{Posture: "ask"}).Exceeds(full) || full.Exceeds(full) {
		t.Error("Exceeds")
	}
	if d := full.Describe(); !strings.HasPrefix(d, "Full Access") || !strings.Contains(d, "shell commands and files outside the workspace") {
		t.Errorf("describe %q", d)
	}
}

package tui

import (
	"path/filepath"
	"testing"
	"time"

	auto "github.com/codewhale/codewhale/internal/automation"
)

// README.md "Automations": /automations lists, pauses, shows and deletes automations in the TUI.
// README.md "Slash commands": /automations list|show|pause|resume|delete scheduled work
func TestAutomationsCommand(t *testing.T) {
	t.Parallel()
	s, err := auto.Open(filepath.Join(t.TempDir(), "automations"))
	if err != nil {
		t.Fatal(err)
	}
	s.Now = func() time.Time { return time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC) }
	a, _ := s.Create(auto.New{Name: "morning digest", Prompt: "summarise new issues", Schedule: "FREQ=DAILY;AT=09:00", Timezone: "UTC"})
	woken := 0
	d := newDirect(t, 120, 30, func(o *Options) { o.Automations, o.WakeScheduler = s, func() { woken++ } })
	d.submit("/automations")
	d.mustShow(a.ID, "active", "FREQ=DAILY;AT=09:00", "morning digest")
	d.submit("/automations pause " + a.ID)
	d.mustShow(a.ID + " is paused")
	if got, _ := s.Get(a.ID); got.Status != auto.Paused || woken != 1 {
		t.Fatalf("status %s woken %d", got.Status, woken)
	}
	d.submit("/automations show " + a.ID)
	d.mustShow("Prompt: summarise new issues", "ceiling")
	d.submit("/automations delete " + a.ID)
	d.mustShow("Deleted " + a.ID)
	d.submit("/automations show auto_00000000")
	d.mustShow("automation not found")
}

package services

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	auto "github.com/codewhale/codewhale/internal/automation"
)

// automationsCommand is /automations [list|show <id>|pause <id>|resume
// <id>|delete <id>]: the user's view of scheduled work. Creating one is the
// model's automation tool, behind an approval.
func (sv *Services) Automations(host Host, arg string) tea.Cmd {
	s := sv.c.Automations
	if s == nil {
		host.System("Automations are not available in this session.")
		return nil
	}
	verb, id, _ := strings.Cut(strings.TrimSpace(arg), " ")
	id = strings.TrimSpace(id)
	switch verb {
	case "", "list":
		host.System(automationList(s))
	case "show":
		a, err := s.Get(id)
		if err != nil {
			host.System("Error: " + err.Error())
			return nil
		}
		host.System(automationDetail(a))
	case "pause", "resume":
		st := auto.Paused
		if verb == "resume" {
			st = auto.Active
		}
		a, err := s.SetStatus(id, st)
		if err != nil {
			host.System("Error: " + err.Error())
			return nil
		}
		if sv.c.WakeScheduler != nil {
			sv.c.WakeScheduler()
		}
		host.System(fmt.Sprintf("%s is %s; next run %s.", a.ID, a.Status, stamp(a.NextRun)))
	case "delete":
		if err := s.Delete(id); err != nil {
			host.System("Error: " + err.Error())
			return nil
		}
		host.System("Deleted " + id + ".")
	default:
		host.System("Usage: /automations [list|show <id>|pause <id>|resume <id>|delete <id>]")
	}
	return nil
}

func stamp(t *time.Time) string {
	if t == nil {
		return "none"
	}
	return t.Local().Format("Mon 2006-01-02 15:04 MST")
}

func automationList(s *auto.Store) string {
	list, problems, err := s.List()
	if err != nil {
		return "Error: " + err.Error()
	}
	var b strings.Builder
	if len(list) == 0 {
		b.WriteString("No automations. Ask for one (\"every weekday at 9, summarise new issues\"); creating it needs your approval.")
	}
	for i, a := range list {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s  %-7s  next %s  · %s · %s", a.ID, a.Status, stamp(a.NextRun), a.Schedule, a.Name)
	}
	for _, p := range problems {
		fmt.Fprintf(&b, "\n⚠ %s: %s", p.Path, p.Reason)
		if p.Quarantined != "" {
			fmt.Fprintf(&b, " (moved to %s)", p.Quarantined)
		}
	}
	return b.String()
}

func automationDetail(a *auto.Automation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s (%s)\nSchedule: %s (%s) · mode %s · next %s · last %s\n", a.ID, a.Name, a.Status,
		a.Schedule, a.Timezone, a.Mode, stamp(a.NextRun), stamp(a.LastRun))
	c := a.Ceiling
	fmt.Fprintf(&b, "Authority (ceiling %s): auto_approve=%v allow_shell=%v trust_mode=%v\nPrompt: %s",
		c.Posture, c.AutoApprove, c.AllowShell, c.TrustMode, a.Prompt)
	runs := a.History
	if len(runs) > 5 {
		runs = runs[len(runs)-5:]
	}
	for _, r := range runs {
		fmt.Fprintf(&b, "\n  %s %s %s %s", r.At.Local().Format("2006-01-02 15:04"), r.Status, r.TaskID, r.Note)
	}
	return b.String()
}

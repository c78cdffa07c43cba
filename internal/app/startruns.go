package app

import (
	"fmt"
	"strings"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools/tasks"
)

// startingRuns lists what a session that attaches the task runner starts
// at once — the queued tasks and the automations already due — each with
// the authority it runs with, so a person sees every run before its first
// tool call (CONTRACT.md §6.12). "" when nothing starts.
func startingRuns(queue *tasks.Store, autos *auto.Store) string {
	var lines []string
	for _, at := range autos.Due() {
		lines = append(lines, fmt.Sprintf("  • automation %s %q (due %s) — %s", at.ID, at.Name,
			at.NextRun.Local().Format("2006-01-02 15:04"), at.Ceiling.Describe()))
	}
	for _, t := range queue.Queued() {
		lines = append(lines, fmt.Sprintf("  • task %s %q — %s", t.ID, tasks.Summarize(t.Prompt, 60), taskCeiling(t).Describe()))
	}
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("Starting %d background run(s) now, with no one asked:\n%s\n"+
		"/automations pause <id> stops an automation's later runs; ask the agent to cancel a task (tasks cancel).",
		len(lines), strings.Join(lines, "\n"))
}

// taskCeiling is a queued task's authority in an automation ceiling's
// terms, so both read the same.
func taskCeiling(t tasks.TaskRecord) auto.Ceiling {
	a := t.RunAuthority()
	p, _ := posture.Parse(a.Posture)
	names := map[posture.Posture]string{posture.FullAccess: "full_access", posture.AutoReview: "auto", posture.Never: "never"}
	c := auto.Ceiling{Posture: "ask", AutoApprove: a.AutoApprove, AllowShell: a.AllowShell, TrustMode: a.Trust}
	if n, ok := names[p]; ok {
		c.Posture = n
	}
	return c
}

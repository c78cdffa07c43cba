package app

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/tools/tasks"
)

// AutomationsDir is where automations are stored.
func AutomationsDir(home string) string { return filepath.Join(home, "automations") }

// openAutomations wires the automation store into the session's tools.
func (a *App) openAutomations() error {
	store, err := auto.Open(AutomationsDir(a.Cfg.Home))
	if err != nil {
		return err
	}
	a.Automations = store
	a.Services.Automations = store
	a.Services.Enqueue = EnqueueInto(a.Tasks, a.Cfg.Model)
	return nil
}

// newScheduler makes the scheduler for due automations in this process,
// which runs the task queue; it fires nothing until ReleaseRuns runs it.
func (a *App) newScheduler() {
	a.Scheduler = auto.NewScheduler(a.Automations, a.Services.Enqueue)
	a.Services.Wake = a.Scheduler.Wake
}

// EnqueueInto makes a due run a durable task in store, with no more
// authority than the automation's ceiling.
func EnqueueInto(store *tasks.Store, model string) auto.Enqueue {
	return func(_ context.Context, at auto.Automation, due time.Time) (string, error) {
		mode := at.Mode
		if mode == "act" || mode == "" {
			mode = "agent"
		}
		rec, err := store.Create(tasks.NewTask{
			Prompt: fmt.Sprintf("%s\n\n(Scheduled run of automation %s %q, due %s.)", at.Prompt, at.ID, at.Name,
				due.Format(time.RFC3339)),
			Model: model, Workspace: at.Workspace, Mode: mode, AllowShell: at.Ceiling.AllowShell,
			TrustMode: at.Ceiling.TrustMode, AutoApprove: at.Ceiling.AutoApprove, OwnerSessionID: "automation:" + at.ID,
			Posture: at.Ceiling.PolicyPosture().Value()})
		if err != nil {
			return "", err
		}
		return rec.ID, nil
	}
}

// DueResult is one run RunDue started and how its task ended.
type DueResult struct {
	Fired   auto.Fired
	Summary string
	Err     error
}

// RunDue enqueues what is due now and runs those tasks to their end in this
// process (`codewhale automation run-due`, for cron and systemd users; a
// running TUI's scheduler does the same on its own). It must be called on
// an App built without RunTasks.
func (a *App) RunDue(ctx context.Context) ([]DueResult, error) {
	// This process runs what it fires, so it claims the task queue first:
	// with another session's runner on it, that session's scheduler runs
	// due automations and this one does nothing.
	type done struct {
		id, summary string
		err         error
	}
	finished := make(chan done, 64)
	run := func(ctx context.Context, t tasks.TaskRecord) (string, error) {
		s, err := a.runTask(ctx, t)
		finished <- done{t.ID, s, err}
		return s, err
	}
	if err := a.Tasks.AttachRunner(ctx, run, 1); err != nil {
		return nil, err
	}
	fired, err := a.Automations.RunDue(ctx, a.Services.Enqueue)
	if err != nil || len(fired) == 0 {
		a.Tasks.Close()
		return nil, err
	}
	want := map[string]int{}
	results := make([]DueResult, len(fired))
	for i, f := range fired {
		results[i].Fired = f
		if f.Run.TaskID != "" {
			want[f.Run.TaskID] = i
		} else {
			results[i].Err = fmt.Errorf("%s", f.Run.Note)
		}
	}
	defer a.Tasks.Close()
	for len(want) > 0 {
		select {
		case <-ctx.Done():
			return results, ctx.Err()
		case d := <-finished:
			if i, ok := want[d.id]; ok {
				results[i].Summary, results[i].Err = d.summary, d.err
				delete(want, d.id)
			}
		}
	}
	return results, nil
}

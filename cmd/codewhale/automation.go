package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/app"
	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/tools/tasks"
)

// newAutomationCmd is `codewhale automation list|show|pause|resume|delete|run-due`.
func newAutomationCmd(ios IO, g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "automation", Short: "Scheduled work: list, inspect, pause, resume, delete, run what is due"}
	store := func() (*auto.Store, error) {
		cfg, err := g.load()
		if err != nil {
			return nil, err
		}
		return auto.Open(app.AutomationsDir(cfg.Home))
	}
	var asJSON bool
	list := &cobra.Command{Use: "list", Short: "List automations", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error {
		s, err := store()
		if err != nil {
			return &exitError{code: exitFailure, err: err}
		}
		return fail(runAutomationList(ios, s, asJSON))
	}}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	show := &cobra.Command{Use: "show ID", Short: "Show one automation and its recent runs", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := store()
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			a, err := s.Get(args[0])
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			data, _ := json.MarshalIndent(a, "", "  ")
			fmt.Fprintln(ios.Out, string(data))
			return nil
		}}
	status := func(use, short, st string) *cobra.Command {
		return &cobra.Command{Use: use + " ID", Short: short, Args: cobra.ExactArgs(1), RunE: func(_ *cobra.Command, args []string) error {
			s, err := store()
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			a, err := s.SetStatus(args[0], st)
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			fmt.Fprintf(ios.Out, "%s %s (%s); next run %s\n", a.ID, a.Status, a.Name, when(a.NextRun))
			return nil
		}}
	}
	del := &cobra.Command{Use: "delete ID", Short: "Delete an automation", Args: cobra.ExactArgs(1), RunE: func(_ *cobra.Command, args []string) error {
		s, err := store()
		if err != nil {
			return &exitError{code: exitFailure, err: err}
		}
		if err := s.Delete(args[0]); err != nil {
			return &exitError{code: exitFailure, err: err}
		}
		fmt.Fprintf(ios.Out, "Deleted %s.\n", args[0])
		return nil
	}}
	runDue := &cobra.Command{Use: "run-due", Short: "Run every automation that is due now, once, and wait for its task (for cron/systemd)",
		Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return runAutomationDue(ios, g) }}
	cmd.AddCommand(list, show, status("pause", "Pause an automation", auto.Paused),
		status("resume", "Resume a paused automation", auto.Active), del, runDue)
	return cmd
}

func fail(err error) error {
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	return nil
}

func when(t *time.Time) string {
	if t == nil {
		return "none"
	}
	return t.Local().Format("2006-01-02 15:04 MST")
}

func runAutomationList(ios IO, s *auto.Store, asJSON bool) error {
	list, problems, err := s.List()
	if err != nil {
		return err
	}
	if asJSON {
		data, _ := json.MarshalIndent(map[string]any{"automations": list, "unreadable": problems}, "", "  ")
		fmt.Fprintln(ios.Out, string(data))
		return nil
	}
	for _, p := range problems {
		msg := p.Reason
		if p.Quarantined != "" {
			msg += "; moved to " + p.Quarantined
		}
		fmt.Fprintf(ios.Err, "warning: %s: %s\n", p.Path, msg)
	}
	if len(list) == 0 {
		fmt.Fprintln(ios.Out, "No automations. The model creates them with the automation tool (create needs your approval).")
		return nil
	}
	tw := tabwriter.NewWriter(ios.Out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tNEXT RUN\tLAST RUN\tSCHEDULE\tNAME")
	for _, a := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.Status, when(a.NextRun), when(a.LastRun), a.Schedule, a.Name)
	}
	return tw.Flush()
}

func runAutomationDue(ios IO, g *globals) error {
	cfg, err := g.load()
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	a, err := app.New(cfg, app.Options{Version: codewhaleVersion()})
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	defer a.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	results, err := a.RunDue(ctx)
	if errors.Is(err, tasks.ErrRunnerElsewhere) {
		fmt.Fprintf(ios.Out, "Nothing to do here: %v, and its scheduler runs due automations.\n", err)
		return nil
	}
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	if len(results) == 0 {
		fmt.Fprintln(ios.Out, "Nothing is due.")
		return nil
	}
	failed := 0
	for _, r := range results {
		status := "completed"
		if r.Err != nil {
			status, failed = "failed: "+r.Err.Error(), failed+1
		}
		fmt.Fprintf(ios.Out, "%s %q task %s %s", r.Fired.ID, r.Fired.Name, r.Fired.Run.TaskID, status)
		if r.Fired.Run.Missed > 0 {
			fmt.Fprintf(ios.Out, " (caught up; %d earlier runs missed)", r.Fired.Run.Missed)
		}
		fmt.Fprintln(ios.Out)
	}
	if failed > 0 {
		return &exitError{code: exitFailure, err: fmt.Errorf("%d of %d due runs failed", failed, len(results))}
	}
	return nil
}

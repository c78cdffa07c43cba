package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/app"
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/projectctx"
)

type initOptions struct {
	force, yes, dryRun bool
	maxTurns           int
}

// newInitCmd is `codewhale init`, the headless /init (CONTRACT.md §17.6).
func newInitCmd(ios IO, g *globals) *cobra.Command {
	o := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Survey the repository (a Plan-mode turn) and propose an AGENTS.md, shown as a diff and written only when you say yes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.maxTurns < 1 {
				return &exitError{code: exitFailure, err: errors.New("--max-turns must be at least 1")}
			}
			if !o.yes && !o.dryRun && !isTerminal(ios.In) {
				return &exitError{code: exitFailure, err: errors.New("codewhale init asks before it writes AGENTS.md, and standard input " +
					"is not a terminal; pass --yes to write without asking or --dry-run to only print the diff")}
			}
			cfg, err := g.load()
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			if code := runInit(ios, cfg, o); code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.force, "force", false, "write a fresh AGENTS.md instead of improving the existing one")
	f.BoolVarP(&o.yes, "yes", "y", false, "write the proposal without asking")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the diff and write nothing")
	f.IntVar(&o.maxTurns, "max-turns", 100, "maximum model steps of the survey")
	cmd.MarkFlagsMutuallyExclusive("yes", "dry-run")
	return cmd
}

// runInit runs the survey turn, prints the diff on stdout (the turn's
// progress goes to stderr) and writes the file once the user says so.
func runInit(ios IO, cfg *config.Config, o *initOptions) int {
	d, err := projectctx.NewInitDraft(cfg.Workspace, o.force)
	if err != nil {
		fmt.Fprintln(ios.Err, "error:", err)
		return exitFailure
	}
	// Signals end the survey as they end exec (CONTRACT.md §13.4):
	// 128+signal once the turn has stopped and the session is saved.
	ctx, sig := notifySignals()
	defer sig.stop()
	reply, code := surveyTurn(ctx, ios, cfg, d, o.maxTurns)
	if c, ok := sig.exit(); ok {
		return c
	}
	if code != exitOK {
		return code
	}
	// From here on nothing runs that a signal should wait for: Ctrl+C at
	// the question ends the process at once, with nothing written.
	sig.stop()
	proposal, err := d.Proposal(reply)
	if err != nil {
		fmt.Fprintf(ios.Err, "error: %v; %s is unchanged\n", err, d.Path)
		return exitFailure
	}
	diff := d.Diff(proposal)
	if diff == "" {
		fmt.Fprintf(ios.Err, "The proposal is what %s already says; nothing to write.\n", d.Path)
		return exitOK
	}
	fmt.Fprint(ios.Out, diff)
	switch {
	case o.dryRun:
		fmt.Fprintf(ios.Err, "Not written (--dry-run); %s is unchanged.\n", d.Path)
		return exitOK
	case !o.yes:
		if yes, err := confirm(ios, "Write "+d.Path+"? [y/N] "); err != nil || !yes {
			fmt.Fprintf(ios.Err, "Not written; %s is unchanged.\n", d.Path)
			return exitOK
		}
	}
	if err := d.Write(proposal); err != nil {
		fmt.Fprintln(ios.Err, "error:", err)
		return exitFailure
	}
	fmt.Fprintf(ios.Err, "Wrote %s.\n", d.Path)
	return exitOK
}

// surveyTurn runs the Plan-mode survey and returns its final answer.
func surveyTurn(ctx context.Context, ios IO, cfg *config.Config, d *projectctx.InitDraft, maxTurns int) (string, int) {
	plan := posture.Plan
	a, err := app.New(cfg, app.Options{Version: codewhaleVersion(), Mode: &plan, Executable: executable()})
	if err != nil {
		fmt.Fprintln(ios.Err, "error:", err)
		return "", exitFailure
	}
	defer a.Close()
	opts := a.EngineOptions()
	opts.MaxSteps = maxTurns
	// The survey's progress (its text and tool calls) goes to stderr, so
	// stdout carries the diff alone.
	progress := newExecPrinter(IO{In: ios.In, Out: ios.Err, Err: ios.Err}, &execOptions{outputFormat: "text"})
	_, notices := a.Start(ctx, opts)
	progress.storeNotices(notices.Store)
	progress.hookNotices(notices.Hooks)
	fmt.Fprintf(ios.Err, "Surveying %s in Plan mode (read-only tools) to propose %s…\n", cfg.Workspace, d.Path)
	reply, _ := a.RunTurn(ctx, engine.SendMessage{Content: d.Prompt, Provenance: engine.ProvenanceUser,
		Scope: &engine.TurnScope{Command: "init", Mode: &plan}}, progress.event)
	progress.flushText()
	a.StopAgents(ctx, 0)
	switch done := reply.Done; {
	case ctx.Err() != nil || done.Status == engine.TurnInterrupted:
		fmt.Fprintf(ios.Err, "Interrupted; %s is unchanged.\n", d.Path)
		return "", exitInterrupt
	case done.Status != engine.TurnCompleted:
		fmt.Fprintf(ios.Err, "error: the survey turn did not complete (%s%s); %s is unchanged\n", done.Status, orReason(done.Error), d.Path)
		if tempFailure(done.ErrorCategory) {
			return "", exitTempFail
		}
		return "", exitFailure
	}
	return reply.Text, exitOK
}

func orReason(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// isTerminal reports whether an end of IO (In or Out) is a terminal.
func isTerminal(end any) bool {
	f, ok := end.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// confirm asks a yes/no question on the terminal; only "y" or "yes" is a
// yes. What was typed before the question appeared (while the survey ran)
// is discarded first, so a key pressed early never answers it.
func confirm(ios IO, question string) (bool, error) {
	if f, ok := ios.In.(*os.File); ok {
		discardTypeAhead(f)
	}
	fmt.Fprint(ios.Err, question)
	line, err := bufio.NewReader(ios.In).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(ios.Err)
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

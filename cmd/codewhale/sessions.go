package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/session"
)

type sessionsOptions struct {
	limit    int
	search   string
	all      bool
	archived bool
}

// newSessionsCmd is `codewhale sessions [-l N] [-s text] [--all]`.
func newSessionsCmd(ios IO, g *globals) *cobra.Command {
	o := &sessionsOptions{}
	cmd := &cobra.Command{
		Use:   "sessions [-l N] [-s text] [--archived] | sessions rename|export|delete|archive|unarchive ID",
		Short: "List saved sessions of this workspace, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			importLegacySessions(ios, g, cfg)
			if err := runSessions(ios, cfg, o, time.Now()); err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.limit, "limit", "l", 20, "show at most N sessions (0 for all)")
	f.StringVarP(&o.search, "search", "s", "", "only sessions whose title or first message contains this text")
	f.BoolVar(&o.all, "all", false, "list the sessions of every workspace")
	f.BoolVar(&o.archived, "archived", false, "include archived sessions")
	cmd.AddCommand(sessionEditCmds(ios, g)...)
	return cmd
}

func runSessions(ios IO, cfg *config.Config, o *sessionsOptions, now time.Time) error {
	if o.limit < 0 {
		return errors.New("--limit must be 0 (all) or more")
	}
	q := session.Query{Workspace: cfg.Workspace, Search: o.search, Limit: o.limit, Archived: o.archived}
	if o.all {
		q.Workspace = ""
	}
	ms, err := session.List(cfg.Home, q)
	if err != nil {
		return err
	}
	if len(ms) == 0 {
		where := "in " + cfg.Workspace
		if o.all {
			where = "in any workspace"
		}
		if o.search != "" {
			where += fmt.Sprintf(" matching %q", o.search)
		}
		fmt.Fprintf(ios.Out, "No saved sessions %s.\n", where)
		if !o.all {
			fmt.Fprintln(ios.Out, "`codewhale sessions --all` lists the sessions of every workspace.")
		}
		return nil
	}
	if err := session.WriteTable(ios.Out, ms, now, o.all); err != nil {
		return err
	}
	fmt.Fprintln(ios.Out, "\nResume one with `codewhale resume <ID>` (a unique prefix is enough).")
	return nil
}

// newResumeCmd is `codewhale resume [ID] [--last]`.
func newResumeCmd(ios IO, g *globals) *cobra.Command {
	var last bool
	cmd := &cobra.Command{
		Use:   "resume [ID] [--last]",
		Short: "Resume a saved session by id or unique prefix, or this workspace's latest with --last",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := g.load()
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			importLegacySessions(ios, g, cfg)
			ref := ""
			if len(args) == 1 {
				ref = args[0]
			}
			if err := runResume(ios, g, cfg, ref, last); err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&last, "last", false, "resume the most recent session of this workspace")
	return cmd
}

func runResume(ios IO, g *globals, cfg *config.Config, ref string, last bool) error {
	switch {
	case ref != "" && last:
		return errors.New("give a session ID or --last, not both")
	case ref == "" && !last && isTerminal(ios.In) && isTerminal(ios.Out):
		return runTUIPicking(ios, g)
	case ref == "" && !last:
		ms, err := session.List(cfg.Home, session.Query{Workspace: cfg.Workspace, Limit: 10})
		if err == nil && len(ms) > 0 {
			fmt.Fprintln(ios.Err, "Recent sessions in this workspace:")
			_ = session.WriteTable(ios.Err, ms, time.Now(), false)
		}
		return errors.New("resume needs a session ID (or unique prefix), or --last for this workspace's latest session")
	}
	l, err := session.Resolve(cfg.Home, cfg.Workspace, ref, last)
	if err != nil {
		return err
	}
	return resumeSession(ios, g, l)
}

// resumeSession hands the resolved session to the interactive UI.
func resumeSession(ios IO, g *globals, l *session.Loaded) error {
	return runTUIWithSession(ios, g, l)
}

// importLegacySessions copies sessions from ~/.deepseek/sessions when none
// of the same id exists yet (CONTRACT.md §12.2). Only for the default home:
// with CODEWHALE_HOME set, the user chose a separate store.
func importLegacySessions(ios IO, g *globals, cfg *config.Config) {
	if cfg.HomeFromEnv {
		return
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return
	}
	ids, err := session.ImportLegacy(cfg.Home, filepath.Join(home, ".deepseek", "sessions"), session.OptionsFrom(cfg))
	if len(ids) > 0 {
		fmt.Fprintf(ios.Err, "Imported %d session(s) from ~/.deepseek/sessions.\n", len(ids))
	}
	if err != nil && g.verbose {
		fmt.Fprintln(ios.Err, "warning: importing legacy sessions:", err)
	}
}

package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/session"
)

// sessionAction is what a session subcommand does to the resolved session;
// args are the command's arguments after the id.
type sessionAction func(cfg *config.Config, l *session.Loaded, args []string) error

// sessionEditCmds are `codewhale sessions rename|export|delete|archive|
// unarchive`: each resolves an id or unique prefix among every workspace's
// sessions and changes or writes that one.
func sessionEditCmds(ios IO, g *globals) []*cobra.Command {
	run := func(f sessionAction) func(*cobra.Command, []string) error {
		return func(_ *cobra.Command, args []string) error {
			cfg, err := g.load()
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			l, err := session.Resolve(cfg.Home, "", args[0], false)
			if err == nil {
				err = f(cfg, l, args[1:])
			}
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			return nil
		}
	}
	rename := &cobra.Command{Use: "rename ID TITLE…", Short: "Set a saved session's title", Args: cobra.MinimumNArgs(2),
		RunE: run(func(cfg *config.Config, l *session.Loaded, args []string) error {
			if err := session.Rename(cfg.Home, nil, l.Meta.ID, strings.Join(args, " ")); err != nil {
				return err
			}
			fmt.Fprintf(ios.Out, "Renamed session %s.\n", session.ShortID(l.Meta.ID))
			return nil
		})}
	del := &cobra.Command{Use: "delete ID", Short: "Delete a saved session", Args: cobra.ExactArgs(1),
		RunE: run(func(cfg *config.Config, l *session.Loaded, _ []string) error {
			if err := session.Delete(cfg.Home, l.Meta.ID); err != nil {
				return err
			}
			fmt.Fprintf(ios.Out, "Deleted session %s.\n", session.ShortID(l.Meta.ID))
			return nil
		})}
	archive := func(name string, on bool) *cobra.Command {
		short := "Hide a saved session from listings (`sessions --archived` shows it)"
		if !on {
			short = "List an archived session again"
		}
		return &cobra.Command{Use: name + " ID", Short: short, Args: cobra.ExactArgs(1),
			RunE: run(func(cfg *config.Config, l *session.Loaded, _ []string) error {
				if err := session.Archive(cfg.Home, nil, l.Meta.ID, on); err != nil {
					return err
				}
				fmt.Fprintf(ios.Out, "%sd session %s.\n", strings.ToUpper(name[:1])+name[1:], session.ShortID(l.Meta.ID))
				return nil
			})}
	}
	return []*cobra.Command{rename, newSessionsExportCmd(ios, run), del, archive("archive", true), archive("unarchive", false)}
}

// newSessionsExportCmd is `codewhale sessions export ID [--format md|json]
// [-o FILE]`: the transcript on stdout, or in FILE.
func newSessionsExportCmd(ios IO, run func(sessionAction) func(*cobra.Command, []string) error) *cobra.Command {
	var format, out string
	cmd := &cobra.Command{Use: "export ID [--format markdown|json] [-o FILE]", Short: "Write a saved session's transcript as Markdown or JSON",
		Args: cobra.ExactArgs(1),
		RunE: run(func(_ *config.Config, l *session.Loaded, _ []string) error {
			f, err := session.ParseExportFormat(format)
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				return session.Export(ios.Out, l, f)
			}
			return session.ExportFile(out, l, f)
		})}
	cmd.Flags().StringVar(&format, "format", "markdown", "markdown (md) or json")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of stdout (refuses to overwrite one)")
	return cmd
}

package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/httptransport"
	"github.com/codewhale/codewhale/internal/logfile"
)

// openLog starts the run's diagnostic log (internal/logfile) in
// $CODEWHALE_HOME/logs: one record for the command, and with --debug the
// provider requests' metadata (bodies only with --debug=bodies). A log that
// cannot be opened is said once on stderr; the run goes on without it.
func (g *globals) openLog(ios IO, cmd *cobra.Command) error {
	level := slog.LevelInfo
	switch g.debug {
	case "":
	case "on", "true", "metadata":
		level = slog.LevelDebug
	case "bodies":
		level = slog.LevelDebug
	default:
		return &exitError{code: exitFailure, err: fmt.Errorf("unknown --debug=%s (give --debug or --debug=bodies)", g.debug)}
	}
	home := config.HomeDir(config.ProcessEnv())
	log, w, err := logfile.Open(logfile.Options{Home: home, Level: level})
	if err != nil {
		fmt.Fprintf(ios.Err, "warning: no log this run: %v\n", err)
		g.log = logfile.Discard()
		return nil
	}
	g.log, g.logw = log, w
	if level == slog.LevelDebug {
		httptransport.SetDebug(log, g.debug == "bodies")
		fmt.Fprintf(ios.Err, "debug: logging request metadata to %s\n", logfile.Path(home))
	}
	log.Info("start", "command", cmd.CommandPath(), "version", codewhaleVersion(), "pid", os.Getpid(), "debug", g.debug)
	return nil
}

// closeLog records how the command ended and closes the log.
func (g *globals) closeLog(err error) {
	if g.logw == nil {
		return
	}
	code := 0
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		code = ee.code
	case err != nil:
		code = 1
	}
	if err != nil && err.Error() != "" {
		g.log.Info("end", "exit_code", code, "error", err.Error())
	} else {
		g.log.Info("end", "exit_code", code)
	}
	httptransport.SetDebug(nil, false)
	g.logw.Close()
}

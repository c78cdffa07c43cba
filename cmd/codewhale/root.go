package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/tools"
)

// version is set at build time with -ldflags "-X main.version=…" (make
// build, the release archives). Without it the version comes from the
// build information: `go install …/cmd/codewhale@v1.2.3` records v1.2.3.
var version string

// IO is where a command reads and writes. Commands take it rather than
// touching os.Stdout so a run function can be driven with buffers; the
// end-to-end tests run the built binary instead (e2e_test.go).
type IO struct {
	In       io.Reader
	Out, Err io.Writer
}

func stdio() IO { return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr} }

// globals are the flags every command shares.
type globals struct {
	provider, model, baseURL, apiKey, configPath, workspace, approval string
	apiKeyFile                                                        string
	in                                                                io.Reader // for --api-key -
	sandboxMode                                                       string
	noProjectConfig, verbose                                          bool
	resume                                                            string // -r/--resume
	continueLast, noMouse                                             bool
	debug                                                             string // --debug: "", "on" or "bodies"
	log                                                               *slog.Logger
	logw                                                              io.Closer
}

// exitError carries a process exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func run(args []string, ios IO) int {
	if len(args) == 1 && args[0] == "--version" {
		// The start-up budget (docs/PERFORMANCE.md) is measured on this
		// path: answer before building the cobra tree of every command, with
		// cobra's own version text.
		fmt.Fprintf(ios.Out, "codewhale version %s\n", codewhaleVersion())
		return 0
	}
	g := &globals{in: ios.In}
	root := newRootCmd(ios, g)
	root.SetArgs(args)
	err := root.Execute()
	g.closeLog(err)
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintln(ios.Err, "error:", ee.err)
		}
		return ee.code
	default:
		fmt.Fprintln(ios.Err, "error:", err)
		return 1
	}
}

func newRootCmd(ios IO, g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:           "codewhale [flags] [PROMPT...]",
		Short:         "A terminal coding agent for DeepSeek models",
		Version:       codewhaleVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Args = cobra.ArbitraryArgs
	o := &execOptions{waitAgents: "cancel", inputFormat: "text"}
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if print, _ := cmd.Flags().GetBool("print"); print {
			return runPrint(cmd, ios, g, o, args)
		}
		if err := headlessFlagWithoutPrint(cmd); err != nil {
			return &exitError{code: exitFailure, err: err}
		}
		prompt := strings.Join(args, " ")
		if p, _ := cmd.Flags().GetString("prompt"); p != "" {
			prompt = p
		}
		if g.continueLast && prompt != "" {
			return &exitError{code: exitFailure, err: errors.New("-c/--continue cannot be combined with a startup prompt")}
		}
		return runTUI(ios, g, prompt)
	}
	root.Flags().String("prompt", "", "open the TUI and submit this prompt as the first message")
	root.Flags().BoolP("print", "p", false, "run PROMPT headless as an agent and print the answer (- or piped stdin: see exec)")
	addHeadlessFlags(root.Flags(), o)
	root.Flags().StringVarP(&g.resume, "resume", "r", "", "resume a saved session (id or unique prefix)")
	root.Flags().BoolVarP(&g.continueLast, "continue", "c", false, "continue this workspace's latest session")
	root.Flags().BoolVar(&g.noMouse, "no-mouse-capture", false, "leave the mouse to the terminal (select and scroll natively)")
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.Err)
	pf := root.PersistentFlags()
	pf.StringVar(&g.provider, "provider", "", "model provider (default deepseek)")
	pf.StringVarP(&g.model, "model", "m", "", "model id (default deepseek-v4-pro)")
	pf.StringVar(&g.baseURL, "base-url", "", "provider base URL (overrides CODEWHALE_BASE_URL and config)")
	pf.StringVar(&g.apiKey, "api-key", "", "API key for this run; - reads it from stdin (a literal key shows in ps: prefer --api-key-file, DEEPSEEK_API_KEY or codewhale auth set)")
	pf.StringVar(&g.apiKeyFile, "api-key-file", "", "read the API key for this run from the first line of this file")
	pf.StringVar(&g.configPath, "config", "", "config file (default $CODEWHALE_HOME/config.toml)")
	pf.StringVarP(&g.workspace, "workspace", "C", "", "workspace directory (default: the current directory)")
	pf.StringVar(&g.approval, "approval-policy", "", "approval posture: suggest|auto|bypass|never")
	pf.StringVar(&g.sandboxMode, "sandbox", "", "command sandbox: read-only|workspace-write|danger-full-access|external-sandbox (default workspace-write)")
	pf.StringVar(&g.sandboxMode, "sandbox-mode", "", "same as --sandbox")
	_ = pf.MarkHidden("sandbox-mode")
	pf.BoolVar(&g.noProjectConfig, "no-project-config", false, "ignore <workspace>/.codewhale/config.toml")
	pf.BoolVarP(&g.verbose, "verbose", "v", false, "verbose diagnostics on stderr")
	pf.StringVar(&g.debug, "debug", "", "log request and response metadata to $CODEWHALE_HOME/logs/codewhale.log; --debug=bodies adds the bodies")
	pf.Lookup("debug").NoOptDefVal = "on"
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return g.openLog(ios, cmd) }
	root.AddCommand(newExecCmd(ios, g), newToolsCmd(ios, g), newAuthCmd(ios, g), newMCPCmd(ios, g),
		newSessionsCmd(ios, g), newResumeCmd(ios, g), newAutomationCmd(ios, g), newDoctorCmd(ios, g), newInitCmd(ios, g), newModelsCmd(ios, g), newACPCmd(ios, g))
	return root
}

// workspaceDir returns the canonical workspace.
func (g *globals) workspaceDir() (string, error) {
	dir := g.workspace
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", abs)
	}
	return tools.Canonical(abs), nil
}

// load resolves the workspace and configuration.
func (g *globals) load() (*config.Config, error) {
	ws, err := g.workspaceDir()
	if err != nil {
		return nil, err
	}
	if err := g.resolveAPIKey(); err != nil {
		return nil, err
	}
	return config.Load(config.Flags{Provider: g.provider, Model: g.model, BaseURL: g.baseURL, APIKey: g.apiKey,
		ConfigPath: g.configPath, Workspace: ws, ApprovalPolicy: g.approval, SandboxMode: g.sandboxMode,
		NoProjectConfig: g.noProjectConfig}, nil)
}

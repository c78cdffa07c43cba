package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/app"
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/hooks"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/session"
)

// Exit codes of exec (CONTRACT.md §13.4).
const (
	exitOK        = 0
	exitFailure   = 1
	exitTempFail  = 75
	exitInterrupt = 130
)

type execOptions struct {
	prompt          string
	json            bool
	outputFormat    string
	auto            bool
	yolo            bool
	mode            string
	maxTurns        int
	allowedTools    []string
	disallowedTools []string
	appendSystem    string
	reasoningEffort string
	resume          string
	continueLast    bool
	hooks, noHooks  bool
	waitAgents      string
	images          []string
	inputFormat     string
	forceAgent      bool   // exec --agent, and -p/--print
	jsonSchema      string // --json-schema FILE
}

// agent reports whether a flag selected agent mode (engine and tools).
func (o *execOptions) agent(cmd *cobra.Command) bool {
	if o.forceAgent || o.jsonSchema != "" {
		return true
	}
	for _, f := range []string{"auto", "yolo", "max-turns", "allowed-tools", "disallowed-tools", "append-system-prompt", "mode",
		"resume", "session-id", "continue", "sandbox", "sandbox-mode"} {
		if cmd.Flags().Changed(f) {
			return true
		}
	}
	return o.outputFormat == "stream-json" || o.streamInput()
}

// streamInput reports that the messages come on stdin as JSON lines.
func (o *execOptions) streamInput() bool { return o.inputFormat == "stream-json" }

// checkArgs is PROMPT given exactly when the messages do not come on stdin.
func (o *execOptions) checkArgs(args []string) error {
	switch {
	case o.inputFormat != "text" && !o.streamInput():
		return fmt.Errorf("unknown --input-format %q (text or stream-json)", o.inputFormat)
	case o.streamInput() && len(args) > 0:
		return errors.New("with --input-format stream-json the messages come on stdin, one JSON line each: give no PROMPT")
	case o.streamInput() && len(o.images) > 0:
		return errors.New("with --input-format stream-json send images as parts of the stdin messages, not --image")
	case o.outputFormat != "text" && o.outputFormat != "json" && o.outputFormat != "stream-json":
		return fmt.Errorf("unknown --output-format %q (text, json or stream-json)", o.outputFormat)
	}
	if o.outputFormat == "json" {
		o.json = true
	}
	return nil
}

func newExecCmd(ios IO, g *globals) *cobra.Command {
	o := &execOptions{}
	cmd := &cobra.Command{
		Use:   "exec [flags] PROMPT",
		Short: "Run one prompt headless: one-shot by default, an agent with tools with --agent (or --auto, --mode, stream-json)",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.prompt = strings.Join(args, " ")
			if err := o.checkArgs(args); err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			if err := o.stdinPrompt(ios, args, g.apiKey == "-"); err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			if _, err := waitAgentsFor(o.waitAgents); err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			if cmd.Flags().Changed("max-turns") && o.maxTurns < 1 {
				return &exitError{code: exitFailure, err: errors.New("--max-turns must be at least 1")}
			}
			cfg, err := g.load()
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			var code int
			if _, _, isCommand := commandToken(o.prompt); o.agent(cmd) || isCommand {
				code = runExecAgent(ios, cfg, o)
			} else {
				code = runExecOneShot(ios, cfg, o)
			}
			if code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "print one JSON object at the end (as --output-format json)")
	f.BoolVar(&o.forceAgent, "agent", false, "run as an agent with tools and the system prompt (as -p/--print does) rather than one-shot")
	f.StringVar(&o.inputFormat, "input-format", "text", "text (PROMPT) | stream-json (user messages with text and image parts, one JSON line each on stdin, run as turns in order)")
	addHeadlessFlags(f, o)
	f.StringVar(&o.resume, "resume", "", "continue a saved session (id or unique prefix)")
	f.StringVar(&o.resume, "session-id", "", "same as --resume")
	f.BoolVar(&o.continueLast, "continue", false, "continue this workspace's latest session")
	f.BoolVar(&o.hooks, "hooks", false, "also run the project's .codewhale/hooks.toml when it is not trusted (this run only)")
	f.BoolVar(&o.noHooks, "no-hooks", false, "run no hooks at all")
	cmd.MarkFlagsMutuallyExclusive("hooks", "no-hooks")
	f.StringArrayVar(&o.images, "image", nil, "attach an image (PNG, JPEG, GIF, WebP) inside the workspace to the prompt; repeatable")
	f.StringVar(&o.waitAgents, "wait-agents", "cancel", "sub-agents still running at the end: cancel (default), wait, or a duration to wait before cancelling (e.g. 5m)")
	return cmd
}

// runExecOneShot sends one non-streaming request without tools.
func runExecOneShot(ios IO, cfg *config.Config, o *execOptions) int {
	ctx, sig := notifySignals()
	defer sig.stop()
	fail := func(err error) int {
		if code, ok := sig.exit(); ok {
			return code
		}
		fmt.Fprintln(ios.Err, "error:", err)
		return exitFailure
	}
	client, err := cfg.NewClient(ctx, cfg.Model, "codewhale/"+codewhaleVersion())
	if err != nil {
		return fail(err)
	}
	client = client.WithOnRetry(func(r provider.RetryInfo) {
		fmt.Fprintln(ios.Err, engine.Retry{Attempt: r.Attempt, Max: r.Max, Reason: r.Reason, Wait: r.Wait}.Line())
	})
	imgs, err := execImages(ctx, cfg, o.images)
	if err == nil && len(imgs) > 0 {
		err = client.CheckVision()
	}
	if err != nil {
		return fail(err)
	}
	prompt, notices, err := oneShotMessage(ctx, cfg, o)
	for _, n := range notices {
		fmt.Fprintln(ios.Err, "hooks: "+n)
	}
	if err != nil {
		return fail(err)
	}
	req := &provider.Request{Model: client.Model(), MaxTokens: 4096, Messages: []provider.Message{oneShotUser(prompt, imgs)}}
	if o.reasoningEffort != "" {
		req.ReasoningEffort = o.reasoningEffort
	}
	if o.json {
		t, p := 0.2, 0.9
		req.System, req.Temperature, req.TopP = "You are a concise, accurate assistant. Answer directly.", &t, &p
	}
	resp, err := client.Complete(ctx, req)
	if err != nil {
		code := fail(err)
		if code == exitFailure && tempFailure(engine.ErrorCategory(err)) {
			return exitTempFail
		}
		return code
	}
	if o.json {
		enc := json.NewEncoder(ios.Out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"mode": "one-shot", "provider": client.ProviderName(), "model": client.Model(),
			"success": true, "output": resp.Text()})
	} else {
		fmt.Fprintln(ios.Out, resp.Text())
	}
	if code, ok := sig.exit(); ok {
		return code
	}
	return exitOK
}

// tempFailure reports whether a failure of this category (CONTRACT.md
// §8.4) may pass if the run is tried again later, the exit code 75 of
// CONTRACT.md §13.4: the network, a timeout or the provider's rate limit,
// each after the retries.
func tempFailure(category string) bool {
	return category == "network" || category == "timeout" || category == "rate_limit"
}

// execSignals end a headless run with the exit code 128+signal, once it
// has reported (an agent run has saved its session by then; CONTRACT.md
// §13.4).
var execSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// signalStop is a run's signal handling: the context the first of
// execSignals cancels, and that signal.
type signalStop struct {
	sigs, caught chan os.Signal
	cancel       context.CancelFunc
}

// notifySignals starts catching execSignals; stop ends it.
func notifySignals() (context.Context, *signalStop) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &signalStop{sigs: make(chan os.Signal, 1), caught: make(chan os.Signal, 1), cancel: cancel}
	signal.Notify(s.sigs, execSignals...)
	go func() {
		select {
		case sig := <-s.sigs:
			s.caught <- sig
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, s
}

func (s *signalStop) stop() {
	signal.Stop(s.sigs)
	s.cancel()
}

// exit is the exit code of the caught signal, 128+n; ok is false when
// none was caught.
func (s *signalStop) exit() (code int, ok bool) {
	select {
	case sig := <-s.caught:
		s.caught <- sig
		if n, isSys := sig.(syscall.Signal); isSys {
			return 128 + int(n), true
		}
		return exitInterrupt, true
	default:
		return 0, false
	}
}

// runExecAgent runs one agent turn headless and reports it.
func runExecAgent(ios IO, cfg *config.Config, o *execOptions) int {
	mode, err := posture.ParseMode(o.mode)
	if err != nil {
		fmt.Fprintln(ios.Err, "error:", err)
		return exitFailure
	}
	// --auto approves every prompt and turns on shell and trust, but keeps
	// the configured posture, so the catalog (MCP tools deferred) and the
	// safety classifier stay as in an interactive session; --yolo is Full
	// Access.
	var schema *answerSchema
	if o.jsonSchema != "" {
		if schema, err = loadAnswerSchema(o.jsonSchema); err != nil {
			fmt.Fprintln(ios.Err, "error:", err)
			return exitFailure
		}
	}
	ao := app.Options{Version: codewhaleVersion(), Mode: &mode, AutoApprove: o.auto || o.yolo, Executable: executable(), Hooks: o.hookUse()}
	if o.yolo {
		full := posture.FullAccess
		ao.Posture = &full
	}
	a, err := app.New(cfg, ao)
	if err != nil {
		fmt.Fprintln(ios.Err, "error:", err)
		return exitFailure
	}
	defer a.Close()
	opts := a.EngineOptions()
	opts.MaxSteps = o.maxTurns
	opts.AllowTools, opts.DenyTools = o.allowedTools, o.disallowedTools
	if o.reasoningEffort != "" {
		opts.ReasoningEffort = o.reasoningEffort
	}
	for _, extra := range []string{o.appendSystem, schemaInstruction(schema)} {
		if extra != "" {
			base := opts.SystemPrompt
			opts.SystemPrompt = func(env engine.PromptEnv) string { return base(env) + "\n\n" + extra }
		}
	}
	// A resumed session is claimed before anything is sent: a second writer
	// stops here, naming the holder, and exits non-zero.
	var resumed *session.Loaded
	if o.resume != "" || o.continueLast {
		if resumed, err = a.Claim(o.resume, o.continueLast); err != nil {
			fmt.Fprintln(ios.Err, "error:", err)
			return exitFailure
		}
		for _, line := range resumed.Notices() {
			fmt.Fprintln(ios.Err, line)
		}
	}
	send := engine.SendMessage{Content: o.prompt, Provenance: engine.ProvenanceUser}
	if name, args, ok := commandToken(o.prompt); ok && !o.streamInput() {
		var notes []string
		if send, notes, err = userCommandMessage(a.Project().State(), name, args); err != nil {
			fmt.Fprintln(ios.Err, "error:", err)
			return exitFailure
		}
		for _, n := range notes {
			fmt.Fprintln(ios.Err, n)
		}
	}
	if send.Images, err = execImages(context.Background(), cfg, o.images); err != nil {
		fmt.Fprintln(ios.Err, "error:", err)
		return exitFailure
	}
	turnCtx, sig := notifySignals()
	defer sig.stop()

	out := newExecPrinter(ios, o)
	a.Agents.Admission().Observe(out.admission)
	start := time.Now()
	eng, notices := a.Start(turnCtx, opts)
	if resumed != nil {
		eng.Submit(engine.SyncSession{Session: resumed.Session, Persist: resumed.Persist})
	}
	if notices.Jobs != "" {
		fmt.Fprintln(ios.Err, notices.Jobs)
	}
	out.storeNotices(notices.Store)
	out.hookNotices(notices.Hooks)
	out.mcpProblems(turnCtx, a.MCP)
	var done engine.TurnComplete
	var structured any
	var schemaErr error
	switch {
	case o.streamInput():
		done = runInputTurns(turnCtx, eng, newStreamInput(ios.In, cfg), out)
	case schema != nil:
		done, structured, schemaErr = structuredTurn(turnCtx, eng, send, out, schema)
	default:
		reply, _ := a.RunTurn(turnCtx, send, out.event)
		done = reply.Done
	}
	wait, _ := waitAgentsFor(o.waitAgents)
	cancelled := a.StopAgents(turnCtx, wait)
	var lateHooks []string
	if a.Hooks != nil {
		lateHooks = a.Hooks.Wait()
	}
	sess := eng.Snapshot()
	var running []jobs.Snapshot
	for _, j := range a.Jobs.List() {
		if j.Status == jobs.Running && !j.Stale {
			running = append(running, j)
		}
	}
	out.finish(execReport{cfg: cfg, opts: o, done: done, sess: sess, duration: time.Since(start), posture: opts, running: running,
		lateHooks: lateHooks, cancelled: cancelled, subagents: subagentsReport(a.Agents), saved: a.Journal != nil && len(sess.Messages) > 0,
		schema: schema != nil, structured: structured})
	if code, ok := sig.exit(); ok {
		return code
	}
	switch {
	case schemaErr != nil:
		fmt.Fprintln(ios.Err, "error:", schemaErr)
		return exitSchema
	case done.Status == engine.TurnCompleted:
		return exitOK
	case done.Status == engine.TurnInterrupted:
		return exitInterrupt
	case tempFailure(done.ErrorCategory):
		return exitTempFail
	default:
		return exitFailure
	}
}

// hookUse is which hooks the run executes: the user's and trusted project
// hooks by default, an untrusted project file too with --hooks, none with
// --no-hooks.
func (o *execOptions) hookUse() hooks.Use {
	switch {
	case o.noHooks:
		return hooks.Off
	case o.hooks:
		return hooks.All
	}
	return hooks.Trusted
}

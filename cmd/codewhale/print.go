package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// addHeadlessFlags are the flags of a headless agent run that `exec` and
// the root command's -p/--print share.
func addHeadlessFlags(f *pflag.FlagSet, o *execOptions) {
	f.StringVar(&o.outputFormat, "output-format", "text", "text | json (one object at the end) | stream-json (JSON lines for harnesses)")
	f.BoolVar(&o.auto, "auto", false, "approve every tool prompt (never widens Plan mode)")
	f.BoolVar(&o.yolo, "yolo", false, "Act mode with Full Access")
	_ = f.MarkHidden("yolo")
	f.StringVar(&o.mode, "mode", "act", "plan | act | operate")
	f.IntVar(&o.maxTurns, "max-turns", 100, "maximum model steps in the turn")
	f.StringSliceVar(&o.allowedTools, "allowed-tools", nil, "only these tools (names or prefix*)")
	f.StringSliceVar(&o.disallowedTools, "disallowed-tools", nil, "never these tools (names or prefix*)")
	f.StringVar(&o.appendSystem, "append-system-prompt", "", "text appended to the system prompt")
	f.StringVar(&o.reasoningEffort, "reasoning-effort", "", "auto|off|low|medium|high|max")
	f.StringVar(&o.jsonSchema, "json-schema", "", "the final answer must be one JSON value valid against this JSON Schema file (one repair turn, then exit 3)")
	f.StringVar(&o.jsonSchema, "output-schema", "", "same as --json-schema")
	_ = f.MarkHidden("output-schema")
}

// headlessOnly are the root flags that mean something only with --print.
var headlessOnly = []string{"output-format", "auto", "yolo", "mode", "max-turns", "allowed-tools", "disallowed-tools",
	"append-system-prompt", "reasoning-effort", "json-schema", "output-schema"}

// runPrint is `codewhale -p PROMPT`: one headless agent turn, as Claude
// Code, Gemini CLI and Qwen Code mean -p (CONTRACT.md §13.1). The TUI's
// -r/--resume and -c/--continue pick the session to continue.
func runPrint(cmd *cobra.Command, ios IO, g *globals, o *execOptions, args []string) error {
	o.forceAgent, o.resume, o.continueLast = true, g.resume, g.continueLast
	o.prompt = strings.Join(args, " ")
	if cmd.Flags().Changed("max-turns") && o.maxTurns < 1 {
		return &exitError{code: exitFailure, err: errors.New("--max-turns must be at least 1")}
	}
	if err := o.checkArgs(args); err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	if err := o.stdinPrompt(ios, args, g.apiKey == "-"); err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	cfg, err := g.load()
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	if code := runExecAgent(ios, cfg, o); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// headlessFlagWithoutPrint names a headless flag given to the TUI.
func headlessFlagWithoutPrint(cmd *cobra.Command) error {
	for _, f := range headlessOnly {
		if cmd.Flags().Changed(f) {
			return errors.New("--" + f + " applies to a headless run: add -p/--print (or use codewhale exec)")
		}
	}
	return nil
}

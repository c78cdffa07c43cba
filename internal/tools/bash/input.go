package bash

import (
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codewhale/codewhale/internal/tools"
)

// contract is Bash's parameter contract (docs/ARCHITECTURE.md §6): the
// published schema, the per-action table and the decoding come from this
// type and bashActions.
type contract struct {
	Action         string `json:"action,omitempty" jsonschema:"Operation; default run."`
	Command        string `json:"command,omitempty" jsonschema:"Shell command to run (run)."`
	TimeoutMS      uint   `json:"timeout_ms,omitempty" jsonschema:"run: deadline, default 120000, 1000..600000. wait: how long to block, default 5000, 0 polls. interact: how long to wait for output, default 1000."`
	Background     bool   `json:"background,omitempty" jsonschema:"run: start as a background job and return its task id at once."`
	Interactive    bool   `json:"interactive,omitempty" jsonschema:"run: attach the command to a terminal (not supported in this build)."`
	TTY            bool   `json:"tty,omitempty" jsonschema:"run: allocate a pseudo-terminal (not supported in this build)."`
	CombinedOutput bool   `json:"combined_output,omitempty" jsonschema:"run: capture stdout and stderr as one merged stream."`
	Stdin          string `json:"stdin,omitempty" jsonschema:"run: data written to the command's stdin; interact: input to send. Aliases: input, data."`
	Cwd            string `json:"cwd,omitempty" jsonschema:"run: working directory inside the workspace (alias working_dir)."`
	TaskID         string `json:"task_id,omitempty" jsonschema:"wait, interact, cancel: the job id, shell_<8 hex> (alias id)."`
	Wait           bool   `json:"wait,omitempty" jsonschema:"wait: false polls without blocking (alias block)."`
	CloseStdin     bool   `json:"close_stdin,omitempty" jsonschema:"interact: close the job's stdin after writing."`
	All            bool   `json:"all,omitempty" jsonschema:"cancel: stop every running job."`
}

// bashActions is the per-action table (CONTRACT.md §6.1). The spellings of
// a field are exclusive: only one may be sent, even with equal values. Wait
// timeouts may also be given in seconds (timeout_secs) or as `timeout` in
// milliseconds; all become timeout_ms.
var bashActions = &tools.Actions{
	Field:   "action",
	Default: "run",
	Rules: []tools.Rule{
		{Action: "run", Allowed: []string{"command", "timeout_ms", "background", "interactive", "tty",
			"combined_output", "stdin", "cwd"}, Required: []string{"command"}},
		{Action: "wait", Allowed: []string{"task_id", "timeout_ms", "wait"}, Required: []string{"task_id"}},
		{Action: "interact", Allowed: []string{"task_id", "stdin", "timeout_ms", "close_stdin"},
			Required: []string{"task_id"}},
		{Action: "cancel", Allowed: []string{"task_id", "all"}, Required: []string{"task_id", "all"}, OneOf: true},
	},
	Aliases: []tools.Alias{{From: "input", To: "stdin"}, {From: "data", To: "stdin"}, {From: "working_dir", To: "cwd"},
		{From: "id", To: "task_id"}, {From: "block", To: "wait"},
		{From: "timeout_secs", To: "timeout_ms", Scale: 1000}, {From: "timeout", To: "timeout_ms"}},
	Exclusive: func(field string, present []string) error {
		if field == "timeout_ms" {
			return tools.InvalidInput("send only one of %s", quoteList(present))
		}
		return tools.InvalidInput("send only one of %s; they are aliases of '%s'", quoteList(present), field)
	},
	Missing: func(action, field string, sent []string) error {
		if action == "run" && len(sent) > 0 {
			return tools.InvalidInput("missing required field '%s'. Input provided: %s", field, strings.Join(sent, ", "))
		}
		return tools.MissingField(field)
	},
}

var params = tools.NewParams[contract]("Bash", tools.ParamOptions[contract]{Actions: bashActions,
	Shape: func(s *jsonschema.Schema, _ []string) {
		// One of the fields that say what to act on (an alias counts).
		for _, f := range []string{"command", "task_id", "id", "all"} {
			s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Required: []string{f}})
		}
	}})

// input is a Bash call after alias folding and type checks.
type input struct {
	action                                 string
	command                                string
	timeoutMS                              int
	hasTimeout                             bool
	background, interactive, tty, combined bool
	stdin                                  string
	hasStdin                               bool
	cwd                                    string
	taskID                                 string
	wait, hasWait                          bool
	closeStdin                             bool
	all                                    bool
}

// parseInput is the one decode of a Bash call: the action (default run),
// the spellings folded (wait timeouts into timeout_ms), the fields each
// action needs, every field's type. It returns the call and its canonical
// input.
func parseInput(raw json.RawMessage) (input, json.RawMessage, error) {
	var in input
	d, err := params.Decode(raw)
	if err != nil {
		return in, nil, err
	}
	c := &d.In
	in = input{action: d.Action, command: c.Command, timeoutMS: int(c.TimeoutMS), hasTimeout: d.Has("timeout_ms"),
		background: c.Background, interactive: c.Interactive, tty: c.TTY, combined: c.CombinedOutput,
		stdin: c.Stdin, hasStdin: d.Has("stdin"), cwd: c.Cwd, taskID: c.TaskID, wait: c.Wait, hasWait: d.Has("wait"),
		closeStdin: c.CloseStdin, all: c.All}
	switch {
	case in.action == "run" && strings.TrimSpace(in.command) == "":
		return in, nil, &tools.Error{Kind: tools.KindInvalidInput, Field: "command", Msg: "'command' is empty; pass the shell command to run"}
	case in.action == "cancel" && !d.Has("task_id") && !in.all:
		return in, nil, tools.MissingField("task_id")
	}
	return in, d.Input(), nil
}

func quoteList(fields []string) string {
	q := make([]string, len(fields))
	for i, f := range fields {
		q[i] = "'" + f + "'"
	}
	return strings.Join(q, ", ")
}

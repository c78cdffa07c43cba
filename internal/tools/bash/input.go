package bash

import (
	"encoding/json"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

var actions = []string{"run", "wait", "interact", "cancel"}

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

// aliases lists each canonical field with the spellings folded into it
// (CONTRACT.md §6.1); only one spelling may be sent.
var aliases = []struct {
	field    string
	spelling []string
}{
	{"stdin", []string{"stdin", "input", "data"}},
	{"cwd", []string{"cwd", "working_dir"}},
	{"task_id", []string{"task_id", "id"}},
	{"wait", []string{"wait", "block"}},
}

// parseInput folds aliases, checks every field's type and the fields each
// action requires. The returned Args are the canonical input.
func parseInput(raw json.RawMessage) (input, tools.Args, error) {
	var in input
	args, err := tools.ParseArgs(raw)
	if err != nil {
		return in, nil, err
	}
	provided := args.Keys()
	if in.action, err = args.Action("Bash", actions, "run"); err != nil {
		return in, nil, err
	}
	if err := foldAliases(args); err != nil {
		return in, nil, err
	}
	if err := readFields(args, &in); err != nil {
		return in, nil, err
	}
	if err := requireFields(args, provided, in); err != nil {
		return in, nil, err
	}
	args["action"] = json.RawMessage(`"` + in.action + `"`)
	return in, args, nil
}

func foldAliases(args tools.Args) error {
	for _, a := range aliases {
		var present []string
		for _, s := range a.spelling {
			if args.Has(s) {
				present = append(present, s)
			}
		}
		if len(present) > 1 {
			return tools.InvalidInput("send only one of %s; they are aliases of '%s'", quoteList(present), a.field)
		}
		if len(present) == 1 && present[0] != a.field {
			args[a.field] = args[present[0]]
			delete(args, present[0])
		}
	}
	// Wait timeouts may also be given in seconds (timeout_secs) or as
	// `timeout` in milliseconds; all become timeout_ms.
	var present []string
	for _, s := range []string{"timeout_ms", "timeout_secs", "timeout"} {
		if args.Has(s) {
			present = append(present, s)
		}
	}
	if len(present) > 1 {
		return tools.InvalidInput("send only one of %s", quoteList(present))
	}
	if len(present) == 1 && present[0] != "timeout_ms" {
		n, _, err := args.Uint(present[0])
		if err != nil {
			return err
		}
		if present[0] == "timeout_secs" {
			n *= 1000
		}
		args["timeout_ms"] = json.RawMessage(jsonInt(n))
		delete(args, present[0])
	}
	return nil
}

func readFields(args tools.Args, in *input) error {
	var err error
	str := func(f string, dst *string, ok *bool) {
		if err == nil {
			var present bool
			*dst, present, err = args.String(f)
			if ok != nil {
				*ok = present
			}
		}
	}
	boolean := func(f string, dst *bool, ok *bool) {
		if err == nil {
			var present bool
			*dst, present, err = args.Bool(f)
			if ok != nil {
				*ok = present
			}
		}
	}
	str("command", &in.command, nil)
	str("stdin", &in.stdin, &in.hasStdin)
	str("cwd", &in.cwd, nil)
	str("task_id", &in.taskID, nil)
	boolean("background", &in.background, nil)
	boolean("interactive", &in.interactive, nil)
	boolean("tty", &in.tty, nil)
	boolean("combined_output", &in.combined, nil)
	boolean("wait", &in.wait, &in.hasWait)
	boolean("close_stdin", &in.closeStdin, nil)
	boolean("all", &in.all, nil)
	if err == nil {
		in.timeoutMS, in.hasTimeout, err = args.Uint("timeout_ms")
	}
	return err
}

func requireFields(args tools.Args, provided []string, in input) error {
	switch in.action {
	case "run":
		if !args.Has("command") {
			if len(provided) == 0 {
				return tools.MissingField("command")
			}
			return tools.InvalidInput("missing required field 'command'. Input provided: %s", strings.Join(provided, ", "))
		}
		if strings.TrimSpace(in.command) == "" {
			return &tools.Error{Kind: tools.KindInvalidInput, Field: "command", Msg: "'command' is empty; pass the shell command to run"}
		}
	case "wait", "interact":
		if !args.Has("task_id") {
			return tools.MissingField("task_id")
		}
	case "cancel":
		if !args.Has("task_id") && !in.all {
			return tools.MissingField("task_id")
		}
	}
	return nil
}

func quoteList(fields []string) string {
	q := make([]string, len(fields))
	for i, f := range fields {
		q[i] = "'" + f + "'"
	}
	return strings.Join(q, ", ")
}

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

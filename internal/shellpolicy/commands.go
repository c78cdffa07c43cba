package shellpolicy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Commands lists the simple commands of a script as argv, for permission
// rules that match by command prefix: every call, in substitutions and
// control flow too, plus what wrappers run (sudo git push is also git push)
// and the literal scripts of sh -c and eval. complete is false when a word
// is not a literal (its value is only known at run time) or the script
// does not parse: an allow rule must not match what it cannot see.
func Commands(script string) (cmds [][]string, complete bool) {
	f, err := parseCommand(script)
	if err != nil {
		return nil, false
	}
	complete = true
	collect(f, 0, &cmds, &complete)
	return cmds, complete
}

func collect(node syntax.Node, depth int, cmds *[][]string, complete *bool) {
	syntax.Walk(node, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
		if !ok || len(ce.Args) == 0 {
			return true
		}
		argv := make([]string, len(ce.Args))
		for i, w := range ce.Args {
			lit, ok := literal(w)
			*complete = *complete && ok
			argv[i] = lit
		}
		add(argv, depth, cmds, complete)
		return true
	})
}

// add records argv and what it runs through a wrapper or as a script.
func add(argv []string, depth int, cmds *[][]string, complete *bool) {
	for len(argv) > 0 {
		*cmds = append(*cmds, argv)
		name := path.Base(argv[0])
		if (shellName(name) || name == "eval") && depth < maxDepth {
			if script := inlineScript(name, argv[1:]); script != "" {
				if f, err := parse(script); err == nil {
					collect(f, depth+1, cmds, complete)
				} else {
					*complete = false
				}
			}
			return
		}
		vals := make([]value, len(argv)-1)
		for i, a := range argv[1:] {
			vals[i] = lit(a)
		}
		if name == "sed" {
			addSed(vals, depth, cmds, complete)
			return
		}
		w, ok := splitWrapper(name, vals)
		if !ok {
			return
		}
		for _, s := range w.scripts {
			addScript(s.s, depth, cmds, complete)
		}
		switch {
		case w.spec.runs == runsTemplate:
			addParallel(w, depth, cmds, complete)
			return
		case w.spec.runs == runsLine && !w.direct:
			addScript(joinValues(w.inner).s, depth, cmds, complete)
			return
		case w.spec.runs == runsShellArgs:
			if !w.ended {
				return
			}
			w.inner = append([]value{lit("bash")}, w.inner...)
		case w.spec.runs == runsShell && !w.direct || len(w.inner) == 0:
			return
		}
		argv = make([]string, len(w.inner))
		for i, v := range w.inner {
			argv[i] = v.s
		}
	}
}

// addScript records the commands of a script a wrapper runs with sh -c.
func addScript(script string, depth int, cmds *[][]string, complete *bool) {
	if depth >= maxDepth {
		*complete = false
		return
	}
	if f, err := parse(script); err == nil {
		collect(f, depth+1, cmds, complete)
	} else {
		*complete = false
	}
}

// addSed records the commands a sed script's e commands run; one that
// runs its input (s///e) is not visible.
func addSed(args []value, depth int, cmds *[][]string, complete *bool) {
	script, ok := newClassifier(&Env{}, "", depth).sedScripts(args, nil)
	execs, parsed := sedExecs(script)
	*complete = *complete && ok && parsed
	for _, e := range execs {
		*complete = *complete && !e.input
		if e.cmd != "" {
			addScript(e.cmd, depth, cmds, complete)
		}
	}
}

// addParallel records the job lines of GNU parallel that its ::: inputs
// show; inputs from a file or a pipe are not visible here.
func addParallel(w wrapped, depth int, cmds *[][]string, complete *bool) {
	job, lists, files := parallelArgs(w)
	if len(lists) == 0 || len(files) > 0 || has(w.opts, "-a", "--arg-file", "--pipe", "--pipepart") {
		*complete = false
		if len(job.template) > 0 {
			addScript(job.line(nil, nil), depth, cmds, complete)
		}
		return
	}
	combos, ok := combinations(lists)
	*complete = *complete && ok
	for _, combo := range combos {
		inputs, known := make([]string, len(combo)), make([]bool, len(combo))
		for i, v := range combo {
			inputs[i], known[i] = v.s, true
		}
		addScript(job.line(inputs, known), depth, cmds, complete)
	}
}

func inlineScript(name string, args []string) string {
	if name == "eval" {
		return strings.Join(args, " ")
	}
	for i, a := range args {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// literal is a word's value when it has no expansion.
func literal(w *syntax.Word) (string, bool) {
	c := newClassifier(&Env{}, "", 0)
	v := c.word(w)
	return v.s, v.literal && !v.glob
}

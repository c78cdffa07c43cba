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
	f, err := parse(script)
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
		inner, _, _, ok := splitWrapper(name, vals)
		if !ok || len(inner) == 0 {
			return
		}
		argv = make([]string, len(inner))
		for i, v := range inner {
			argv[i] = v.s
		}
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
	c := &classifier{env: &Env{}, vars: map[string]string{}}
	v := c.word(w)
	return v.s, v.literal && !v.glob
}

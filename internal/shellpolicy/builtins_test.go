package shellpolicy

import "testing"

// TestBuiltinSideDoors holds the bash builtins that run a command or shell
// text through a side door (jobs -x, compgen/complete -C -F -W, mapfile -C,
// history -s with fc -s, eval --, enable -f), the ways a command name is
// bound to another program or text (hash -p, BASH_CMDS, BASH_ALIASES,
// BASH_FUNC_NAME%%), and kill with -1 among its process operands; each
// hostile row was checked in bash 5.2 with a fake rm on PATH that only
// echoes. The benign rows keep today's verdicts.
func TestBuiltinSideDoors(t *testing.T) {
	t.Parallel()
	const root = "recursively deletes the filesystem root"
	const all = "signals every process the user can reach"
	checkClasses(t, []classCase{
		// Builtins that run their operands or an option's value.
		{"jobs -x rm -rf /", Blocked, root},
		{"compgen -C 'rm -rf /' x", Blocked, root},
		{"complete -C 'rm -rf /' foo", Blocked, root},
		{"compgen -W '$(rm -rf /)' x", Blocked, root},
		{"f(){ rm -rf /; }; compgen -F f x", Blocked, root},
		{"compgen -C \"$X\" x", Explicit, "cannot see"},
		{"mapfile -C 'rm -rf /' -c 1 < f", Blocked, root},
		{"readarray -C 'rm -rf /' -c 1 < f", Blocked, root},
		{"mapfile -C'rm -rf /' -c1 a < f", Blocked, root},
		{"history -s 'rm -rf /'; fc -s rm", Blocked, root},
		{"history -s 'rm -rf /tmpx'; fc -s tmpx= rm", Blocked, root},
		{"fc -s", Explicit, "re-runs commands from the shell history"},
		{"fc -s rm", Explicit, "re-runs commands from the shell history"},
		{"fc -e - rm", Explicit, "re-runs commands from the shell history"},
		{"fc -e 'rm -rf /'", Blocked, root},
		{"eval -- 'rm -rf /'", Blocked, root},
		{"enable -f lib.so name", Explicit, "loads a shared library"},
		// A command name bound to another program or text.
		{"hash -p /bin/rm ls; ls -rf /", Blocked, root},
		{"hash -p /bin/bash ls; ls -c 'rm -rf /'", Blocked, root},
		{"hash -p \"$P\" ls; ls", Explicit, "program the classifier cannot see"},
		{"BASH_CMDS[ls]=/bin/rm; ls -rf /", Blocked, root},
		{"BASH_CMDS=([ls]=/bin/rm); ls -rf /", Blocked, root},
		{"declare -A BASH_CMDS=([ls]=/bin/rm); ls -rf /", Blocked, root},
		{"p=/bin/rm; BASH_CMDS[ls]=$p; command ls -rf /", Blocked, root},
		{"f=x; BASH_CMDS[$f]=/bin/rm; x -rf /", Blocked, root},
		{"printf -v 'BASH_CMDS[ls]' /bin/rm; ls -rf /", Blocked, root},
		{"declare 'BASH_CMDS[ls]=/bin/rm'; ls -rf /", Blocked, root},
		{"BASH_ALIASES[x]='rm -rf /'; x", Blocked, root},
		{"BASH_ALIASES[x]='rm -rf'; x /", Blocked, root},
		{"env 'BASH_FUNC_f%%=() { rm -rf /; }' bash -c f", Blocked, root},
		{"export 'BASH_FUNC_f%%=() { rm -rf /; }'", Blocked, root},
		{"env \"BASH_FUNC_f%%=$X\" bash -c f", Explicit, "cannot see"},
		// kill with -1 as any process operand.
		{"kill -9 -1 2", Blocked, all},
		{"kill -KILL -1 $$", Blocked, all},
		{"kill -s KILL 2 -1", Blocked, all},
		{"kill -- -1", Blocked, all},
		{"kill -9 -01 2", Blocked, all},
		{"kill -9 -1", Blocked, all},
		// Benign uses stay as they were.
		{"jobs", Ordinary, ""},
		{"jobs -l", Ordinary, ""},
		{"hash", Ordinary, ""},
		{"hash -r", Ordinary, ""},
		{"hash -t ls", Ordinary, ""},
		{"hash -p /bin/rm ls; hash -r; ls -rf /", Ordinary, ""},
		{"hash -p /bin/rm ls; hash -d ls; ls -rf /", Ordinary, ""},
		{"BASH_CMDS[ls]=/bin/ls; ls", Ordinary, ""},
		{"kill -9 1234", Ordinary, ""},
		{"kill -1 1234", Ordinary, ""},
		{"kill -l", Ordinary, ""},
		{"history", Ordinary, ""},
		{"history -c", Ordinary, ""},
		{"history -s 'make test'", Ordinary, ""},
		{"fc -l", Ordinary, ""},
		{"compgen -c", Ordinary, ""},
		{"compgen -W 'start stop' st", Ordinary, ""},
		{"complete -p", Ordinary, ""},
		{"complete -F _git git", Ordinary, ""},
		{"mapfile -t a < f", Ordinary, ""},
		{"readarray -t a < f", Ordinary, ""},
		{"echo ${BASH_CMDS[ls]}", Ordinary, ""},
		{"echo ${BASH_ALIASES[x]}", Ordinary, ""},
		{"eval -- ls", Ordinary, ""},
		{"enable", Ordinary, ""},
		{"enable -n kill", Ordinary, ""},
	})
}

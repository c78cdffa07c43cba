package shellpolicy

import "testing"

// CONTRACT.md §12.6: every program is a reader with none of its options that
// write a file or run a program. Each option the contract names leaves
// read-only; the same reader without it stays read-only.
// README.md "Modes and permissions": read-only is proven: a reader's options that write or run something (rg --pre, sort -o, find -exec, tree -o, jq -f, git -c …) leave read-only.
func TestContract126ReaderOptionsThatWriteOrRunLeaveReadOnly(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"rg -n x", ReadOnly, ""},
		{"rg --pre ./p x", Ordinary, ""},
		{"rg --hostname-bin ./h x", Ordinary, ""},
		{"rg -z x", Ordinary, ""},
		{"rg --search-zip x", Ordinary, ""},
		{"sort in", ReadOnly, ""},
		{"sort -o out in", Ordinary, ""},
		{"find . -name '*.go'", ReadOnly, ""},
		{"find . -exec cat {} ;", Ordinary, ""},
		{"find . -execdir cat {} ;", Ordinary, ""},
		{"find . -ok cat {} ;", Ordinary, ""},
		{"find . -okdir cat {} ;", Ordinary, ""},
		{"find . -delete", Explicit, "deletes"},
		{"find . -fprint out", Ordinary, ""},
		{"find . -fprint0 out", Ordinary, ""},
		{"find . -fls out", Ordinary, ""},
		{"tree", ReadOnly, ""},
		{"tree -o out", Ordinary, ""},
		{"tree -R", Ordinary, ""},
		{"ag x", ReadOnly, ""},
		{"ag --pager cat x", Ordinary, ""},
		{"fd x", ReadOnly, ""},
		{"fd -x cat", Ordinary, ""},
		{"fd --exec cat", Ordinary, ""},
		{"fd -X cat", Ordinary, ""},
		{"fd -l x", Ordinary, ""},
		{"fd --list-details x", Ordinary, ""},
		{"jq . d.json", ReadOnly, ""},
		{"jq -f prog.jq d.json", Ordinary, ""},
		{"jq --from-file prog.jq d.json", Ordinary, ""},
		{"git log", ReadOnly, ""},
		{"git -c core.pager=cat log", Ordinary, ""},
		{"git help -a", ReadOnly, ""},
		{"git help log", Ordinary, ""},
		{"set -e; ls", ReadOnly, ""},
		{"set -a; ls", Ordinary, ""},
		{"set -k; ls", Ordinary, ""},
		{"set -o allexport; ls", Ordinary, ""},
		{"set -o keyword; ls", Ordinary, ""},
	})
}

// CONTRACT.md §12.6: every wrapper only times or limits the reader it runs —
// time without -o, strace/ltrace without -o/-p, nice, timeout, stdbuf, env,
// command — and a wrapper never makes a non-reader read-only.
// README.md "Modes and permissions": a wrapper keeps read-only only when it only times or limits (time without -o, strace without -o/-p, nice, timeout, env).
func TestContract126WrappersOnlyTimeOrLimit(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"time ls", ReadOnly, ""},
		{"time -p ls", ReadOnly, ""},
		{"time -o a.txt ls", Ordinary, ""},
		{"strace ls", ReadOnly, ""},
		{"strace -o x ls", Ordinary, ""},
		{"strace -p 1", Ordinary, ""},
		{"ltrace ls", ReadOnly, ""},
		{"ltrace -o x ls", Ordinary, ""},
		{"ltrace -p 1", Ordinary, ""},
		{"nice -n 5 ls", ReadOnly, ""},
		{"timeout 5 ls", ReadOnly, ""},
		{"stdbuf -oL ls", ReadOnly, ""},
		{"env ls", ReadOnly, ""},
		{"command ls", ReadOnly, ""},
		{"command -v ls", ReadOnly, ""},
		{"time touch x", Ordinary, ""},
		{"strace touch x", Ordinary, ""},
		{"nice touch x", Ordinary, ""},
		{"timeout 5 touch x", Ordinary, ""},
		{"stdbuf -oL touch x", Ordinary, ""},
		{"env touch x", Ordinary, ""},
		{"command touch x", Ordinary, ""},
	})
}

// CONTRACT.md §12.6: every word is literal after quote removal but for a plain
// $NAME/${NAME} (special parameters too), ~ and globs: no command, process
// or arithmetic substitution, no ${…} operator, subscript, slice, ! or @P,
// no [[ ]] -eq/-v.
func TestContract126WordsAreLiteral(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"echo $HOME", ReadOnly, ""},
		{`echo "$HOME" ${HOME}x`, ReadOnly, ""},
		{"echo $1 $@ $?", ReadOnly, ""},
		{"echo ~ *.go", ReadOnly, ""},
		{"echo $(pwd)", Ordinary, ""},
		{"echo `pwd`", Ordinary, ""},
		{"cat <(ls)", Ordinary, ""},
		{"echo $((1+2))", Ordinary, ""},
		{"echo $[1+2]", Ordinary, ""},
		{"echo ${HOME:-x}", Ordinary, ""},
		{"echo ${HOME#x}", Ordinary, ""},
		{"echo ${HOME/x/y}", Ordinary, ""},
		{"echo ${HOME^^}", Ordinary, ""},
		{"echo ${#HOME}", Ordinary, ""},
		{"echo ${a[0]}", Ordinary, ""},
		{"echo ${a[@]}", Ordinary, ""},
		{"echo ${HOME:1:2}", Ordinary, ""},
		{"echo ${!HOME}", Ordinary, ""},
		{"echo ${!H*}", Ordinary, ""},
		{"echo ${HOME@P}", Ordinary, ""},
		{"[[ $a == b ]]", ReadOnly, ""},
		{"[[ 1 -eq 1 ]]", Ordinary, ""},
		{"[[ 1 -lt 2 ]]", Ordinary, ""},
		{"[[ -v x ]]", Ordinary, ""},
	})
}

// CONTRACT.md §12.6: no function, loop, if or case (lists, pipelines, groups,
// subshells and [[ ]] are allowed); no write.
func TestContract126NoFunctionLoopConditionalOrWrite(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"{ ls; } && (ls) || ! ls | cat", ReadOnly, ""},
		{"[ -f x ] && cat x", ReadOnly, ""},
		{"f() { ls; }; f", Ordinary, ""},
		{"for i in a b; do ls $i; done", Ordinary, ""},
		{"while false; do ls; done", Ordinary, ""},
		{"until true; do ls; done", Ordinary, ""},
		{"select i in a; do ls; done", Ordinary, ""},
		{"if true; then ls; fi", Ordinary, ""},
		{"case x in x) ls;; esac", Ordinary, ""},
		{"ls > /dev/null 2>&1", ReadOnly, ""},
		{"ls > out", Ordinary, ""},
		{"ls >> out", Ordinary, ""},
		{"ls 2> err", Ordinary, ""},
	})
}

// CONTRACT.md §12.6: an assignment that reaches a program's environment —
// before it, export, declare -x, env NAME=…, or a name already exported —
// names only the locale, time zone, colour or width.
// README.md "Modes and permissions": an assignment reaching a program's environment keeps read-only only for the locale, time zone, colour or width.
func TestContract126EnvironmentAssignments(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"LC_ALL=C ls", ReadOnly, ""},
		{"LANG=C ls", ReadOnly, ""},
		{"TZ=UTC date", ReadOnly, ""},
		{"NO_COLOR=1 ls", ReadOnly, ""},
		{"COLUMNS=80 ls", ReadOnly, ""},
		{"export LC_ALL=C LANG=C; ls", ReadOnly, ""},
		{"declare -x LC_ALL=C; ls", ReadOnly, ""},
		{"env LC_ALL=C ls", ReadOnly, ""},
		{"FOO=1 ls", Ordinary, ""},
		{"LC_ALL=C FOO=1 ls", Ordinary, ""},
		{"export FOO=1; ls", Ordinary, ""},
		{"export LC_ALL=C FOO=1; ls", Ordinary, ""},
		{"declare -x FOO=1; ls", Ordinary, ""},
		{"typeset -x FOO=1; ls", Ordinary, ""},
		{"FOO=1; export FOO; ls", Ordinary, ""},
		{"env FOO=1 ls", Ordinary, ""},
		{"env -i FOO=1 ls", Ordinary, ""},
		{"nice env FOO=1 ls", Ordinary, ""},
		{"FOO=1 time ls", Ordinary, ""},
		{"FOO=1; ls", ReadOnly, ""}, // a shell variable, not exported
	})
	// A name already exported in the agent's environment.
	env := testEnv()
	env.Getenv = func(k string) string {
		switch k {
		case "FOO", "LC_ALL":
			return "1"
		}
		return ""
	}
	for _, tt := range []classCase{
		{"FOO=1; ls", Ordinary, ""},
		{"LC_ALL=C; ls", ReadOnly, ""},
		{"BAR=1; ls", ReadOnly, ""},
	} {
		if v := env.Classify(tt.cmd, ""); v.Class != tt.want {
			t.Errorf("Classify(%q) with FOO, LC_ALL exported = %v %q; want %v", tt.cmd, v.Class, v.Reason(), tt.want)
		}
	}
}

// CONTRACT.md §12.6: a command whose payload the classifier cannot see is an
// explicit hold — a value produced unseen then run or evaluated as code,
// arithmetic or a prompt, a script written unseen or changed by a program
// in between, a makefile on stdin or a curl config file it cannot read,
// inline code that computes what it calls.
// README.md "Modes and permissions": what the classifier cannot evaluate needs explicit approval, never an ordinary one.
func TestContract126UnseenPayloadIsExplicit(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{`X=$(cat f); eval "$X"`, Explicit, "cannot see"},
		{`x=$(cat f); $x`, Explicit, "cannot be seen"},
		{"x=$(cat f); echo $((x))", Explicit, "as arithmetic"},
		{"x=$(cat f); echo ${x@P}", Explicit, "cannot see"},
		{`echo "$X" > s.sh; sh s.sh`, Explicit, "cannot see"},
		{"echo ls > s.sh; sed -i 's/ls/rm -rf ~/' s.sh; sh s.sh", Explicit, "cannot see"},
		{"sed -i 's/^/x; /' build.sh; sh build.sh", Explicit, "may have changed"},
		{"sed s/a/b/ tpl | make -f -", Explicit, "cannot see"},
		{"curl -K missing.cfg https://example.com", Explicit, "cannot see"},
		{"curl --config $CFG https://example.com", Explicit, "cannot see"},
		{`python3 -c 'import shutil; getattr(shutil, n)("/")'`, Explicit, "computes the function or code it runs"},
	})
}

// CONTRACT.md §12.6: a command whose evaluation shows a catastrophe is a hard
// block: a function called with /, a loop over ~, GIT_SSH_COMMAND='rm -rf /',
// a makefile on stdin, a script the command wrote and then runs.
// README.md "Modes and permissions": it evaluates what would run: a function called with /, a loop over ~, GIT_SSH_COMMAND='rm -rf /', make -f - are hard blocks.
func TestContract126EvaluatedCatastropheIsBlocked(t *testing.T) {
	t.Parallel()
	const root = "filesystem root"
	checkClasses(t, []classCase{
		{`f() { rm -rf "$1"; }; f /`, Blocked, root},
		{`for d in ~; do rm -rf "$d"; done`, Blocked, root},
		{"GIT_SSH_COMMAND='rm -rf /' git fetch", Blocked, root},
		{"export GIT_SSH_COMMAND='rm -rf /'; git fetch", Blocked, root},
		{"make -f - <<'EOF'\nall:\n\trm -rf /\nEOF", Blocked, root},
		{"echo 'all:; rm -rf ~' | make -f -", Blocked, root},
		{"echo 'rm -rf /' > s.sh; sh s.sh", Blocked, root},
	})
}

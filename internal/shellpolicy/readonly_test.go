package shellpolicy

import "testing"

// Read-only is proven (issue 23): a substitution hidden in any part of an
// expansion, arithmetic that evaluates a variable's value, a prompt
// expansion, a reader's option that writes or runs something, or an
// assignment that reaches a reader's environment all leave read-only.
func TestReadOnlyNeedsProof(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		// Substitutions inside ${…}: the pattern, replacement, slice and
		// subscript all run them.
		{"echo ${PATH/$(touch pwned)/}", Ordinary, ""},
		{"echo ${PATH//$(touch pwned)/x}", Ordinary, ""},
		{"echo ${PATH/x/$(touch pwned)}", Ordinary, ""},
		{"echo ${PATH:$(touch pwned)0:3}", Explicit, "as arithmetic"},
		{"echo ${PATH:-$(touch pwned)}", Ordinary, ""},
		{"echo ${1/$(touch pwned)/}", Ordinary, ""},
		{"echo ${PATH/$(cp ~/.ssh/id_rsa k)/}", Explicit, "touches a secret"},
		{"echo ${PATH/$(git config core.fsmonitor 'touch p')/}", Explicit, "core.fsmonitor makes git run a command"},
		// A value evaluated as a prompt or as arithmetic. What touch prints
		// becomes arithmetic there, and nobody can see it: explicit.
		{`x='$(touch pwned)'; echo ${x@P}`, Ordinary, ""},
		{`x='a[$(touch pwned)]'; echo $((x))`, Explicit, "as arithmetic"},
		{`x='a[$(touch pwned)]'; [[ x -eq 0 ]]`, Explicit, "as arithmetic"},
		{`x='a[$(touch pwned)]'; echo ${a[x]}`, Explicit, "as arithmetic"},
		{`x='a[$(touch pwned)]'; echo ${!x}`, Explicit, "as arithmetic"},
		{`[[ -v 'a[$(touch pwned)]' ]]`, Explicit, "as arithmetic"},
		{`[ -v 'a[$(touch pwned)]' ]`, Explicit, "as arithmetic"},
		{`test -v 'a[$(touch pwned)]'`, Explicit, "as arithmetic"},
		{`printf -v 'a[$(touch pwned)]' x`, Explicit, "as arithmetic"},
		{"a[$(touch pwned)]=1", Explicit, "as arithmetic"},
		{"echo $((1+2))", Ordinary, ""},
		{"declare -i n=1", Ordinary, ""},
		{"declare -n r=HOME; echo $r", Ordinary, ""},
		{"cat <<< \"$(touch pwned)\"", Ordinary, ""},
		{"ls <(touch pwned)", Ordinary, ""},
		{"echo $(pwd)", Ordinary, ""},
		// Readers' options that write files or run programs.
		{"strace -o a.txt true", Ordinary, ""},
		{"strace -fo a.txt true", Ordinary, ""},
		{"strace -p 1", Ordinary, ""},
		{"command time -o a.txt true", Ordinary, ""},
		{"/usr/bin/time --output=a.txt true", Ordinary, ""},
		{"valgrind --log-file=v.txt true", Ordinary, ""},
		{"valgrind true", Ordinary, ""},
		{"flock f.lock true", Ordinary, ""},
		{"flock 9 true", Ordinary, ""},
		{"time -o a.txt true", Ordinary, ""},
		// The files they write are writes: a protected path or a secret asks.
		{"strace -o .git/hooks/pre-commit true", Explicit, "changes a protected path"},
		{"time -o .git/config true", Explicit, "changes a protected path"},
		{"command time --output=.codewhale/x true", Explicit, "changes a protected path"},
		{"valgrind --log-file=/home/u/.ssh/authorized_keys true", Explicit, "touches a secret"},
		{"flock .git/index.lock true", Explicit, "changes a protected path"},
		{"script -q .git/log -c ls", Explicit, "changes a protected path"},
		{"nohup ls", Ordinary, ""},
		{"setsid ls", Ordinary, ""},
		{"taskset -p 1 1", Ordinary, ""},
		{"rg --pre ./p x", Ordinary, ""},
		{"rg --pre=./p x", Ordinary, ""},
		{"rg --pre-glob '*' x", Ordinary, ""},
		{"rg --hostname-bin ./h x", Ordinary, ""},
		{"rg -z x", Ordinary, ""},
		{"ag --pager 'touch p' x", Ordinary, ""},
		{"ack x", Ordinary, ""},
		{"tree -o out.txt", Ordinary, ""},
		{"tree -R -H .", Ordinary, ""},
		{"fd -l x", Ordinary, ""},
		{"file -z notes.gz", Ordinary, ""},
		{"find . -fprint out", Ordinary, ""},
		{"find . -fprintf out %p", Ordinary, ""},
		{"find . -fls out", Ordinary, ""},
		{"find . -ok rm {} ;", Ordinary, ""},
		{"sort -o out in", Ordinary, ""},
		{"sort --out=out in", Ordinary, ""},
		{"jq -f prog.jq data.json", Ordinary, ""},
		{`jq 'import "x" as x; .' data.json`, Ordinary, ""},
		{"git help -w log", Ordinary, ""},
		{"git -c core.pager=cat log", Ordinary, ""},
		{"set -a; ls", Ordinary, ""},
		{"set -k; ls", Ordinary, ""},
		{"ls | xargs cat", Ordinary, ""},
		{"echo a | xargs -a list cat", Ordinary, ""},
		{"grep -d recurse x ~", Explicit, "searches a tree that holds secrets"},
		{"diff -r ~ /tmp/empty", Explicit, "compares a tree that holds secrets"},
		// Assignments that reach a reader's environment.
		{"RIPGREP_CONFIG_PATH=rgcfg rg x", Ordinary, ""},
		{"export RIPGREP_CONFIG_PATH=rgcfg; rg x", Ordinary, ""},
		{"env RIPGREP_CONFIG_PATH=rgcfg rg x", Ordinary, ""},
		{"GIT_PAGER=cat git log", Ordinary, ""},
		{"GIT_DIR=x git log", Ordinary, ""},
		{"LD_PRELOAD=x.so ls", Ordinary, ""},
		{"BASH_ENV=x ls", Ordinary, ""},
		{"ENV=x ls", Ordinary, ""},
		{"FOO_CONFIG=x ls", Ordinary, ""},
		{"XDG_CONFIG_HOME=x git status", Ordinary, ""},
		{"GCONV_PATH=. cat notes.txt", Ordinary, ""},
		{"FOO=1 cat notes.txt", Ordinary, ""},
		{"export FOO=1; cat notes.txt", Ordinary, ""},
		{"declare -x FOO=1; cat notes.txt", Ordinary, ""},
	})
}

// What stays read-only: plain words, plain $NAME, the readers with their
// harmless options, the wrappers that only time or limit them, and the
// locale, time-zone and colour variables.
func TestReadOnlyStillReadOnly(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"ls -la", ReadOnly, ""},
		{"X=1; echo $X", ReadOnly, ""},
		{`echo "$HOME" ${HOME}`, ReadOnly, ""},
		{"LC_ALL=C sort notes.txt", ReadOnly, ""},
		{"TZ=UTC date +%Y", ReadOnly, ""},
		{"env LC_ALL=C ls", ReadOnly, ""},
		{"time ls", ReadOnly, ""},
		{"time -p ls", ReadOnly, ""},
		{"timeout 5 cat notes.txt", ReadOnly, ""},
		{"nice ls", ReadOnly, ""},
		{"strace -e trace=open ls", ReadOnly, ""},
		{"command -v go", ReadOnly, ""},
		{"rg -n TODO internal", ReadOnly, ""},
		{"git log --oneline", ReadOnly, ""},
		{"git help -a", ReadOnly, ""},
		{"find . -name '*.go'", ReadOnly, ""},
		{"[[ -f x && $a == b ]]", ReadOnly, ""},
		{"[ -f x ] && cat x", ReadOnly, ""},
		{"printf -v y '%s' x; echo $y", ReadOnly, ""},
		{"cat <<'EOF'\nhi $(not run)\nEOF", ReadOnly, ""},
		{"set -euo pipefail; ls", ReadOnly, ""},
		{"echo a b | xargs cat", ReadOnly, ""},
		{"export LANG=C.UTF-8; ls", ReadOnly, ""},
		{"diff -r a b", ReadOnly, ""},
	})
}

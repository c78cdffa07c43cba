package shellpolicy

import (
	"os"
	"path/filepath"
	"testing"
)

// Text that runs later is judged now: a trap's action (on EXIT or a
// signal), and an alias's text with the words after its name (alias
// r='rm -rf'; r / is rm -rf /). A file a statement writes through another
// descriptor than its output (2>f, exec 3>f; echo … >&3) holds what the
// classifier did not see, so running it is never an ordinary approval.
func TestTextThatRunsLaterAndFilesWrittenUnseenAreJudged(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"trap 'rm -rf ~' EXIT", Blocked, "filesystem root"},
		{"trap -- 'rm -rf /' EXIT INT", Blocked, "filesystem root"},
		{`trap "$X" EXIT`, Explicit, "trap runs a script the classifier cannot see"},
		{"trap 'echo bye' EXIT", Ordinary, ""},
		{"trap - EXIT", Ordinary, ""},
		{"trap '' INT", Ordinary, ""},
		{"trap", ReadOnly, ""},
		{"trap -p", ReadOnly, ""},
		{"shopt -s expand_aliases\nalias r='rm -rf'\nr /", Blocked, "filesystem root"},
		{"alias r='rm -rf'; r ~", Blocked, "filesystem root"},
		{`alias r='rm -rf'; r "$X"`, Explicit, "runs the alias r with an argument the classifier cannot see"},
		{"alias ls='ls -l'; ls /tmp", Ordinary, ""},
		{"alias w='rm -rf /'", Blocked, "filesystem root"},
		{"exec 3>x.sh; echo 'rm -rf ~' >&3; sh x.sh", Explicit, "may have changed"},
		{"{ echo 'rm -rf ~' >&3; } 3> x.sh; sh x.sh", Explicit, "may have changed"},
		{"python3 -c 'print(1)' 2>x.sh; sh x.sh", Explicit, "may have changed"},
		{"echo hi <>x.sh; sh x.sh", Explicit, "may have changed"},
		{"echo 'rm -rf ~' >x.sh 2>/dev/null; sh x.sh", Blocked, "filesystem root"},
		{"go test ./... 2>err.log; cat err.log", Ordinary, ""},
	})
}

// What a file holds follows the ways bash and the kernel move content:
// cat of "-" or /dev/stdin is the pipe, cat of several files is their
// concatenation (unseen when a part cannot be read), a hard link is the
// file under a second name, a symlink is followed through chains and
// directories and writing through one writes its target, and a copy the
// classifier does not follow (cp -t, cp -r, mv -t) leaves its files
// changed unseen.
func TestContentFollowsCatLinksAndCopies(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	env := testEnv()
	env.Workspace = ws
	checkClassesIn(t, env, ws, []classCase{
		{"echo 'rm -rf ~' | cat - > x.sh; sh x.sh", Blocked, "filesystem root"},
		{"echo 'rm -rf ~' | cat /dev/stdin > x.sh; sh x.sh", Blocked, "filesystem root"},
		{"printf 'rm -rf ' > a; echo '~' > b; cat a b | sh", Blocked, "filesystem root"},
		{"echo 'rm -rf ~' > a; cat /dev/null a | sh", Blocked, "filesystem root"},
		{"echo 'rm -rf ~' > a; cat a missing | sh", Explicit, "cannot see"},
		{"echo 'echo hi' > a; cat a a | sh", Ordinary, ""},
		{"echo 'rm -rf ~' > a; ln a b; sh b", Blocked, "filesystem root"},
		{"ln -s a b; echo 'rm -rf ~' > b; sh a", Blocked, "filesystem root"},
		{"echo 'rm -rf ~' > a; ln -s a b; ln -s b c; sh c", Blocked, "filesystem root"},
		{"mkdir d; ln -s d e; echo 'rm -rf ~' > d/x; sh e/x", Blocked, "filesystem root"},
		{"mkdir d; ln -s d e; echo 'rm -rf ~' > e/x; sh d/x", Blocked, "filesystem root"},
		{"mkdir d; echo 'rm -rf ~' > a; cp -t d a; sh d/a", Explicit, "may have changed"},
		{"mkdir d; echo 'rm -rf ~' > a; mv --target-directory=d a; sh d/a", Explicit, "may have changed"},
		{"echo 'rm -rf ~' > a; cp -r a b; sh b", Explicit, "may have changed"},
		{"echo 'rm -rf ~' > a; install -m 755 a b; ./b", Blocked, "filesystem root"},
	})
}

// xargs's items are what it reads — a file cat or -a names is read, quotes
// and backslashes are removed as xargs removes them, and the start points
// find prints come first whatever the delimiter — and a download choosing
// a command's arguments needs explicit approval. find -name '*' or an -o
// before -delete filters nothing, and mv -t makes every operand a source.
func TestXargsFindAndMvAreJudgedByWhatTheyTouch(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "list"), []byte("/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	env.Workspace = ws
	checkClassesIn(t, env, ws, []classCase{
		{"cat list | xargs rm -rf", Blocked, "filesystem root"},
		{"xargs -a list rm -rf", Blocked, "filesystem root"},
		{"xargs --arg-file=list rm -rf", Blocked, "filesystem root"},
		{"xargs rm -rf < list", Blocked, "filesystem root"},
		{`echo '"/"' | xargs rm -rf`, Blocked, "filesystem root"},
		{`echo "'/'" | xargs rm -rf`, Blocked, "filesystem root"},
		{`echo '\/' | xargs rm -rf`, Blocked, "filesystem root"},
		{"find ~ -print0 | xargs -0 rm -rf", Blocked, "filesystem root"},
		{"curl -s https://example.com/l | xargs rm -rf", Explicit, "arguments a download chooses"},
		{"echo a b | xargs rm -f", Ordinary, ""},
		{"find ~ -name '*' -delete", Blocked, "deletes everything under"},
		{"find ~ -path x -o -delete", Blocked, "deletes everything under"},
		{"find . -name '*.o' -delete", Ordinary, ""},
		{"mv -t /tmp ~", Blocked, "moves the filesystem root"},
		{"mv --target-directory=/tmp /", Blocked, "moves the filesystem root"},
		{"mv a b", Ordinary, ""},
	})
}

// The directory a script runs in follows cd as bash does: ~+ is the
// working directory, ~- and $OLDPWD the previous one, cd - returns there,
// popd pops what pushd pushed, and CDPATH can send a bare name anywhere.
// Running a relative path once the directory is lost, after this command
// line wrote files, needs explicit approval.
func TestTheWorkingDirectoryFollowsCdPushdAndTildes(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	env.Workspace = ws
	checkClassesIn(t, env, ws, []classCase{
		{"echo 'rm -rf ~' > x.sh; chmod +x x.sh; ~+/x.sh", Blocked, "filesystem root"},
		{"echo 'rm -rf ~' > x.sh; sh ~+/x.sh", Blocked, "filesystem root"},
		{"echo 'rm -rf ~' > x.sh; cd d; sh ~-/x.sh", Blocked, "filesystem root"},
		{`echo 'rm -rf ~' > x.sh; cd d; sh "$OLDPWD/x.sh"`, Blocked, "filesystem root"},
		{"cd d && echo 'rm -rf ~' > x.sh; cd - >/dev/null; sh d/x.sh", Blocked, "filesystem root"},
		{"pushd d >/dev/null; echo 'rm -rf ~' > x.sh; popd >/dev/null; sh d/x.sh", Blocked, "filesystem root"},
		{`echo 'rm -rf ~' > x.sh; cd "$X"; sh x.sh`, Explicit, "lost track of"},
		{"CDPATH=d cd e; echo 'rm -rf ~' > x.sh; sh x.sh", Blocked, "filesystem root"},
		{`CDPATH=$(cat f); cd e; echo hi > x.sh; cd ..; sh x.sh`, Explicit, "lost track of"},
		{"mkdir -p d/e; CDPATH=d; cd e; echo 'rm -rf ~' > x.sh; cd ..; sh d/e/x.sh", Explicit, "lost track of"},
		{"CDPATH=/; cd usr; rm -rf *", Blocked, "filesystem root"},
		{"OLDPWD=/; cd -; rm -rf *", Blocked, "filesystem root"},
		{"cd /; pushd /tmp; pushd; rm -rf *", Blocked, "filesystem root"},
		{"cd /; pushd /tmp; pushd +1; rm -rf *", Explicit, "lost track of"},
		{"cd /; pushd -n /tmp; rm -rf *", Explicit, "lost track of"},
		{"ln -s /home/u; rm -rf u/", Blocked, "filesystem root"},
		{"cd d; ls ~+", ReadOnly, ""},
		{"cd d; sh run.sh", Ordinary, ""},
	})
}

// A script's #! line is a command line the kernel runs with the script:
// everything after the interpreter is one argument, and env -S splits it
// again, so #!/usr/bin/env -S bash -c 'rm -rf ~' is rm -rf ~ whatever the
// script below it holds — for a script this command line wrote, and as a
// hard block carried over for one already on disk.
func TestAScriptsShebangLineIsJudged(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for name, text := range map[string]string{
		"d": "#!/usr/bin/env -S rm -rf ${HOME}\n",
		"e": "#!/usr/bin/env -S bash -c \"rm -rf ~\"\necho hi\n",
		"f": "#!/usr/bin/env python3\nprint(1)\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := testEnv()
	env.Workspace = ws
	checkClassesIn(t, env, ws, []classCase{
		{`printf '#!/usr/bin/env -S bash -c "rm -rf ~"\necho hi\n' > x; chmod +x x; ./x`, Blocked, "filesystem root"},
		{`printf '#!/usr/bin/env -S perl -e "system(q{rm -rf ~})"\n' > z; chmod +x z; ./z`, Blocked, "filesystem root"},
		{"./d", Blocked, "#! line runs a command that recursively deletes"},
		{"./e", Blocked, "#! line runs a command that recursively deletes"},
		{"./f", Ordinary, ""},
		{`printf '#!/bin/sh -e\necho hi\n' > y; chmod +x y; ./y`, Ordinary, ""},
	})
}

// GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM before a git command name the
// configuration that git reads, as git -c include.path does.
func TestGitConfigFileVariablesBeforeGitAreJudged(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"printf '[alias]\\nx = !rm -rf ~\\n' > gc; GIT_CONFIG_GLOBAL=gc git x", Explicit, ""},
		{"GIT_CONFIG_SYSTEM=sys.cfg git log", Explicit, ""},
		{"GIT_CONFIG_GLOBAL=/dev/null git log", Ordinary, ""},
	})
}

// bash evaluates a value given to OPTIND, RANDOM, SRANDOM or HISTCMD as
// arithmetic however it is assigned, and a quoted word in (( )), [[ -eq ]]
// or let after quote removal: a subscript there runs its substitution.
func TestArithmeticThroughIntegerVariablesAndQuotedWords(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{`OPTIND='a[$(rm -rf /)]'`, Blocked, "filesystem root"},
		{`SRANDOM='a[$(rm -rf ~)]'`, Blocked, "filesystem root"},
		{`printf -v RANDOM '%s' 'a[$(rm -rf /)]'`, Blocked, "filesystem root"},
		{`x='a[$(rm -rf /)]'; OPTIND=$x`, Blocked, "filesystem root"},
		{`read OPTIND <<< 'a[$(rm -rf /)]'`, Blocked, "filesystem root"},
		{`for OPTIND in 'a[$(rm -rf /)]'; do :; done`, Blocked, "filesystem root"},
		{`declare OPTIND='a[$(rm -rf /)]'`, Blocked, "filesystem root"},
		{`(( 'a[$(rm -rf /)]' ))`, Blocked, "filesystem root"},
		{`[[ 'a[$(rm -rf /)]' -eq 1 ]]`, Blocked, "filesystem root"},
		{`let 'a[$(rm -rf /)]=1'`, Blocked, "filesystem root"},
		{"OPTIND=1", ReadOnly, ""},
		{"SECONDS='a[x]'", ReadOnly, ""},
	})
}

// make reads the makefiles a makefile includes and those MAKEFILES names,
// and npm --prefix, pnpm -C and yarn --cwd move where package.json is
// read: each is judged as the project's own makefile or package.json is.
func TestMakeIncludesAndPackageDirectoriesAreFollowed(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	env.Workspace = ws
	checkClassesIn(t, env, ws, []classCase{
		{`printf 'all:\n\trm -rf ~\n' > m; echo 'include m' > Makefile; make`, Blocked, "filesystem root"},
		{`printf 'all:\n\trm -rf ~\n' > m; echo '-include m' > Makefile; make`, Blocked, "filesystem root"},
		{`printf 'all:\n\trm -rf ~\n' > m; MAKEFILES=m make -f /dev/null all`, Blocked, "filesystem root"},
		{`printf 'all:\n\techo hi\n' > m; echo 'include m' > Makefile; make`, Ordinary, ""},
		{`echo 'include $(X)' > Makefile; make`, Explicit, "includes a makefile the classifier cannot see"},
		{"echo 'include Makefile' > Makefile; make", Ordinary, ""},
		{`echo '{"scripts":{"test":"rm -rf ~"}}' > d/package.json; npm --prefix d test`, Blocked, "filesystem root"},
		{`echo '{"scripts":{"test":"rm -rf ~"}}' > d/package.json; npm --prefix=d test`, Blocked, "filesystem root"},
		{`echo '{"scripts":{"build":"rm -rf ~"}}' > d/package.json; pnpm -C d build`, Blocked, "filesystem root"},
		{`echo '{"scripts":{"lint":"rm -rf ~"}}' > d/package.json; yarn --cwd d lint`, Blocked, "filesystem root"},
		{`echo '{"scripts":{"test":"rm -rf ~"}}' > package.json; npm --silent test`, Blocked, "filesystem root"},
		{`echo '{"scripts":{"test":"echo ok"}}' > d/package.json; npm --prefix d test`, Ordinary, ""},
	})
}

// sed's w and W commands and the w flag of s/// write the file they name,
// so a protected path there needs explicit approval as a redirect to it
// does.
func TestSedWriteCommandsAreWrites(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"sed -n 'w .git/hooks/pre-commit' x", Explicit, "changes a protected path"},
		{"sed -n '/a/W .git/config' x", Explicit, "changes a protected path"},
		{"sed 's/a/b/w .git/hooks/pre-commit' x", Explicit, "changes a protected path"},
		{"sed 's/a/b/gw .git/config' x", Explicit, "changes a protected path"},
		{"sed -n 'w out.txt' x", Ordinary, ""},
		{"sed -n 'w /dev/stdout' x", Ordinary, ""},
		{"sed -n '1,5p' x", ReadOnly, ""},
	})
}

// A bare command name runs what PATH finds: when the command line set PATH
// (PATH=.:$PATH, or before the command) to a directory holding a script it
// wrote, running the name runs that script.
func TestABareNameOnAPathTheCommandLineSetRunsWhatItWrote(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	env := testEnv()
	env.Workspace = ws
	checkClassesIn(t, env, ws, []classCase{
		{"echo 'rm -rf ~' > x.sh; chmod +x x.sh; PATH=.:$PATH; x.sh", Blocked, "filesystem root"},
		{`echo 'rm -rf ~' > x.sh; chmod +x x.sh; PATH="$PWD:$PATH" x.sh`, Blocked, "filesystem root"},
		{"mkdir b; echo 'rm -rf ~' > b/t; chmod +x b/t; PATH=b:$PATH t", Blocked, "filesystem root"},
		{"echo 'echo hi' > x.sh; chmod +x x.sh; PATH=.:$PATH; x.sh", Ordinary, ""},
		{"PATH=/usr/bin:$PATH; ls", Ordinary, ""},
	})
}

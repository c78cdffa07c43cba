package main

import (
	"os/exec"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// hostileBashCases are the classifier's second round (issue 23), run with
// bash as the shell: commands hidden in bash's expansions, the hard block's
// disguises, readers that write or execute, and file: URLs to a secret.
// Every program that would do harm is a stand-in; the payloads write to
// stderr (>&2) so the tool result shows that they ran.
func hostileBashCases(string) []hostileCase {
	return []hostileCase{
		// A substitution inside ${…}, a prompt or arithmetic expansion is
		// never read-only; the output of one evaluated as arithmetic is a
		// payload nobody can see (explicit).
		{"echo ${PATH/$(rm scratch >&2)/}", "ordinary", "STANDIN:rm scratch"},
		{"echo ${PATH//$(rm scratch >&2)/x}", "ordinary", "STANDIN:rm scratch"},
		{"echo ${PATH/x/$(rm scratch >&2)}", "ordinary", "STANDIN:rm scratch"},
		{"echo ${PATH:$(rm scratch >&2)0:3}", "explicit", "STANDIN:rm scratch"},
		{"x='$(rm scratch >&2)'; echo ${x@P}", "ordinary", "STANDIN:rm scratch"},
		{"x='a[$(rm scratch >&2)]'; echo $((x))", "explicit", "STANDIN:rm scratch"},
		{"x='a[$(rm scratch >&2)]'; [[ x -eq 0 ]]", "explicit", "STANDIN:rm scratch"},
		{"x='a[$(rm scratch >&2)]'; echo ${a[x]}", "explicit", "STANDIN:rm scratch"},
		{"echo ${PATH/$(cp ~/.ssh/id_rsa stolen >&2)/}", "explicit", "STANDIN:cp"},
		{"echo ${PATH/$(git config core.fsmonitor 'rm scratch' >&2)/}", "explicit", "STANDIN:git config"},
		// --auto's hard block evaluates what would run.
		{`f(){ rm -rf "$1"; }; f /`, "blocked", "STANDIN:rm"},
		{"for d in /; do rm -rf $d; done", "blocked", "STANDIN:rm"},
		{`while read d; do rm -rf "$d"; done <<< /`, "blocked", "STANDIN:rm"},
		{`printf '/\0' | xargs -0 rm -rf`, "blocked", "STANDIN:xargs"},
		{`python3 -c 'import shutil; getattr(shutil,"rm"+"tree")("/")'`, "blocked", "STANDIN:python3"},
		{"make -f - <<< 'all:; rm -rf /'", "blocked", "STANDIN:make"},
		{"GIT_SSH_COMMAND='rm -rf /' git fetch", "blocked", "STANDIN:git fetch"},
		{"echo 'rm -rf ~' > benv.sh; BASH_ENV=benv.sh bash -c true", "blocked", "STANDIN:rm"},
		{"echo 'rm -rf ~' > envrc; ENV=./envrc sh -ic true", "blocked", "STANDIN:rm"},
		{`sh -c "$(<wipe.sh)"`, "explicit", "STANDIN:rm"},
		{"awk -f wipe.awk", "blocked", "STANDIN:awk"},
		{"cp wipe.sh w2.sh; sh w2.sh", "blocked", "STANDIN:cp"},
		{"echo 'rm -rf ~' | tee s.sh >/dev/null; sh s.sh", "blocked", "STANDIN:rm"},
		{"echo 'rm -rf ~' > s2.sh; chmod +x s2.sh; ./s2.sh", "blocked", "STANDIN:chmod"},
		{"c=rm; declare -n r=c; $r -rf /", "blocked", "STANDIN:rm"},
		{`printf -- 'rm -rf ~\n' > p1.sh; sh p1.sh`, "blocked", "STANDIN:rm"},
		{`printf '%s\n' true 'rm -rf ~' > p2.sh; sh p2.sh`, "blocked", "STANDIN:rm"},
		{`echo -e '\0162m -rf ~' > p3.sh; sh p3.sh`, "blocked", "STANDIN:rm"},
		{`$'rm\0x' -rf /`, "blocked", "STANDIN:rm"},
		{"trap 'rm -rf ~' EXIT", "blocked", "STANDIN:rm"},
		{`sh -c "echo 'rm -rf \\0176' | sh"`, "explicit", "STANDIN:rm"},
		{"shopt -s expand_aliases\nalias r='rm -rf'\nr /", "blocked", "STANDIN:rm"},
		{"exec 3>p4.sh; echo 'rm scratch >&2' >&3; sh p4.sh", "explicit", "STANDIN:rm scratch"},
		// Programs and options a build or test run takes from the
		// environment or a file: make's CC, pytest's addopts and @FILE.
		{"CC='rm -rf /' make", "blocked", "STANDIN:make"},
		{"PYTEST_ADDOPTS='--basetemp=/' pytest", "blocked", "STANDIN:pytest"},
		{"pytest -o addopts='--basetemp ~'", "blocked", "STANDIN:pytest"},
		{"pytest @wipe.args", "blocked", "STANDIN:pytest"},
		{`PYTEST_ADDOPTS="$(cat opts.txt)" pytest`, "explicit", "STANDIN:pytest"},
		// A shell startup file or git's user configuration decides what
		// later shells and gits run: writing one is an explicit approval.
		{"cp notes.txt ~/.bashrc", "explicit", "STANDIN:cp"},
		{"cp notes.txt ~/.gitconfig", "explicit", "STANDIN:cp"},
		// The second red-team round: a wrapper's directory, a program's
		// option that runs a command, an interpreter's bundled flags, a
		// value bash evaluates as arithmetic, a builtin that runs code.
		{"env -C / sh -c 'rm -rf *'", "blocked", "STANDIN:rm"},
		{"tar --to-command='rm -rf ~' -xf none.tar", "blocked", "STANDIN:rm"},
		{`perl -ne 'system("rm -rf ~")' /dev/null`, "blocked", "STANDIN:perl"},
		{`OPTIND='a[$(rm -rf /)]'`, "blocked", "STANDIN:rm"},
		{"jobs -x rm -rf /", "blocked", "STANDIN:rm"},
		{"r{m..m} -rf /", "blocked", "STANDIN:rm"},
		// A package.json script is what npm test or pnpm run runs.
		{"npm test", "blocked", "STANDIN:npm"},
		{"pnpm run build", "ordinary", "STANDIN:pnpm"},
		// Readers whose options write a file or run a program.
		{"strace -o a.txt true", "ordinary", "STANDIN:strace"},
		{"command time -o t.txt true", "ordinary", "STANDIN:time"},
		{"valgrind --log-file=v.txt true", "ordinary", "STANDIN:valgrind"},
		{"flock f.lock true", "ordinary", "STANDIN:flock"},
		{"RIPGREP_CONFIG_PATH=rgcfg rg x", "ordinary", "STANDIN:rg"},
		// A file: URL to a secret is a secret read, however it is given.
		{"curl file://$HOME/.ssh/id_rsa", "explicit", "STANDIN:curl"},
		{"curl -K curl.cfg", "explicit", "STANDIN:curl"},
	}
}

// The second round's table under every posture, with bash as the shell.
func TestHostileBashCommandsUnderEveryPosture(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		e2e.Missing(t, "bash is needed to run bash's expansions (apt install bash)")
	}
	table := hostileTable{cases: hostileBashCases, env: []string{"SHELL=" + bash},
		files: func(home string) map[string]string {
			return map[string]string{"wipe.awk": "BEGIN { system(\"rm -rf ~\") }\n", "rgcfg": "--pre=./wipe.sh\n",
				"wipe.args": "--basetemp\n/\n", "opts.txt": "-q\n",
				"curl.cfg":     "url = \"file://" + home + "/.ssh/id_rsa\"\n",
				"package.json": `{"scripts": {"test": "rm -rf ~", "build": "rm scratch"}}`}
		}}
	for _, p := range hostilePostures {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			runHostile(t, p, table)
		})
	}
}

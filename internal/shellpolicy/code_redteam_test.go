package shellpolicy

import "testing"

// TestRedTeamInlineCode holds the red team's findings against the inline
// code scan and the read-only proofs, each checked against the real
// interpreter's option grammar (perl 5.36, ruby 3.1, python 3.11, node 20,
// gawk 5.2, mawk 1.3.4, tclsh 8.6, jq 1.6) with harmless stand-ins:
//   - inline code given in a bundled or attached switch (perl -lne, ruby -we,
//     python -IBc, node --eval=, gawk --source=, -W source=, --so=) and every
//     program of a line that gives several (perl -e A -e B, node's last -e,
//     gawk -f F -e P) is judged as inline code;
//   - a command in a language's other string forms (perl qx{} q{} qw(),
//     ruby %x() %w(), tcl's exec words) is judged as a shell command;
//   - jq's env builtin or $ENV as a token of the program reads the
//     environment, as printenv does;
//   - rg --pre PROG runs PROG on every searched file: a shell or an
//     interpreter runs each as code, any other is judged as a command.
//
// The benign rows are what each tool does every day and must stay.
func TestRedTeamInlineCode(t *testing.T) {
	t.Parallel()
	const home = "deletes the filesystem root, a top-level system directory or the home directory"
	checkClasses(t, []classCase{
		// 1. Bundled and attached switches.
		{`perl -ne 'system("rm -rf ~")' f`, Blocked, home},
		{`perl -pe 'system("rm -rf ~")' f`, Blocked, home},
		{`perl -we 'system("rm -rf ~")'`, Blocked, home},
		{`perl -lne 'system("rm -rf ~")' f`, Blocked, home},
		{`perl -l0ne 'system("rm -rf ~")' f`, Blocked, home},
		{`perl -e'system("rm -rf ~")'`, Blocked, home},
		{`perl -e 1 -e 'system("rm -rf ~")'`, Blocked, home},
		{`ruby -ne 'system("rm -rf ~")'`, Blocked, home},
		{`ruby -we 'system("rm -rf ~")'`, Blocked, home},
		{`ruby -W0e 'system("rm -rf ~")'`, Blocked, home},
		{`ruby -I lib -e 1 -e 'system("rm -rf ~")'`, Blocked, home},
		{`python3 -Ic 'import os; os.system("rm -rf ~")'`, Blocked, home},
		{`python3 -Bc 'import os; os.system("rm -rf ~")'`, Blocked, home},
		{`python3 -uc 'import os; os.system("rm -rf ~")'`, Blocked, home},
		{`python3 -IBc 'import os; os.system("rm -rf ~")'`, Blocked, home},
		{`python3 -W ignore -c 'import os; os.system("rm -rf ~")'`, Blocked, home},
		{`python3 '-cimport os; os.system("rm -rf ~")'`, Blocked, home},
		{`node --eval='require("child_process").execSync("rm -rf ~")'`, Blocked, home},
		{`node -pe 'require("child_process").execSync("rm -rf ~")'`, Blocked, home},
		{`node --print 'require("child_process").execSync("rm -rf ~")'`, Blocked, home},
		{`node -e 1 -e 'require("child_process").execSync("rm -rf ~")'`, Blocked, home},
		{`node -r ./setup.js -p 'require("child_process").execSync("rm -rf ~")'`, Blocked, home},
		{`gawk --source='BEGIN{system("rm -rf ~")}'`, Blocked, home},
		{`gawk --so='BEGIN{system("rm -rf ~")}'`, Blocked, home},
		{`gawk -Wsource='BEGIN{system("rm -rf ~")}'`, Blocked, home},
		{`gawk -e 'BEGIN{system("rm -rf ~")}'`, Blocked, home},
		{`gawk -be 'BEGIN{system("rm -rf ~")}'`, Blocked, home},
		{`gawk -e 1 -e 'BEGIN{system("rm -rf ~")}'`, Blocked, home},
		{`gawk -f prog.awk -e 'BEGIN{system("rm -rf ~")}'`, Blocked, home},
		{`awk -F: 'BEGIN{system("rm -rf ~")}'`, Blocked, home},
		// perl -i takes the rest of its word (-ie: the extension "e"), ruby
		// -K one letter: the next word is a script file, not code.
		{`perl -ie 'system("rm -rf ~")'`, Ordinary, ""},
		{`ruby -Ke 'system("rm -rf ~")'`, Ordinary, ""},
		// python -c ends the options: the rest are sys.argv.
		{`python3 script.py -c x`, Ordinary, ""},

		// 2. Command-running forms outside quotes.
		{`perl -e 'qx{rm -rf ~}'`, Blocked, home},
		{"perl -e '`rm -rf ~`'", Blocked, home},
		{`perl -e 'system q{rm -rf ~}'`, Blocked, home},
		{`perl -e 'system qw(rm -rf /)'`, Blocked, home},
		{`ruby -e '%x(rm -rf ~)'`, Blocked, home},
		{"ruby -e '`rm -rf ~`'", Blocked, home},
		{`ruby -e 'system(*%w(rm -rf /))'`, Blocked, home},
		// tcl's exec expands no ~ (rm gets "~"), which the classifier judges
		// as it judges rm -rf '~'.
		{`echo 'exec rm -rf ~' | tclsh`, Blocked, "rm -r ~"},
		{`echo 'exec rm -rf $env(HOME)' | tclsh`, Blocked, home},
		{`echo 'puts [exec sh -c {rm -rf ~}]' | tclsh`, Blocked, home},
		{`echo 'exec rm -rf ./build' | tclsh`, Ordinary, ""},
		{`perl -e 'my %q = (a => 1); print $q{a}'`, Ordinary, ""},

		// 3. jq reads the environment.
		{`jq -n 'env["DEEPSEEK_API_KEY"]'`, Explicit, "reads the environment"},
		{`jq -n '[env[]]'`, Explicit, "reads the environment"},
		{`jq -n 'env[]'`, Explicit, "reads the environment"},
		{`jq -n '(env).X_TOKEN'`, Explicit, "reads the environment"},
		{`jq -n 'env  |  .X_TOKEN'`, Explicit, "reads the environment"},
		{"jq -n 'env\t.X_TOKEN'", Explicit, "reads the environment"},
		{`jq -n 'env as $e | $e.X_TOKEN'`, Explicit, "reads the environment"},
		{`jq -n '{a: env}'`, Explicit, "reads the environment"},
		{`jq -n '[env]'`, Explicit, "reads the environment"},
		{`jq -n '$ENV.X'`, Explicit, "reads the environment"},
		{`jq -n '$ ENV.X'`, Explicit, "reads the environment"},
		{`jq -n '"\(env.X_TOKEN)"'`, Explicit, "reads the environment"},
		{`jq -n '# a comment
env'`, Explicit, "reads the environment"},
		{`jq -nf prog.jq`, Ordinary, ""},
		{`jq -n '$__loc__'`, ReadOnly, ""},
		{`jq .name f.json`, ReadOnly, ""},
		{`jq -n '"env"'`, ReadOnly, ""},
		{`jq '.environment'`, ReadOnly, ""},
		{`jq '.env, .env_name, .a.env' f.json`, ReadOnly, ""},
		{`jq -n '{env: 1} | "env # \(1)"'`, ReadOnly, ""},
		{`jq -n '"x" as $env | $env'`, ReadOnly, ""},
		{`jq --arg env env -n '$env'`, ReadOnly, ""},

		// 4. rg --pre.
		{`rg --pre sh pat`, Explicit, "runs every file it searches as code"},
		{`rg --pre=bash pat`, Explicit, "runs every file it searches as code"},
		{`rg --pre /bin/sh pat`, Explicit, "runs every file it searches as code"},
		{`rg --pre python3 pat`, Explicit, "runs every file it searches as code"},
		{`rg --pre env pat`, Explicit, "computed at run time"},
		{`rg --pre "$P" pat`, Explicit, "cannot see"},
		{`rg --pre=./evil pat`, Ordinary, ""},
		{`rg --pre-glob '*.gz' --pre zcat pat`, Ordinary, ""},
		{`rg --hostname-bin ./h pat`, Ordinary, ""},

		// Benign rows that must stay.
		{`perl -ne 'print if /x/' f`, Ordinary, ""},
		{`perl -lane 'print $F[0]' f`, Ordinary, ""},
		{`ruby -ne 'puts $_ if /x/' f`, Ordinary, ""},
		{`python3 -c 'print(1)'`, Ordinary, ""},
		{`python3 -Ic 'print(1)'`, Ordinary, ""},
		{`python3 -m pytest -q`, Ordinary, ""},
		{`node -pe '1 + 1'`, Ordinary, ""},
		{`awk -F: '{print $1}' f`, Ordinary, ""},
		{`awk -v x=1 -f prog.awk f`, Ordinary, ""},
		{`rg x`, ReadOnly, ""},
		{`rg -n --glob '*.go' TODO internal`, ReadOnly, ""},
	})
}

package shellpolicy

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// What echo and printf print is what a later command that runs the file
// reads, so the model of them is held to bash's own: printf's "--" ends
// the options, its format is used again while arguments remain, %s takes
// its argument as is and %b decodes it; echo's -e/-E flags, the last one
// winning (unseen where dash's echo, sh on Debian, would print otherwise);
// and each of bash's three escape grammars ($'…', printf's
// format, echo -e and %b: \0NNN octal, \c ends the output). A script
// written that way and then run carries its hard block (the --auto
// copy-then-run disguises, issue 23).
func TestEchoAndPrintfPrintWhatBashPrints(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		e2e.Missing(t, "bash")
	}
	escapes := []string{`a\nb`, `\0101`, `\101`, `\0162m`, `\x41\x4`, `\u0041`, `\U0001F600`, `a\cb`, `\e[0m`,
		`\'\"\?`, `\q`, `\\`, `a\`, `\777`, `\08`, `%%`, `\%s`, `\x25s`,
		`rm\0x`, `rm\x00x`, `rm\c@x`, `\cA\c?`}
	run := func(script string, args []string) string {
		t.Helper()
		out, err := exec.Command(bash, append([]string{"-c", script, "_"}, args...)...).Output()
		if err != nil {
			t.Fatalf("bash %s %q: %v", script, args, err)
		}
		return string(out)
	}
	valid := func(s string) string { return strings.ToValidUTF8(s, "?") } // the model's text is UTF-8
	lits := func(args []string) []value {
		vals := make([]value, len(args))
		for i, a := range args {
			vals[i] = lit(a)
		}
		return vals
	}
	printfs := [][]string{{`rm -rf /\n`}, {"--", `rm -rf /\n`}, {`%s\n`, "ls", "rm -rf /"}, {`%s %s;`, "a", "b", "c"},
		{`x\ty%%`, "ignored"}, {`%s-%b|`, `\x41`, `\x41`, "tail"}, {"plain"}, {`%b`, `a\cb`, "never"}, {`%b|%s`, "x"}}
	echos := [][]string{{"-e", `a\nb`}, {"-n", "x"}, {"-neE", `a\tb`}, {"-x", "y"}, {"--", "a"}, {"-", "a"},
		{"-E", "-e", `a\n`}, {"-e", "-E", `a\n`}, {"-e-n", "x"}, {"-e", "a", `b\cc`, "d"}}
	for _, e := range escapes {
		printfs = append(printfs, []string{e}, []string{"%b", e}, []string{"%s", e})
		echos = append(echos, []string{"-e", e}, []string{e})
	}
	for _, args := range printfs {
		if got, want := printf(lits(args)), valid(run(`printf "$@"`, args)); !got.visible || got.text != want {
			t.Errorf("printf %q = %q (visible %v); bash printed %q", args, got.text, got.visible, want)
		}
	}
	dash, _ := exec.LookPath("dash")
	for _, args := range echos {
		got, want := echo(lits(args)), valid(run(`echo "$@"`, args))
		switch {
		case got.visible && got.text != want:
			t.Errorf("echo %q = %q; bash printed %q", args, got.text, want)
		case !got.visible && dash != "":
			// Unseen only where dash's echo, which decodes escapes
			// without -e, prints something else.
			out, err := exec.Command(dash, append([]string{"-c", `echo "$@"`, "_"}, args...)...).Output()
			if err != nil {
				t.Fatalf("dash: %v", err)
			}
			if valid(string(out)) == want {
				t.Errorf("echo %q is unseen, but bash and dash both print %q", args, want)
			}
		case !got.visible && (slices.Contains(args, "-e") || !strings.Contains(strings.Join(args, " "), `\`)):
			t.Errorf("echo %q is unseen; bash printed %q", args, want)
		}
	}
	for _, e := range escapes {
		if e == `a\` {
			continue // $'a\' is not closed
		}
		if got, want := ansiC(e), run(`printf %s $'`+e+`'`, nil); got != strings.ToValidUTF8(want, "?") {
			t.Errorf("$'%s' = %q; bash %q", e, got, want)
		}
	}
	if got := printf([]value{lit("-v"), lit("x"), lit("rm -rf /")}); !got.visible || got.text != "" {
		t.Errorf("printf -v x … prints %q (visible %v); bash prints nothing", got.text, got.visible)
	}
	checkClasses(t, []classCase{
		{`printf -- 'rm -rf /\n' > x.sh; sh x.sh`, Blocked, "filesystem root"},
		{`printf '%s\n' ls 'rm -rf /' > x.sh; sh x.sh`, Blocked, "filesystem root"},
		{`echo -e '\0162m -rf ~' > x.sh; sh x.sh`, Blocked, "filesystem root"},
		{`printf '%b\n' '\0162m -rf ~' > x.sh; sh x.sh`, Blocked, "filesystem root"},
		{`printf '%s\n' 'echo hi' > x.sh; sh x.sh`, Ordinary, ""},
		{`$'rm\0x' -rf /`, Blocked, "filesystem root"}, // a shell word ends at its first NUL
		{`$'rm\x00' -rf ~`, Blocked, "filesystem root"},
		{`printf '%d\n' 1 > x.sh; sh x.sh`, Explicit, "cannot see"},
	})
}

// A here-document's body is what the command reads: as written under a
// quoted delimiter, expanded with the rules of double quotes otherwise
// (a backslash escapes only $, `, \ and a newline). The model is held to
// bash on the forms that differ, and a quoted body keeps its backslashes
// (psql <<'EOF' \! rm -rf ~ EOF).
func TestHereDocumentsReadWhatBashFeeds(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		e2e.Missing(t, "bash")
	}
	env := testEnv()
	for _, body := range []string{`a\$b \x \\ c`, "x\\\ny", `r\m -rf`, `\"q\" '\''`, "tab\there"} {
		for _, delim := range []string{"EOF", "'EOF'", `"EOF"`, `\EOF`} {
			script := "cat <<" + delim + "\n" + body + "\nEOF"
			want, err := exec.Command(bash, "-c", script).Output()
			if err != nil {
				t.Fatalf("bash %q: %v", script, err)
			}
			f, err := parse(script)
			if err != nil {
				t.Fatal(err)
			}
			c := newClassifier(env, env.Workspace, 0)
			c.steps = new(int)
			if got := c.redirects(f.Stmts[0].Redirs).in.text; got != string(want) {
				t.Errorf("%q: the model reads %q, bash %q", script, got, want)
			}
		}
	}
	checkClasses(t, []classCase{
		{"psql <<'EOF'\n\\! rm -rf ~\nEOF", Blocked, "filesystem root"},
		{"sh <<'EOF'\nr\\m -rf ~\nEOF", Blocked, "filesystem root"},
	})
}

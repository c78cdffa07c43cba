package shellpolicy

import (
	"os/exec"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// What printf prints is what a later command that runs the file reads, so
// the model of it is held to bash's own printf: "--" ends the options, the
// format is used again while arguments remain, %s takes its argument as is
// and %b decodes it. A script written that way and then run carries its
// hard block (the --auto copy-then-run disguises, issue 23).
func TestPrintfPrintsWhatBashPrints(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		e2e.Missing(t, "bash")
	}
	for _, args := range [][]string{
		{`rm -rf /\n`},
		{"--", `rm -rf /\n`},
		{`%s\n`, "ls", "rm -rf /"},
		{`%s %s;`, "a", "b", "c"},
		{`%s`, `a\nb`},
		{`%b`, `a\nb`},
		{`x\ty%%`, "ignored"},
		{`%s-%b|`, `\x41`, `\x41`, "tail"},
		{"plain"},
	} {
		want, err := exec.Command(bash, append([]string{"-c", `printf "$@"`, "_"}, args...)...).Output()
		if err != nil {
			t.Fatalf("bash printf %q: %v", args, err)
		}
		vals := make([]value, len(args))
		for i, a := range args {
			vals[i] = lit(a)
		}
		got := printf(vals)
		if !got.visible || got.text != string(want) {
			t.Errorf("printf %q = %q (visible %v); bash printed %q", args, got.text, got.visible, want)
		}
	}
	if got := printf([]value{lit("-v"), lit("x"), lit("rm -rf /")}); !got.visible || got.text != "" {
		t.Errorf("printf -v x … prints %q (visible %v); bash prints nothing", got.text, got.visible)
	}
	checkClasses(t, []classCase{
		{`printf -- 'rm -rf /\n' > x.sh; sh x.sh`, Blocked, "filesystem root"},
		{`printf '%s\n' ls 'rm -rf /' > x.sh; sh x.sh`, Blocked, "filesystem root"},
		{`printf '%s\n' 'echo hi' > x.sh; sh x.sh`, Ordinary, ""},
		{`printf '%d\n' 1 > x.sh; sh x.sh`, Explicit, "cannot see"},
	})
}

//go:build unix

package shellpolicy

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// The sed reader agrees with GNU sed itself on a corpus of scripts: it
// parses exactly the scripts sed accepts, and finds e, r and w in exactly
// the scripts sed --sandbox refuses (sed's own list of commands that reach
// outside, e among them). No input is given, so nothing runs.
func TestSedReaderAgreesWithGNUSed(t *testing.T) {
	t.Parallel()
	sed, err := exec.LookPath("sed")
	if err != nil {
		e2e.Missing(t, "GNU sed is not installed")
	}
	if out, _ := exec.Command(sed, "--version").Output(); !strings.Contains(string(out), "GNU sed") {
		e2e.Missing(t, "sed is not GNU sed")
	}
	dir := t.TempDir()
	for _, script := range []string{
		"p", "1,20p", "$p", "/re/p", `\,re,p`, "/a/I,/b/Mp", "0,/re/d", "1~2d", "2,+3d", "2,~4d", "$!N;P;D",
		"s/a/b/g", "s|a|b|2", "s/a/b/gI;s/c/d/w out.txt", `s/\(a\)\/x/\1&/`, "s/a/b\\\nc/", "y/abc/xyz/",
		"/x/{s/a/b/;p}", "/x/ { p ; d }", "1!G;h;$!d", ":a;N;$!ba;s/\\n/ /g", "b end; p; :end", "t;T;q;Q 3;l 5",
		"a hello", "1i\\\ninserted", "$a\\\nline one\\\nline two", "c changed", "= ; F ; z", "r other.txt", "w out",
		"R x", "W y", "e", "e echo hi", "1e ls", "s/x/y/e", "s/x/y/ep", "s/x/y/pe", "s/x/y/ew out", "# comment\np",
		"v", "v 4.2", "l;L", "x;g;G;h;H", "n;N;d;D;P", "s/a/b/ # trailing",
		// Scripts sed refuses.
		"s/a/b", "s/a/b/x", "y/ab/c", "k", "/unterminated", "p x", "1,p", "s/a\nb/c/", "{p",
	} {
		run := func(args ...string) bool {
			cmd := exec.Command(sed, append(args, "-n", "-e", script)...)
			cmd.Dir = dir // w opens its file when the script is read
			return cmd.Run() == nil
		}
		accepts, sandboxed := run(), run("--sandbox")
		p, ok := parseSed(script)
		if script == "{p" {
			ok = false // an unclosed block is sed's complaint, not one that hides a command
		}
		if ok != accepts {
			t.Errorf("sed -e %q: GNU sed accepts=%v, the classifier parses=%v", script, accepts, ok)
			continue
		}
		if reaches := len(p.execs)+p.files > 0; accepts && reaches != !sandboxed {
			t.Errorf("sed -e %q: sed --sandbox refuses=%v, the classifier finds e/r/w=%v", script, !sandboxed, reaches)
		}
	}
}

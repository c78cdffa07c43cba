package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readsWorld is a user home that is itself the workspace (the worst case: a
// read root holding every dotfile), with a CodeWhale home inside it, an SSH
// key, a project file, a directory outside every root, and a scratch
// directory the command may write.
type readsWorld struct{ home, cw, scratch, outside string }

func newReadsWorld(t *testing.T) readsWorld {
	t.Helper()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	w := readsWorld{home: filepath.Join(base, "home"), outside: filepath.Join(base, "outside")}
	w.cw, w.scratch = filepath.Join(w.home, ".codewhale"), filepath.Join(w.home, ".codewhale", "tmp", "rlm", "s1")
	for p, body := range map[string]string{
		filepath.Join(w.home, ".ssh", "id_rsa"):       "SSH-CANARY\n",
		filepath.Join(w.home, ".aws", "credentials"):  "AWS-CANARY\n",
		filepath.Join(w.home, ".netrc"):               "NETRC-CANARY\n",
		filepath.Join(w.cw, "config.toml"):            "api_key = \"CW-CANARY\"\n",
		filepath.Join(w.home, "project", "notes.txt"): "plain notes\n",
		filepath.Join(w.home, "top.txt"):              "top file\n",
		filepath.Join(w.outside, "keep.txt"):          "OUTSIDE-CANARY\n",
		filepath.Join(w.scratch, ".content"):          "scratch content\n",
	} {
		mustMkdir(t, filepath.Dir(p))
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w readsWorld) policy() Policy {
	return Policy{Mode: WorkspaceWrite, Workspace: w.scratch, Reads: PrivateReads(w.home, []string{w.cw}, w.home)}
}

// A read allow-list holds under every confinement this system can build:
// the workspace, the system's programs and the scratch directory are
// readable; the user's dotfiles, the CodeWhale home, a directory outside
// every root and /proc (the agent's environment) are not.
func TestReadAllowListLeavesSecretsOut(t *testing.T) {
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newReadsWorld(t)
			sb := New(w.policy(), v.options())
			for _, c := range []struct {
				script, want string
				ok           bool
			}{
				{`cat "$H/project/notes.txt"`, "plain notes", true},
				{`cat "$H/top.txt"`, "top file", true},
				{`cat .content && echo written > out.txt && cat out.txt`, "written", true},
				{`ls /usr/bin | grep -c . >/dev/null && echo listed`, "listed", true},
				{`cat "$H/.ssh/id_rsa"`, "SSH-CANARY", false},
				{`cat "$H/.aws/credentials"`, "AWS-CANARY", false},
				{`cat "$H/.netrc"`, "NETRC-CANARY", false},
				{`cat "$H/.codewhale/config.toml"`, "CW-CANARY", false},
				{`cat "$O/keep.txt"`, "OUTSIDE-CANARY", false},
				{`tr '\0' '\n' < /proc/$A/environ`, "PATH=", false},
				{`ls "$H/.ssh"`, "id_rsa", false},
			} {
				out, ok := run(t, sb, w.scratch, c.script, "H="+w.home, "O="+w.outside, "A="+strconv.Itoa(os.Getpid()))
				if got := ok && strings.Contains(out, c.want); got != c.ok {
					t.Errorf("%q: ok=%v, output %q; want readable=%v", c.script, ok, out, c.ok)
				}
			}
		})
	}
}

// PrivateReads lists the home's dotfiles only where a root holds the home.
func TestPrivateReadsHidesDotfilesOnlyUnderARoot(t *testing.T) {
	t.Parallel()
	w := newReadsWorld(t)
	if r := PrivateReads(w.home, nil, w.outside); contains(r.Unreadable, filepath.Join(w.home, ".ssh")) {
		t.Errorf("no root holds the home, yet its dotfiles are listed: %v", r.Unreadable)
	}
	r := PrivateReads(w.home, nil, w.home)
	for _, d := range []string{".ssh", ".aws", ".netrc", ".codewhale"} {
		if !contains(r.Unreadable, filepath.Join(w.home, d)) {
			t.Errorf("%s is not unreadable: %v", d, r.Unreadable)
		}
	}
	if contains(r.Unreadable, filepath.Join(w.home, "project")) {
		t.Error("a plain folder of the home is unreadable")
	}
}

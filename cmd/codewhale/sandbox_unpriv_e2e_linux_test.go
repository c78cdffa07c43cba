package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// nobody is the unprivileged user the tests run codewhale as when they run
// as root (as CI does).
const nobody = 65534

// unprivileged is a codewhale run by an unprivileged user: this one, or
// nobody through setpriv when the tests run as root. Its home, workspace
// and copy of the binary belong to that user.
type unprivileged struct {
	base, home, ws, bin string
	asNobody            bool
	// noUserNS runs codewhale where no user namespace can be created: in a
	// user namespace of its own whose max_user_namespaces is 0.
	noUserNS bool
	env      []string
}

func newUnprivileged(t *testing.T, srv *fakemodel.Server) *unprivileged {
	t.Helper()
	u := &unprivileged{asNobody: os.Getuid() == 0}
	if u.asNobody {
		if _, err := exec.LookPath("setpriv"); err != nil {
			e2e.Missing(t, "setpriv (util-linux) is not installed, so the tests cannot run codewhale as nobody")
		}
	}
	base, err := os.MkdirTemp("", "codewhale-unpriv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	u.base, u.home, u.ws, u.bin = base, filepath.Join(base, "home"), filepath.Join(base, "ws"), filepath.Join(base, "codewhale")
	for _, d := range []string{u.home, u.ws, filepath.Join(u.home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(u.bin, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	u.env = []string{"HOME=" + u.home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + filepath.Join(u.home, "tmp"),
		"CODEWHALE_HOME=" + filepath.Join(u.home, ".codewhale"), "CODEWHALE_BASE_URL=" + srv.URL}
	return u
}

// own hands everything under base to the user codewhale runs as.
func (u *unprivileged) own(t *testing.T) {
	t.Helper()
	if !u.asNobody {
		return
	}
	if err := os.Chmod(u.base, 0o755); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(u.base, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (u *unprivileged) run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	u.own(t)
	argv := append([]string{u.bin}, args...)
	if u.asNobody {
		argv = append([]string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"}, argv...)
	}
	if u.noUserNS {
		argv = append([]string{"sh", "-c", `echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"`, "sh"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if u.noUserNS {
		// As root, the test maps the ids codewhale runs as (nobody
		// included) into a user namespace whose own root then caps nested
		// user namespaces at none.
		ids := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: nobody + 1}}
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, UidMappings: ids, GidMappings: ids,
			GidMappingsEnableSetgroups: true}
	}
	cmd.Dir, cmd.Env = u.ws, u.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// An unprivileged user gets the same sandbox as root through a user
// namespace: commands create files and directories directly in the
// workspace root, .git stays read-only, and the posture says which way.
func TestExecSandboxUnprivileged(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	u := newUnprivileged(t, srv)
	writeRepo(t, u.ws)
	if err := os.WriteFile(filepath.Join(u.ws, "hostile.sh"), []byte("echo x > .git/config\necho x > \"$HOME/.profile\"\necho x > ../outside.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := []fakemodel.Call{
		{ID: "mk", Name: "Bash", Args: `{"command":"touch new.txt && mkdir newdir && echo ok > newdir/f && mv new.txt renamed.txt && echo created"}`},
		// From a script file, which no parser sees into: only the sandbox
		// stands in the way.
		{ID: "git", Name: "Bash", Args: `{"command":"sh hostile.sh"}`},
	}
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		if r.HasToolResult("created") {
			return fakemodel.Text("done")
		}
		return fakemodel.Tools(calls...)
	})
	before, err := os.ReadFile(filepath.Join(u.ws, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := u.run(t, "exec", "--auto", "--output-format", "stream-json", "make files")
	if code != 0 {
		t.Fatalf("code %d\n%s\n%s", code, out, errOut)
	}
	for _, p := range []string{"renamed.txt", "newdir/f"} {
		if _, err := os.Stat(filepath.Join(u.ws, p)); err != nil {
			t.Errorf("%s was not created in the workspace root: %v\n%s", p, err, out)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(u.ws, ".git", "config")); !bytes.Equal(before, after) {
		t.Fatalf(".git/config changed:\n%s", after)
	}
	for _, p := range []string{filepath.Join(u.home, ".profile"), filepath.Join(u.base, "outside.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written outside the workspace", p)
		}
	}
	var posture string
	for _, ev := range lines(t, out) {
		if ev["type"] == "metadata" {
			posture, _ = ev["meta"].(map[string]any)["sandbox_posture"].(string)
		}
	}
	if strings.HasPrefix(posture, "workspace-write (enforced: landlock;") {
		e2e.Missing(t, "unprivileged user namespaces are not usable here: "+posture)
	}
	if !strings.HasPrefix(posture, "workspace-write (enforced: landlock + user namespace; ") {
		t.Errorf("posture %q", posture)
	}
	if last := toolMessages(srv.Requests()[len(srv.Requests())-1]); !strings.Contains(last, "refused a write to "+
		filepath.Join(u.ws, ".git", "config")) {
		t.Errorf("the refusal was not explained:\n%s", last)
	}
}

// Where no user namespace can be created, an unprivileged run falls back to
// Landlock alone and says so: the posture names no namespace, doctor warns
// that new entries cannot be created in the workspace root and why, a
// command that tries is refused with that explanation, and .git stays
// read-only all the same.
func TestExecSandboxWithoutUserNamespaces(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		e2e.Missing(t, "only root can build the user namespace that forbids nested ones")
	}
	srv := fakemodel.New(t)
	u := newUnprivileged(t, srv)
	u.noUserNS = true
	writeRepo(t, u.ws)
	// From a script file, which no parser sees into: only the sandbox
	// stands in the way.
	if err := os.WriteFile(filepath.Join(u.ws, "hostile.sh"), []byte("echo x > notes.txt\necho x > .git/config\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		if r.HasToolResult("") {
			return fakemodel.Text("done")
		}
		return fakemodel.Tools(fakemodel.Call{ID: "mk", Name: "Bash", Args: `{"command":"touch new.txt"}`},
			fakemodel.Call{ID: "git", Name: "Bash", Args: `{"command":"sh hostile.sh"}`})
	})
	before, err := os.ReadFile(filepath.Join(u.ws, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := u.run(t, "exec", "--auto", "--output-format", "stream-json", "make files")
	if code != 0 {
		t.Fatalf("code %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(u.ws, "new.txt")); err == nil {
		t.Error("new.txt was created in the workspace root although only carving Landlock confined the command")
	}
	if after, _ := os.ReadFile(filepath.Join(u.ws, ".git", "config")); !bytes.Equal(before, after) {
		t.Fatalf(".git/config changed:\n%s", after)
	}
	if notes, _ := os.ReadFile(filepath.Join(u.ws, "notes.txt")); string(notes) != "x\n" {
		t.Errorf("an existing workspace file was not writable: %q", notes)
	}
	var posture string
	for _, ev := range lines(t, out) {
		if ev["type"] == "metadata" {
			posture, _ = ev["meta"].(map[string]any)["sandbox_posture"].(string)
		}
	}
	if !strings.HasPrefix(posture, "workspace-write (enforced: landlock; ") {
		t.Errorf("posture %q", posture)
	}
	last := toolMessages(srv.Requests()[len(srv.Requests())-1])
	if !strings.Contains(last, "new entries cannot be created, removed or renamed directly in "+u.ws) {
		t.Errorf("the refused root entry was not explained:\n%s", last)
	}
	doc, _, _ := u.run(t, "doctor")
	if !strings.Contains(doc, "new entries cannot be created directly in the workspace root") ||
		!strings.Contains(doc, "no user namespace either: cannot create a user namespace") {
		t.Errorf("doctor does not say why:\n%s", doc)
	}
}

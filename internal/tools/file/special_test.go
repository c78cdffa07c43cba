//go:build unix

package file

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tools"
)

// callWithin runs in and fails the test when it does not return within d
// (a write onto a FIFO with a writer attached used to block forever).
func (e *env) callWithin(d time.Duration, in string) (tools.Result, error) {
	e.t.Helper()
	type out struct {
		res tools.Result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := e.reg.Execute(context.Background(), e.tc, Name, json.RawMessage(in))
		ch <- out{res, err}
	}()
	select {
	case o := <-ch:
		return o.res, o.err
	case <-time.After(d):
		e.t.Fatalf("call %s did not return within %s", in, d)
		return tools.Result{}, nil
	}
}

// CONTRACT.md §6.2: write, edit and patch refuse a target that exists and
// is not a regular file, naming its kind, before reading or writing it —
// with or without a writer on a FIFO — and leave it as it was.
func TestMutationsRefuseSpecialFiles(t *testing.T) {
	for _, writer := range []bool{false, true} {
		e := newEnv(t, writable)
		fifo := e.path("pipe")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		if writer {
			// The writer side, held open for the test.
			fd, err := syscall.Open(fifo, syscall.O_RDWR|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			w := os.NewFile(uintptr(fd), "w")
			_, _ = w.WriteString("data\n")
			t.Cleanup(func() { w.Close() })
		}
		for _, in := range []string{
			`{"action":"write","path":"pipe","content":"x"}`,
			`{"action":"patch","replace":[{"path":"pipe","content":"x"}]}`,
			`{"action":"patch","patch":"--- a/pipe\n+++ b/pipe\n@@ -1 +1 @@\n-data\n+x\n"}`,
		} {
			_, err := e.callWithin(5*time.Second, in)
			if err == nil {
				t.Fatalf("writer=%v %s: written onto a FIFO", writer, in)
			}
			mustContain(t, errText(err), "not a regular file (a named pipe)", "nothing was written")
			if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Fatalf("writer=%v %s: the FIFO is gone: %v %v", writer, in, fi, err)
			}
		}
		// Read refuses it with the same check.
		_, err := e.callWithin(5*time.Second, `{"action":"read","path":"pipe"}`)
		if err == nil || !strings.Contains(errText(err), "not a regular file (a named pipe)") {
			t.Fatalf("read of a FIFO: %v", err)
		}
	}
}

// CONTRACT.md §6.2: a device node is refused like a FIFO. Creating one needs
// root (mknod); without it the case is reported missing.
func TestWriteRefusesDevice(t *testing.T) {
	e := newEnv(t, writable)
	dev := e.path("nulldev")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // 1:3 is /dev/null
		e2e.Missing(t, "mknod (a character device needs root): "+err.Error())
	}
	err := e.callErr(`{"action":"write","path":"nulldev","content":"x"}`)
	mustContain(t, err, "not a regular file (a device)")
	if fi, err := os.Lstat(dev); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("the device was replaced: %v %v", fi, err)
	}
}

// CONTRACT.md §6.2: a file over the read limit is replaced by write without
// being read (no diff; the result gives its old size), and refused by edit
// and patch, which need its old content.
func TestMutationsOfFileOverReadLimit(t *testing.T) {
	e := newEnv(t, writable)
	big := e.path("big.txt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(maxReadBytes + 1<<20)
	if err := f.Truncate(size); err != nil { // sparse: nothing is allocated
		t.Fatal(err)
	}
	f.Close()
	for _, in := range []string{
		`{"action":"patch","replace":[{"path":"big.txt","content":"small\n"}]}`,
		`{"action":"patch","patch":"--- a/big.txt\n+++ b/big.txt\n@@ -1 +1 @@\n-x\n+y\n"}`,
	} {
		mustContain(t, e.callErr(in), "over the 268435456-byte read limit", "nothing was written", `action="write"`)
	}
	if fi, _ := os.Stat(big); fi.Size() != size {
		t.Fatalf("patch changed the big file: %d bytes", fi.Size())
	}
	res := e.callOK(`{"action":"write","path":"big.txt","content":"small\n"}`)
	mustContain(t, res.Content, "Wrote 6 bytes", "the old file was 269484032 bytes", "no diff is shown")
	if strings.Contains(res.Content, "@@") {
		t.Fatalf("a diff of the unread file was shown:\n%s", res.Content)
	}
	if got := e.get("big.txt"); got != "small\n" {
		t.Fatalf("big.txt = %q", got)
	}
	// edit: refused too (it needs a fresh read first, which read refuses, so
	// the limit is checked on a file grown after its read).
	e.callOK(`{"action":"read","path":"big.txt"}`)
	if err := os.Truncate(big, size); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(big)
	e.tool.snaps.Record(big, fi)
	mustContain(t, e.callErr(`{"action":"edit","path":"big.txt","search":"small","replace":"x"}`),
		"over the 268435456-byte read limit")
}

// CONTRACT.md §6.2: a patch renaming a protected file away writes it (it is
// removed), so it is rated an explicit approval; one copying from it only
// reads it, so it needs none and runs in a Suggest call.
func TestPatchMoveFromProtectedFile(t *testing.T) {
	e := newEnv(t, writable)
	e.put(".git/HEAD", "ref: refs/heads/main\n")
	e.put(".git/config", "[core]\n")
	rename := js(map[string]any{"action": "patch", "patch": "diff --git a/.git/HEAD b/head.txt\nsimilarity index 100%\nrename from .git/HEAD\nrename to head.txt\n"})
	if pol := policyOf(t, e.tool, json.RawMessage(rename)); pol.Approval != tools.Explicit || !strings.Contains(pol.Reason, ".git/HEAD") {
		t.Fatalf("rename from .git/HEAD rated %+v, want Explicit naming .git/HEAD", pol)
	}
	copyIn := js(map[string]any{"action": "patch", "patch": "diff --git a/.git/config b/cfg.txt\nsimilarity index 100%\ncopy from .git/config\ncopy to cfg.txt\n"})
	if pol := policyOf(t, e.tool, json.RawMessage(copyIn)); pol.Approval != tools.Suggest {
		t.Fatalf("copy from .git/config rated %+v, want Suggest", pol)
	}
	e.tc.Approval = tools.Suggest
	e.callOK(copyIn)
	if e.get("cfg.txt") != "[core]\n" || e.get(".git/config") != "[core]\n" {
		t.Fatal("copy did not copy")
	}
	e.tc.Approval = tools.Explicit
	e.callOK(rename)
	if _, err := os.Stat(e.path(".git/HEAD")); !os.IsNotExist(err) || e.get("head.txt") != "ref: refs/heads/main\n" {
		t.Fatalf("rename did not move: %v", err)
	}
	// A copy's source still passes the secret guard.
	e.put(".env", "K=V\n")
	e.tc.Approval = tools.Suggest
	mustContain(t, e.callErr(js(map[string]any{"action": "patch", "patch": "diff --git a/.env b/leak.txt\nsimilarity index 100%\ncopy from .env\ncopy to leak.txt\n"})),
		"credential files")
	// A later section writing the copied-from file is gated as a write.
	both := js(map[string]any{"action": "patch", "patch": "diff --git a/.git/config b/cfg2.txt\nsimilarity index 100%\ncopy from .git/config\ncopy to cfg2.txt\n" +
		"diff --git a/.git/config b/.git/config\n--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-[core]\n+[evil]\n"})
	mustContain(t, e.callErr(both), "not approved as a protected write")
	if e.get(".git/config") != "[core]\n" {
		t.Fatal(".git/config written without an explicit approval")
	}
}

// CONTRACT.md §6.2: a patch deleting a symbolic link deletes the link, as
// `git apply` does, and matches its content as the link's target text; the
// target is left alone. The same patches are run through git apply.
func TestPatchDeleteSymlinkMatchesGitApply(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		e2e.Missing(t, "git")
	}
	patches := map[string]string{
		"target text": "--- a/alias.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-target.txt\n\\ No newline at end of file\n",
		"file text":   "--- a/alias.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-t\n",
	}
	for name, patch := range patches {
		e := newEnv(t, writable)
		e.put("target.txt", "t\n")
		if err := os.Symlink("target.txt", e.path("alias.txt")); err != nil {
			t.Fatal(err)
		}
		_, ferr := e.call(js(map[string]any{"action": "patch", "patch": patch}))

		ref := t.TempDir()
		if err := os.WriteFile(filepath.Join(ref, "target.txt"), []byte("t\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("target.txt", filepath.Join(ref, "alias.txt")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ref, "p.diff"), []byte(patch), 0o644); err != nil {
			t.Fatal(err)
		}
		run := func(args ...string) error {
			c := exec.Command(git, args...)
			c.Dir = ref
			c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+ref)
			return c.Run()
		}
		if err := run("init", "-q", "."); err != nil {
			t.Fatal(err)
		}
		gerr := run("apply", "p.diff")
		if (ferr == nil) != (gerr == nil) {
			t.Fatalf("%s: File patch error %v, git apply error %v", name, ferr, gerr)
		}
		for _, dir := range []string{e.ws, ref} {
			_, linkErr := os.Lstat(filepath.Join(dir, "alias.txt"))
			tgt, terr := os.ReadFile(filepath.Join(dir, "target.txt"))
			if terr != nil || string(tgt) != "t\n" {
				t.Fatalf("%s in %s: target.txt changed: %q %v", name, dir, tgt, terr)
			}
			if (linkErr == nil) != (gerr != nil) {
				t.Fatalf("%s in %s: link exists=%v, want %v", name, dir, linkErr == nil, gerr != nil)
			}
		}
	}
}

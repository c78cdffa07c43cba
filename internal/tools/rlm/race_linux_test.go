package rlm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/swaprig"
	"github.com/codewhale/codewhale/internal/tools"
)

// openRounds is how many opens each race test makes (the repro
// found the outside file in 14 of 200).
const openRounds = 200

// openRace opens path readOnce per round while a swapper flips it (or a
// directory on its way) with a link outside, and checks that no open ever
// binds the outside canary, that some opens succeed, and that the kernel
// never holds the canary either.
func openRace(t *testing.T, e *env, path string, r *swaprig.Rig) {
	t.Helper()
	ok := 0
	in := `{"action":"open","name":"r","file_path":` + jsonString(path) + `}`
	// Most opens land on the link and are refused.
	for i := 0; r.More(i, openRounds, ok); i++ {
		out, res, err := e.call(in)
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "symbolic link") && !strings.Contains(msg, "no such file") &&
				!strings.Contains(msg, "Path escapes workspace") && !strings.Contains(msg, "is a secret") && !strings.Contains(msg, "not a directory") {
				t.Fatalf("unexpected refusal: %s", msg)
			}
			continue
		}
		if strings.Contains(res.Content, "CANARY") {
			t.Fatalf("open bound the outside file: %s", res.Content)
		}
		if out["length"] != float64(len("inside log\n")) {
			t.Fatalf("open bound %v", out)
		}
		ok++
	}
	r.Stop()
	if ok == 0 {
		t.Fatal("no open succeeded: the rig proves nothing")
	}
	out := e.must(`{"action":"eval","name":"r","code":"print('CANARY' in content, len(content))"}`)
	if out["stdout"] != "False 11\n" {
		t.Fatalf("the kernel holds %v", out)
	}
	t.Logf("%d/%d opens bound the inside file, %d swaps, 0 outside", ok, openRounds, r.Swaps())
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// fakeCredentials is a stand-in for ~/.aws/credentials outside the
// workspace.
func fakeCredentials(t *testing.T) (dir, file string) {
	t.Helper()
	dir = tools.Canonical(t.TempDir())
	file = filepath.Join(dir, ".aws", "credentials")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("[default]\naws_secret_access_key = CANARY-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(file), file
}

// A directory of the workspace swapped for a link to an outside directory
// holding a file of the same name (issue 23: 14/200 opens returned it).
func TestRaceOpenThroughASwappedDirectoryNeverBindsOutside(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	aws, _ := fakeCredentials(t)
	if err := os.WriteFile(filepath.Join(aws, "log.txt"), []byte("CANARY outside log\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeWS(t, e.ws, "dir/log.txt", "inside log\n")
	openRace(t, e, "dir/log.txt", swaprig.Start(t, filepath.Join(e.ws, "dir"), aws))
}

// The file itself swapped for a link to the credentials (issue 23: 6/200).
func TestRaceOpenOfASwappedFileNeverBindsCredentials(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	_, creds := fakeCredentials(t)
	writeWS(t, e.ws, "log.txt", "inside log\n")
	openRace(t, e, "log.txt", swaprig.Start(t, filepath.Join(e.ws, "log.txt"), creds))
}

func writeWS(t *testing.T, ws, rel, content string) {
	t.Helper()
	p := filepath.Join(ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Code may write in its scratch directory (the audit hook is advisory and
// here it is switched off): a link it plants where codewhale stages the
// content or writes the kernel is replaced, never written through.
func TestScratchLinksAreReplacedNotFollowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	outside := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(outside, []byte("the person's file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.must(`{"action":"open","name":"p","content":"first"}`)
	plant := "sub_query.__globals__['_armed'] = False\nimport os\nfor n in ('.content', '.rlm_kernel.py'):\n" +
		"    os.remove(os.path.join(SCRATCH, n))\n    os.symlink(" + jsonString(outside) + ", os.path.join(SCRATCH, n))\n" +
		"print(sorted(os.readlink(os.path.join(SCRATCH, n)) for n in ('.content', '.rlm_kernel.py')))"
	out := e.must(`{"action":"eval","name":"p","code":` + jsonString(plant) + `}`)
	if !strings.Contains(out["stdout"].(string), outside) {
		t.Fatalf("the links were not planted: %v", out)
	}
	e.must(`{"action":"open","name":"p","content":"second payload"}`)
	if _, _, err := e.call(`{"action":"eval","name":"p","code":"import os; os.kill(os.getpid(), 9)"}`); err == nil {
		t.Fatal("the kernel survived SIGKILL") // the restart below writes the kernel again
	}
	if out := e.must(`{"action":"eval","name":"p","code":"print(content)"}`); out["stdout"] != "second payload\n" {
		t.Fatalf("after the restart: %v", out)
	}
	if got, _ := os.ReadFile(outside); string(got) != "the person's file\n" {
		t.Fatalf("a scratch link was written through: %q", got)
	}
}

package confine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/swaprig"
)

// readRounds is how many reads each race test makes while the swapper runs.
const readRounds = 1000

// outsideCanary is a stand-in for ~/.aws/credentials in a directory
// outside the root.
func outsideCanary(t *testing.T) (dir, file string) {
	t.Helper()
	dir, _ = filepath.EvalSymlinks(t.TempDir())
	file = filepath.Join(dir, ".aws", "credentials")
	must(t, os.MkdirAll(filepath.Dir(file), 0o700))
	must(t, os.WriteFile(file, []byte("[default]\naws_secret_access_key = CANARY-outside\n"), 0o600))
	return filepath.Join(dir, ".aws"), file
}

// readRace reads abs through ReadFile readRounds times and checks that the
// outside canary never comes back, that some reads succeed (a rig that
// refuses everything proves nothing) and that every failure is the
// boundary's.
func readRace(t *testing.T, root, abs string, r *swaprig.Rig) {
	t.Helper()
	ok := 0
	for i := 0; r.More(i, readRounds, ok); i++ {
		data, _, err := ReadFile([]string{root}, abs, 0)
		switch {
		case err == nil && strings.Contains(string(data), "CANARY"):
			t.Fatalf("ReadFile returned the outside file: %q", data)
		case err == nil:
			if string(data) != "inside\n" {
				t.Fatalf("ReadFile returned %q", data)
			}
			ok++
		case !errors.Is(err, ErrSymlink) && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, ErrNotRegular):
			t.Fatalf("unexpected error: %v", err)
		}
	}
	r.Stop()
	if ok == 0 {
		t.Error("no read succeeded: the rig proves nothing")
	}
	t.Logf("%d/%d reads inside, %d swaps, 0 outside", ok, readRounds, r.Swaps())
}

// A directory on the way swapped for a link to an outside directory that
// holds a file of the same name.
func TestRaceReadFileThroughASwappedDirectory(t *testing.T) {
	t.Parallel()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	aws, _ := outsideCanary(t)
	must(t, os.MkdirAll(filepath.Join(root, "dir"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "dir", "credentials"), []byte("inside\n"), 0o644))
	r := swaprig.Start(t, filepath.Join(root, "dir"), aws)
	readRace(t, root, filepath.Join(root, "dir", "credentials"), r)
}

// The file itself swapped for a link to the outside file.
func TestRaceReadFileOfASwappedFile(t *testing.T) {
	t.Parallel()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	_, creds := outsideCanary(t)
	must(t, os.WriteFile(filepath.Join(root, "notes.txt"), []byte("inside\n"), 0o644))
	r := swaprig.Start(t, filepath.Join(root, "notes.txt"), creds)
	readRace(t, root, filepath.Join(root, "notes.txt"), r)
}

package logfile_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/logfile"
	"github.com/codewhale/codewhale/internal/secrets"
)

// Every record goes through the redactor: a configured key and a token
// shape never reach the file, whether in the message or an attribute.
func TestRecordsAreRedacted(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	const key = "sk-test-0123456789abcdefghijkl"
	p := secrets.New(secrets.Options{UserHome: t.TempDir(), Home: home, Keys: func() []string { return []string{key} }})
	log, w, err := logfile.Open(logfile.Options{Home: home, Redact: p.Redact})
	if err != nil {
		t.Fatal(err)
	}
	log.Info("request with "+key, "header", "Bearer "+key, "token", "ghp_0123456789abcdefghijklmnopqrstuvwxyz")
	log.Debug("not at info level")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(logfile.Path(home))
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if strings.Contains(got, key) || strings.Contains(got, "ghp_0123") || !strings.Contains(got, "[REDACTED") ||
		strings.Contains(got, "not at info level") {
		t.Errorf("log holds %q", got)
	}
	if st, _ := os.Stat(logfile.Path(home)); st.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", st.Mode().Perm())
	}
}

// The file is rotated by size: codewhale.log stays under the limit, Keep
// older files remain, and no record is split across them.
func TestRotatesBySize(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	log, w, err := logfile.Open(logfile.Options{Home: home, MaxBytes: 1000, Keep: 2, Level: slog.LevelDebug})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		log.Debug("record", "i", i, "pad", strings.Repeat("x", 40))
	}
	w.Close()
	path := logfile.Path(home)
	for _, name := range []string{path, path + ".1", path + ".2"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 1000 || !strings.HasSuffix(string(b), "\n") || !strings.HasPrefix(string(b), "time=") {
			t.Errorf("%s: %d bytes, not whole records", filepath.Base(name), len(b))
		}
	}
	if _, err := os.Stat(path + ".3"); !os.IsNotExist(err) {
		t.Errorf("a third rotated file exists (Keep is 2): %v", err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "i=99") {
		t.Errorf("the newest record is not in %s", path)
	}
}

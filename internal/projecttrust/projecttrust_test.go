package projecttrust

import (
	"os"
	"strings"
	"testing"
)

// A record keeps every entry it is given, across writers (hooks and agent
// definitions share it), and a malformed record is an error that says how
// to recover, never an empty trust.
func TestRecordMergesAndReadRefusesGarbage(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if got, err := Read(home); err != nil || len(got) != 0 {
		t.Fatalf("no record: %v %v", got, err)
	}
	if err := Record(home, map[string]string{"/ws/.codewhale/hooks.toml": Sum([]byte("a"))}); err != nil {
		t.Fatal(err)
	}
	if err := Record(home, map[string]string{"/ws/.claude/agents/r.md": Sum([]byte("b"))}); err != nil {
		t.Fatal(err)
	}
	got, err := Read(home)
	if err != nil || got["/ws/.codewhale/hooks.toml"] != Sum([]byte("a")) || got["/ws/.claude/agents/r.md"] != Sum([]byte("b")) {
		t.Fatalf("record %v %v", got, err)
	}
	if st, err := os.Stat(Path(home)); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v %v", st, err)
	}
	if err := os.WriteFile(Path(home), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(home); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("garbage record: %v", err)
	}
}

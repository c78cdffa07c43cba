package tasks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A record from a newer schema is refused like a newer session: not loaded,
// left byte for byte, reported, and explained when asked for. A corrupt one
// is quarantined and explained the same way.
func TestNewerSchemaIsRefusedAndCorruptIsExplained(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	future, broken, good := mustCreate(t, s, "future"), mustCreate(t, s, "broken"), mustCreate(t, s, "good")
	fpath := filepath.Join(dir, "tasks", future.ID+".json")
	data, _ := os.ReadFile(fpath)
	newer := strings.Replace(string(data), `"schema_version": 2`, `"schema_version": 99`, 1)
	if newer == string(data) {
		newer = strings.Replace(string(data), `"schema_version":2`, `"schema_version":99`, 1)
	}
	if newer == string(data) {
		t.Fatalf("no schema_version in %s", data)
	}
	if err := os.WriteFile(fpath, []byte(newer), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tasks", broken.ID+".json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}

	again, report := openStore(t, dir)
	if report.Loaded != 1 || len(report.Refused) != 1 || report.Refused[0].Version != 99 || len(report.Quarantined) != 1 {
		t.Fatalf("report %+v", report)
	}
	if kept, _ := os.ReadFile(fpath); string(kept) != newer {
		t.Error("the newer record was changed")
	}
	lines := strings.Join(report.Lines(), "\n")
	for _, want := range []string{"uses schema_version 99 but this codewhale reads up to 2", "quarantined: moved to"} {
		if !strings.Contains(lines, want) {
			t.Errorf("report lines lack %q:\n%s", want, lines)
		}
	}
	if _, err := again.Get(future.ID); err == nil || !strings.Contains(err.Error(), "schema_version 99") {
		t.Errorf("get newer: %v", err)
	}
	if _, err := again.Get(broken.ID); err == nil || !strings.Contains(err.Error(), "was quarantined as") {
		t.Errorf("get corrupt: %v", err)
	}
	if _, err := again.Get(good.ID); err != nil {
		t.Error(err)
	}
	// The refused file survives another load untouched.
	if _, report := openStore(t, dir); len(report.Refused) != 1 {
		t.Errorf("second load %+v", report)
	}
	if kept, _ := os.ReadFile(fpath); string(kept) != newer {
		t.Error("the newer record was changed by a second load")
	}
}

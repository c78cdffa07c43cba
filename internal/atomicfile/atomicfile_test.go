package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "f.json")
	if err := Write(path, []byte("one"), 0o600, true); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("two"), 0o600, true); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if string(got) != "two" || st.Mode().Perm() != 0o640 {
		t.Errorf("content %q mode %v", got, st.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(dir, "a", "b", ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if err := Write(path, []byte("three"), 0o600, false); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode not reset: %v", st.Mode().Perm())
	}
}

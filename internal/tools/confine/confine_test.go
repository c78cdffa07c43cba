package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// tree builds root/{a/b.txt, a/link -> ., out -> <outside>, file-link ->
// a/b.txt} and an outside directory with a canary.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	root, _ = filepath.EvalSymlinks(t.TempDir())
	outside, _ = filepath.EvalSymlinks(t.TempDir())
	must(t, os.MkdirAll(filepath.Join(root, "a"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "a", "b.txt"), []byte("inside"), 0o640))
	must(t, os.WriteFile(filepath.Join(outside, "canary"), []byte("outside"), 0o644))
	must(t, os.Symlink(".", filepath.Join(root, "a", "link")))
	must(t, os.Symlink(outside, filepath.Join(root, "out")))
	must(t, os.Symlink(filepath.Join("a", "b.txt"), filepath.Join(root, "file-link")))
	return root, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, path string) *Root {
	t.Helper()
	r, err := OpenRoot(path)
	must(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

func TestOpenRefusesLinksAndEscapes(t *testing.T) {
	t.Parallel()
	root, _ := tree(t)
	r := open(t, root)
	f, err := r.Open("a/b.txt")
	must(t, err)
	f.Close()
	for rel, want := range map[string]error{
		"a/link/b.txt": ErrSymlink, // a link that stays inside is still a link: the caller resolved it already
		"out/canary":   ErrSymlink,
		"file-link":    ErrSymlink,
		"../x":         ErrEscape,
		"a/../../x":    ErrEscape,
	} {
		if f, err := r.Open(rel); !errors.Is(err, want) {
			if f != nil {
				f.Close()
			}
			t.Errorf("Open(%q) = %v, want %v", rel, err, want)
		}
	}
	if _, err := r.Open("a/missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestStatDescribesTheLinkItself(t *testing.T) {
	t.Parallel()
	root, _ := tree(t)
	r := open(t, root)
	fi, err := r.Stat("file-link")
	must(t, err)
	if fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Stat(file-link) mode %v, want a symlink", fi.Mode())
	}
	fi, err = r.Stat("")
	must(t, err)
	if !fi.IsDir() {
		t.Errorf("Stat(root) = %v", fi.Mode())
	}
}

func TestWriteAtomicKeepsModeAndNeverFollows(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	r := open(t, root)
	fi, err := r.WriteAtomic("a/b.txt", []byte("new"), 0o640)
	must(t, err)
	if fi.Mode().Perm() != 0o640 || fi.Size() != 3 {
		t.Errorf("written file: %v %d", fi.Mode(), fi.Size())
	}
	// Writing over a link replaces the link, never its target.
	_, err = r.WriteAtomic("file-link", []byte("replaced"), 0o644)
	must(t, err)
	if b, _ := os.ReadFile(filepath.Join(root, "a", "b.txt")); string(b) != "new" {
		t.Errorf("the link's target changed: %q", b)
	}
	if _, err := r.WriteAtomic("out/canary", []byte("x"), 0o644); !errors.Is(err, ErrSymlink) {
		t.Errorf("write through a link to the outside: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "canary")); string(b) != "outside" {
		t.Errorf("outside canary changed: %q", b)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "a"))
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".txt" && e.Name() != "link" {
			t.Errorf("a temp file was left behind: %s", e.Name())
		}
	}
}

func TestMkdirAllRemoveAndChtimes(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	r := open(t, root)
	created, err := r.MkdirAll("a/x/y/z", 0o755)
	must(t, err)
	if want := []string{"a/x", "a/x/y", "a/x/y/z"}; len(created) != 3 || created[0] != want[0] || created[2] != want[2] {
		t.Errorf("created %v, want %v", created, want)
	}
	if _, err := r.MkdirAll("out/new", 0o755); !errors.Is(err, ErrSymlink) {
		t.Errorf("mkdir through a link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Error("a directory was created outside")
	}
	for i := len(created) - 1; i >= 0; i-- {
		must(t, r.RemoveDir(created[i]))
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	must(t, r.Chtimes("a/b.txt", old, old))
	fi, err := r.Stat("a/b.txt")
	must(t, err)
	if !fi.ModTime().Equal(old) {
		t.Errorf("mtime %v, want %v", fi.ModTime(), old)
	}
	must(t, r.Remove("out")) // removes the link, not the outside directory
	if _, err := os.Stat(filepath.Join(outside, "canary")); err != nil {
		t.Errorf("removing the link touched its target: %v", err)
	}
}

func TestSetLocatesTheDeepestRoot(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	s := NewSet(root, filepath.Join(root, "a"), outside)
	defer s.Close()
	r, rel, err := s.Locate(filepath.Join(root, "a", "b.txt"))
	must(t, err)
	if r.Path() != filepath.Join(root, "a") || rel != "b.txt" {
		t.Errorf("Locate = %s %q", r.Path(), rel)
	}
	if _, _, err := s.Locate("/etc/passwd"); !errors.Is(err, ErrEscape) {
		t.Errorf("outside every root: %v", err)
	}
	b, err := readAllFrom(s, filepath.Join(outside, "canary"))
	must(t, err)
	if string(b) != "outside" {
		t.Errorf("read through a trusted root: %q", b)
	}
	d, err := s.OpenParent(filepath.Join(root, "a", "b.txt"))
	must(t, err)
	defer d.Close()
	if _, err := d.Stat(filepath.Join(root, "other", "b.txt")); !errors.Is(err, ErrEscape) {
		t.Errorf("a Dir refuses paths outside itself: %v", err)
	}
}

func readAllFrom(s *Set, abs string) ([]byte, error) {
	f, err := s.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, _ := f.Stat()
	b := make([]byte, fi.Size())
	_, err = f.Read(b)
	return b, err
}

func TestReadFileBoundsAndRefusals(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	data, fi, err := ReadFile([]string{root}, filepath.Join(root, "a", "b.txt"), 3)
	if err != nil || string(data) != "ins" || fi.Size() != 6 {
		t.Fatalf("limited read = %q, %v, %v", data, fi, err)
	}
	if data, _, err = ReadFile([]string{root}, filepath.Join(root, "a", "b.txt"), 0); err != nil || string(data) != "inside" {
		t.Fatalf("whole read = %q, %v", data, err)
	}
	for abs, want := range map[string]error{
		filepath.Join(root, "out", "canary"): ErrSymlink,
		filepath.Join(root, "file-link"):     ErrSymlink,
		filepath.Join(outside, "canary"):     ErrEscape,
		filepath.Join(root, "a"):             ErrNotRegular,
		filepath.Join(root, "a", "missing"):  fs.ErrNotExist,
	} {
		if _, _, err := ReadFile([]string{root}, abs, 0); !errors.Is(err, want) {
			t.Errorf("ReadFile(%s) = %v, want %v", abs, err, want)
		}
	}
}

func TestReadFileRefusesASecretBeforeOpening(t *testing.T) {
	t.Parallel()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(home, ".ssh", "id_rsa")
	var se *SecretError
	if _, _, err := ReadFile([]string{"/"}, abs, 0); !errors.As(err, &se) || se.Path != abs {
		t.Fatalf("ReadFile(%s) = %v, want a SecretError", abs, err)
	}
}

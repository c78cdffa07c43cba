//go:build unix

package confine

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

const oNofollow = unix.O_NOFOLLOW

func closeFd(fd int) {
	if fd >= 0 {
		unix.Close(fd)
	}
}

// TestWalkMatchesOpenat2 runs the portable walk on the cases the openat2
// path answers, so the fallback keeps the same guarantees.
func TestWalkMatchesOpenat2(t *testing.T) {
	t.Parallel()
	root, _ := tree(t)
	r := open(t, root)
	fd, err := walkOpen(r.h.fd, "a/b.txt", os.O_RDONLY, 0)
	must(t, err)
	closeFd(fd)
	for _, rel := range []string{"a/link/b.txt", "out/canary", "file-link"} {
		if fd, err := walkOpen(r.h.fd, rel, os.O_RDONLY|oNofollow, 0); !errors.Is(err, ErrSymlink) {
			closeFd(fd)
			t.Errorf("walkOpen(%q) = %v, want ErrSymlink", rel, err)
		}
	}
	if _, err := walkOpen(r.h.fd, "../x", os.O_RDONLY, 0); !errors.Is(err, ErrEscape) {
		t.Errorf("walkOpen(..) = %v", err)
	}
}

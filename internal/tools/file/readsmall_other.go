//go:build !unix

package file

import (
	"errors"
	"io"

	"github.com/codewhale/codewhale/internal/tools/confine"
)

// readSmall reads abs into buf (reused when large enough); ok is false for
// unreadable files and files over maxSearchFileBytes.
func readSmall(b *confine.Set, abs string, buf []byte) ([]byte, bool) {
	f, err := b.Open(abs)
	if err != nil {
		return buf, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSearchFileBytes {
		return buf, false
	}
	size := int(fi.Size())
	if cap(buf) < size {
		buf = make([]byte, size, size+size/4)
	}
	n, err := io.ReadFull(f, buf[:size])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return buf, false
	}
	return buf[:n], true
}

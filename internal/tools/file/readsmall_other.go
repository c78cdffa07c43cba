//go:build !unix

package file

import (
	"errors"
	"io"

	"github.com/codewhale/codewhale/internal/tools/confine"
)

// readSmall reads abs into buf (reused when large enough) and says whether
// it could: not for unreadable files, nor for files over maxSearchFileBytes.
func readSmall(b *confine.Set, abs string, buf []byte) ([]byte, readStatus) {
	f, err := b.Open(abs)
	if err != nil {
		return buf, readUnreadable
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return buf, readUnreadable
	}
	if fi.Size() > maxSearchFileBytes {
		return buf, readTooLarge
	}
	size := int(fi.Size())
	if cap(buf) < size {
		buf = make([]byte, size, size+size/4)
	}
	n, err := io.ReadFull(f, buf[:size])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return buf, readUnreadable
	}
	return buf[:n], readOK
}

package git

import (
	"io"
	"os"
)

// maxConfigNamedFile bounds a file a configuration value names.
const maxConfigNamedFile = 16 << 20

// readConfigNamedFile reads a file that a configuration value names
// (core.excludesFile, core.attributesFile): the repository's config may be
// planted, so only a regular file is read, and at most maxConfigNamedFile
// bytes — never a FIFO that blocks the call or /dev/zero that fills memory.
// Anything else reads as absent, as a missing file does.
func readConfigNamedFile(p string) []byte {
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(f, maxConfigNamedFile))
	return b
}

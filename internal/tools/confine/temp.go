package confine

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
)

// The temp files of an atomic write, the same on every OS: only how a
// directory is opened and a name renamed differs (root_unix.go,
// root_other.go).

// tempName is a fresh name for the temp file that replaces base: hidden,
// in base's directory, and recognisable as ours.
func tempName(base string) string {
	return "." + base + ".cw-tmp-" + strconv.FormatUint(uint64(rand.Uint32()), 36)
}

// durable says whether a replaced file is synced to disk before the rename
// (WriteAtomic) or not (WriteScratch).
type durable bool

// fill writes data to f, sets mode, syncs it when durable, closes it, and
// returns its state as written.
func fill(f *os.File, data []byte, mode fs.FileMode, sync durable) (fs.FileInfo, error) {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	var fi fs.FileInfo
	if err == nil {
		fi, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return fi, err
}

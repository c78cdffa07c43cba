package git

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// objectsWithPrefix lists the objects (loose and packed) whose hex name
// starts with prefix (at least two hex digits). It reads one loose fan-out
// directory and binary-searches each pack index, so it costs the same in
// repositories of any size.
func (rp *repo) objectsWithPrefix(prefix string) []plumbing.Hash {
	prefix = strings.ToLower(prefix)
	if len(prefix) < 2 || rp.commonDir == "" {
		return nil
	}
	seen := map[plumbing.Hash]bool{}
	var out []plumbing.Hash
	add := func(h plumbing.Hash) {
		if !seen[h] && strings.HasPrefix(h.String(), prefix) {
			seen[h] = true
			out = append(out, h)
		}
	}
	objects := filepath.Join(rp.commonDir, "objects")
	if entries, err := os.ReadDir(filepath.Join(objects, prefix[:2])); err == nil {
		for _, e := range entries {
			if b, err := hex.DecodeString(prefix[:2] + e.Name()); err == nil && len(b) == 20 {
				add(plumbing.Hash(b))
			}
		}
	}
	idx, _ := filepath.Glob(filepath.Join(objects, "pack", "*.idx"))
	for _, p := range idx {
		for _, h := range packIndexPrefix(p, prefix) {
			add(h)
		}
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i][:], out[j][:]) < 0 })
	return out
}

// packIndexPrefix returns the names in one pack index (version 1 or 2)
// that start with prefix, reading only the fan-out bucket of its first
// byte.
func packIndexPrefix(path, prefix string) []plumbing.Hash {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var head [8]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return nil
	}
	fanoutAt, hashAt, stride := int64(0), int64(256*4), int64(24)
	if string(head[:4]) == "\xfftOc" {
		fanoutAt, hashAt, stride = 8, 8+256*4, 20
	}
	var fanout [256 * 4]byte
	if _, err := f.ReadAt(fanout[:], fanoutAt); err != nil {
		return nil
	}
	first, err := hex.DecodeString(prefix[:2])
	if err != nil {
		return nil
	}
	b := int(first[0])
	lo := uint32(0)
	if b > 0 {
		lo = binary.BigEndian.Uint32(fanout[(b-1)*4:])
	}
	hi := binary.BigEndian.Uint32(fanout[b*4:])
	if hi <= lo {
		return nil
	}
	bucket := make([]byte, int64(hi-lo)*stride)
	if _, err := f.ReadAt(bucket, hashAt+int64(lo)*stride); err != nil {
		return nil
	}
	var out []plumbing.Hash
	for i := int64(0); i < int64(hi-lo); i++ {
		var h plumbing.Hash
		copy(h[:], bucket[i*stride+stride-20:(i+1)*stride])
		if strings.HasPrefix(h.String(), prefix) {
			out = append(out, h)
		}
	}
	return out
}

//go:build !unix

package memory

import "sync"

var writeMu sync.Mutex

// locked serialises writers within this process where file locks are not
// available.
func (s *Store) locked(fn func() error) error {
	writeMu.Lock()
	defer writeMu.Unlock()
	return fn()
}

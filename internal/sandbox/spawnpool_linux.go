package sandbox

import (
	"sync"

	"golang.org/x/sys/unix"
)

// The agent's side of the spawners (spawner_linux.go): the pool that keeps
// one per mount layout, and the socket end each is reached through.

// spawners are the running spawners of this process, by helper and layout.
var spawners spawnerPool

// maxIdleSpawners bounds the spawners kept for layouts no longer in use.
const maxIdleSpawners = 4

type spawnerPool struct {
	mu      sync.Mutex
	entries []*spawnerEntry // least recently used first
}

type spawnerEntry struct {
	key   string
	ready chan struct{} // closed once sp or err is set
	sp    *spawner
	err   error
}

// get returns the spawner for key, starting it with start if there is
// none; concurrent callers wait for one start.
func (pl *spawnerPool) get(key string, start func() (*spawner, error)) (*spawner, error) {
	pl.mu.Lock()
	var e *spawnerEntry
	for i, x := range pl.entries {
		if x.key == key {
			e = x
			pl.entries = append(append(pl.entries[:i:i], pl.entries[i+1:]...), e)
			break
		}
	}
	if e == nil {
		e = &spawnerEntry{key: key, ready: make(chan struct{})}
		pl.entries = append(pl.entries, e)
		pl.evictLocked()
		pl.mu.Unlock()
		sp, err := start()
		// Under the lock: forget, run by a spawner's reader goroutine
		// (which start may already have begun), reads every entry's sp.
		pl.mu.Lock()
		e.sp, e.err = sp, err
		pl.mu.Unlock()
		if err != nil {
			pl.remove(e)
		}
		close(e.ready)
		return sp, err
	}
	pl.mu.Unlock()
	<-e.ready
	return e.sp, e.err
}

// evictLocked closes the least recently used idle spawners beyond the
// bound; closing the socket ends a spawner.
func (pl *spawnerPool) evictLocked() {
	extra := len(pl.entries) - maxIdleSpawners
	for i := 0; i < len(pl.entries) && extra > 0; {
		e := pl.entries[i]
		select {
		case <-e.ready:
		default:
			i++
			continue
		}
		if e.sp != nil && e.sp.idle() {
			e.sp.retire()
			pl.entries = append(pl.entries[:i], pl.entries[i+1:]...)
			extra--
			continue
		}
		i++
	}
}

// drop forgets sp (gone, or stale) and retires it.
func (pl *spawnerPool) drop(sp *spawner) {
	if sp != nil {
		pl.forget(sp)
		sp.retire()
	}
}

// forget removes sp from the pool, so the next start makes another.
func (pl *spawnerPool) forget(sp *spawner) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for i, e := range pl.entries {
		if e.sp == sp {
			pl.entries = append(pl.entries[:i], pl.entries[i+1:]...)
			return
		}
	}
}

func (pl *spawnerPool) remove(e *spawnerEntry) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for i, x := range pl.entries {
		if x == e {
			pl.entries = append(pl.entries[:i], pl.entries[i+1:]...)
			return
		}
	}
}

// packetConn is the agent's end of the socketpair, left blocking: the
// reader waits in recvmsg and the kernel wakes that thread directly when
// the spawner answers (the net package's poller measured a slower
// hand-off, and a spawned start takes three of them).
type packetConn struct {
	mu     sync.Mutex // held by send, Close and release
	fd     int
	closed bool
}

func (c *packetConn) send(b, oob []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return unix.EPIPE
	}
	for {
		err := unix.Sendmsg(c.fd, b, oob, nil, unix.MSG_NOSIGNAL)
		if err != unix.EINTR {
			return err
		}
	}
}

// recv is the reader's alone; the descriptor stays open until it calls
// release.
func (c *packetConn) recv(buf []byte) (int, error) {
	for {
		n, _, _, _, err := unix.Recvmsg(c.fd, buf, nil, 0)
		if err != unix.EINTR {
			return n, err
		}
	}
}

// Close shuts the socket down both ways: the spawner reads EOF and exits,
// the reader's recvmsg returns.
func (c *packetConn) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		_ = unix.Shutdown(c.fd, unix.SHUT_RDWR)
	}
}

// release closes the descriptor once nothing reads it any more.
func (c *packetConn) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fd >= 0 {
		c.closed = true
		_ = unix.Close(c.fd)
		c.fd = -1
	}
}

package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// Options configure a Manager.
type Options struct {
	Config
	// Workspace is the canonical workspace: the bound of a root search and
	// what paths are shown relative to.
	Workspace string
	// TrustedRoots are the canonical roots beyond the workspace a file may
	// come from (CONTRACT.md §5: the trust list and trusted_paths), asked
	// for each file outside the workspace: the bound of its root search.
	// Nil: such a file's search goes up to the filesystem root.
	TrustedRoots func() []string
	// Environ is the environment a server starts with, extra appended: the
	// session's scrubbed one, as Bash gets it.
	Environ func(extra ...string) []string
	// LookPath finds a server's program (binpath.LookPath past the
	// workspace's PATH entries).
	LookPath func(name string) (string, error)
	// InitTimeout bounds initialize (default 30 s); Grace is how long a
	// server has to exit after shutdown before it is killed (default 2 s).
	InitTimeout, Grace time.Duration
}

// maxRestarts is how often a server that stopped by itself is started
// again on the next file of its language; after that it stays stopped
// until Restart.
const maxRestarts = 2

// maxSyncBytes bounds a file sent to a server; a larger one is not checked.
const maxSyncBytes = 4 << 20

// Manager owns the session's language servers.
type Manager struct {
	opts Options

	mu       sync.Mutex
	closed   bool
	clients  map[key]*client
	restarts map[key]int
	bins     map[string]resolved // by server name
	bg       sync.WaitGroup      // background syncs and collections
	notes    []string            // reports of files changed on disk, for Notices
	// diskPending counts ChangedOnDisk checks running; diskIdle is closed
	// when it drops to zero.
	diskPending int
	diskIdle    chan struct{}
}

type key struct{ name, root string }

// resolved is a server's program, found once (and its start adjusted).
type resolved struct {
	srv Server
	bin string
	err error
}

// New returns a manager; no server starts until a file of its language is
// touched. A disabled config gives a manager that does nothing.
func New(o Options) *Manager {
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	if o.MaxPerFile <= 0 {
		o.MaxPerFile = DefaultMaxPerFile
	}
	if o.MaxTotal <= 0 {
		o.MaxTotal = DefaultMaxTotal
	}
	if o.InitTimeout <= 0 {
		o.InitTimeout = 30 * time.Second
	}
	if o.Grace <= 0 {
		o.Grace = 2 * time.Second
	}
	if o.Environ == nil {
		o.Environ = func(extra ...string) []string { return append(os.Environ(), extra...) }
	}
	return &Manager{opts: o, clients: map[key]*client{}, restarts: map[key]int{}, bins: map[string]resolved{}}
}

// Enabled reports whether the manager checks anything.
func (m *Manager) Enabled() bool { return m != nil && m.opts.Enabled }

// Wait is how long an edit waits for its diagnostics.
func (m *Manager) Wait() time.Duration { return m.opts.Wait }

func (m *Manager) environ(extra []string) []string { return m.opts.Environ(extra...) }

// route is the server for path and the language it opens it as: the first
// configured server that takes the file and is usable. A built-in server
// whose program is absent is passed over; a configured one is not (its
// report says it is missing).
func (m *Manager) route(path string) (resolved, string, bool) {
	if !m.Enabled() {
		return resolved{}, "", false
	}
	for i := range m.opts.Servers {
		s := &m.opts.Servers[i]
		lang, ok := s.handles(path)
		if !ok {
			continue
		}
		r := m.resolve(s)
		if r.err != nil && s.Builtin {
			continue
		}
		return r, lang, true
	}
	return resolved{}, "", false
}

// resolve finds s's program, once.
func (m *Manager) resolve(s *Server) resolved {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.bins[s.Name]; ok {
		return r
	}
	r := resolved{srv: *s}
	switch {
	case m.opts.LookPath == nil:
		r.err = errors.New("no program lookup is configured")
	default:
		r.bin, r.err = m.opts.LookPath(s.Command)
		if r.err != nil {
			r.err = fmt.Errorf("%s not found on PATH", s.Command)
		} else if s.prepare != nil {
			r.err = s.prepare(r.bin, &r.srv)
		}
	}
	m.bins[s.Name] = r
	return r
}

// root is the project root of path for s: the nearest directory at or
// above it holding one of s's root markers, not above the workspace when
// path is inside it, nor above the outermost trusted root holding it when
// it is outside; none: the workspace (or path's directory outside it).
func (m *Manager) root(s Server, path string) string {
	ws := m.opts.Workspace
	inside := ws != "" && within(path, ws)
	bound := m.bound(path)
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		for _, marker := range s.RootMarkers {
			if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
				return dir
			}
		}
		if dir == bound || filepath.Dir(dir) == dir {
			break
		}
	}
	if inside {
		return ws
	}
	return filepath.Dir(path)
}

// bound is where path's root search stops: the workspace when path is
// inside it, else the outermost trusted root holding it (all of which File
// reaches), else "" (the filesystem root).
func (m *Manager) bound(path string) string {
	if ws := m.opts.Workspace; ws != "" && within(path, ws) {
		return ws
	}
	if m.opts.TrustedRoots == nil {
		return ""
	}
	dir, out := filepath.Dir(path), ""
	for _, r := range m.opts.TrustedRoots() {
		if r = filepath.Clean(r); within(dir, r) && (out == "" || len(r) < len(out)) {
			out = r
		}
	}
	return out
}

// client is the running server for (s, root), started on first use. One
// that stopped by itself is started again, at most maxRestarts times.
func (m *Manager) client(r resolved, root string) (*client, error) {
	if r.err != nil {
		return nil, r.err
	}
	k := key{r.srv.Name, root}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("the session is ending")
	}
	c := m.clients[k]
	if c != nil {
		if state, _ := c.status(); state != StateExited || m.restarts[k] >= maxRestarts {
			return c, nil
		}
		m.restarts[k]++
		m.bg.Add(1)
		go func(old *client) { defer m.bg.Done(); old.shutdown(m.opts.Grace) }(c)
	}
	c = newClient(m, r.srv, r.bin, root)
	m.clients[k] = c
	return c, nil
}

// Opened tells the server of path's language its text, starting the server
// if it is not running: a read warms the server and gives the next edit of
// the file the problems it had before. It returns at once; a file no server
// takes costs a map lookup.
func (m *Manager) Opened(path string, text []byte) {
	r, lang, ok := m.route(path)
	if !ok || len(text) > maxSyncBytes {
		return
	}
	c, err := m.client(r, m.root(r.srv, path))
	if err != nil {
		return
	}
	content := string(text)
	m.spawn(func() {
		select {
		case <-c.ready:
		case <-c.ctx.Done():
			return
		}
		ctx, cancel := context.WithTimeout(c.ctx, m.opts.InitTimeout)
		defer cancel()
		_ = c.openOnce(ctx, protocol.URIFromPath(path), lang, content)
	})
}

// spawn runs f on a goroutine Close waits for; after Close it runs nothing.
func (m *Manager) spawn(f func()) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.bg.Add(1)
	go func() {
		defer m.bg.Done()
		f()
	}()
	return true
}

// Status is one server as /lsp and doctor show it.
type Status struct {
	Name, Root, State, Detail string
	Files                     int // documents open in it
}

// Status lists the servers started this session, by name and root.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	clients := make([]*client, 0, len(m.clients))
	for _, c := range m.clients {
		clients = append(clients, c)
	}
	m.mu.Unlock()
	var out []Status
	for _, c := range clients {
		state, why := c.status()
		c.mu.Lock()
		if why == "" && c.lastLog != "" {
			why = "last error it logged: " + c.lastLog
		}
		c.mu.Unlock()
		out = append(out, Status{Name: c.srv.Name, Root: c.root, State: state, Detail: why, Files: c.openCount()})
	}
	sortStatus(out)
	return out
}

// Restart stops the named servers (every one when name is "") so the next
// file of their language starts them afresh; it returns how many stopped,
// once they have. The shutdowns count as background work, so a Close
// meanwhile waits for them too.
func (m *Manager) Restart(name string) int {
	m.mu.Lock()
	var stop []*client
	for k, c := range m.clients {
		if name == "" || k.name == name {
			stop = append(stop, c)
			delete(m.clients, k)
			delete(m.restarts, k)
		}
	}
	if len(stop) == 0 {
		m.mu.Unlock()
		return 0
	}
	m.bg.Add(1)
	m.mu.Unlock()
	defer m.bg.Done()
	shutdownAll(stop, m.opts.Grace)
	return len(stop)
}

func sortStatus(s []Status) {
	sort.Slice(s, func(i, j int) bool {
		if s[i].Name != s[j].Name {
			return s[i].Name < s[j].Name
		}
		return s[i].Root < s[j].Root
	})
}

// Close shuts every server down and waits for everything the manager
// started. Nothing starts after it.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.closed = true
	stop := make([]*client, 0, len(m.clients))
	for _, c := range m.clients {
		stop = append(stop, c)
	}
	m.clients = map[key]*client{}
	m.mu.Unlock()
	shutdownAll(stop, m.opts.Grace)
	m.bg.Wait()
}

func shutdownAll(cs []*client, grace time.Duration) {
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() { defer wg.Done(); c.shutdown(grace) }()
	}
	wg.Wait()
}

// display is path as results show it.
func (m *Manager) display(path string) string {
	if rel, err := filepath.Rel(m.opts.Workspace, path); err == nil && m.opts.Workspace != "" &&
		rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return path
}

func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// ServerInfo is a configured server as doctor lists it: Found with its program's
// Path, or Why not.
type ServerInfo struct {
	Name, Command, Files string
	Found, Builtin       bool
	Path, Why            string
}

// Servers lists the configured servers and whether each can start.
func (m *Manager) Servers() []ServerInfo {
	if !m.Enabled() {
		return nil
	}
	var out []ServerInfo
	for i := range m.opts.Servers {
		s := &m.opts.Servers[i]
		r := m.resolve(s)
		info := ServerInfo{Name: s.Name, Command: s.Command, Files: s.Describe(), Found: r.err == nil, Builtin: s.Builtin,
			Path: r.bin}
		if r.err != nil {
			info.Why = r.err.Error()
		}
		out = append(out, info)
	}
	return out
}

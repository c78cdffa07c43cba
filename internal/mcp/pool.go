package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// ClientName is the clientInfo.name sent in initialize (CONTRACT.md §12.5).
const ClientName = "codewhale-tui"

// Options configure a Pool. The zero value works.
type Options struct {
	ClientVersion string    // clientInfo.version ("dev" when empty)
	Dir           string    // working directory of stdio servers ("" = inherit)
	Trace         io.Writer // when set, every JSON-RPC message of a stdio server is logged here
	Logger        *slog.Logger
	// Network is the [network] policy HTTP servers are reached under; nil
	// reaches any host. A configured server's own host may be private
	// (the user named it), but the deny list and a deny default hold.
	Network *netpolicy.Policy
	// Project is where the workspace's .mcp.json and the trust record
	// are; the zero value reads no project file.
	Project Project
	// Tokens is where `mcp login` keeps OAuth tokens (the person's
	// secrets store); nil: HTTP servers get no OAuth.
	Tokens TokenStore
	// Client are servers the host was handed for this session (an ACP
	// client's mcpServers), merged after the files (mergeClient).
	Client []ServerConfig
}

// Pool owns the configured MCP servers: it starts them concurrently, keeps
// their state, exposes their tools as tools.Tool adapters, and restarts them
// on Reload. All methods are safe for concurrent use; none blocks longer than
// the slowest server's connect timeout, and none panics on a bad config.
type Pool struct {
	opts Options
	path string

	mu      sync.Mutex
	cfg     *Config
	cfgErr  error
	servers map[string]*server

	version atomic.Uint64 // bumped on every change of a server's tools or state
	cache   atomic.Pointer[surface]

	changeMu sync.Mutex
	changed  chan struct{} // closed by the next bump; nil until asked for

	bgMu   sync.Mutex
	bg     sync.WaitGroup // handshakes, watchers and refreshers
	closed bool           // under bgMu: no goroutine starts after Close
	done   chan struct{}  // closed by Close: supervisors stop waiting
}

// NewPool reads the mcp.json at path (a missing file means no servers). It
// starts nothing; call Start. A malformed file is reported by ConfigError and
// leaves the pool empty.
func NewPool(path string, opts Options) *Pool {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "dev"
	}
	if opts.Trace != nil {
		opts.Trace = &lockedWriter{w: opts.Trace}
	}
	p := &Pool{opts: opts, path: path, servers: map[string]*server{}, done: make(chan struct{})}
	p.apply(p.load())
	return p
}

// load reads the files and adds the host's servers.
func (p *Pool) load() (*Config, error) {
	cfg, err := LoadAll(p.path, p.opts.Project)
	if err == nil {
		mergeClient(cfg, p.opts.Client)
	}
	return cfg, err
}

// Path is the mcp.json this pool reads.
func (p *Pool) Path() string { return p.path }

// ConfigError is the error of the last read of the file, or nil.
func (p *Pool) ConfigError() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cfgErr
}

// apply installs a freshly read config: new servers are added as pending,
// removed ones are returned for stopping. A read error keeps the current
// servers and records the error.
func (p *Pool) apply(cfg *Config, err error) []*server {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cfgErr = err
	if err != nil {
		return nil
	}
	p.cfg = cfg
	var removed []*server
	for name, s := range p.servers {
		if _, ok := cfg.Servers[name]; !ok {
			removed = append(removed, s)
			delete(p.servers, name)
		}
	}
	for name, sc := range cfg.Servers {
		if _, ok := p.servers[name]; !ok {
			p.servers[name] = newServer(sc, cfg.Effective(sc))
		}
	}
	return removed
}

// Start connects the named servers (every server but the lazy ones when
// names is empty) that have not been started yet, concurrently, and returns when none of them is
// still connecting for the first time (settle) — at most the slowest connect timeout later, or when ctx
// ends. A server another Start is connecting is waited for, not started
// twice. Servers already started are left alone; use Reload to restart.
func (p *Pool) Start(ctx context.Context, names ...string) {
	var todo []*server
	for _, s := range p.pick(names) {
		if len(names) == 0 && s.cfg.Lazy() {
			continue // "startup": "lazy" connects on first use: a name given here
		}
		if s.claim() {
			todo = append(todo, s)
		}
	}
	p.connectAll(ctx, todo)
	p.settle(ctx, names)
}

// settle waits until none of the named servers is connecting for the
// first time. A degraded server the supervisor is reconnecting keeps its
// last tools meanwhile (keep), so nothing waits for that attempt.
func (p *Pool) settle(ctx context.Context, names []string) {
	for {
		changed := p.Changed()
		busy := false
		for _, s := range p.pick(names) {
			s.mu.Lock()
			busy = busy || (s.state == StateConnecting && !s.keep)
			s.mu.Unlock()
		}
		if !busy {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// Reload re-reads mcp.json and restarts the named servers (every server when
// names is empty): each is stopped and, when enabled and valid, connected
// again. Servers removed from the file are stopped. A malformed file changes
// nothing and is returned.
func (p *Pool) Reload(ctx context.Context, names ...string) error {
	cfg, err := p.load()
	removed := p.apply(cfg, err)
	if err != nil {
		return err
	}
	p.stopAll(removed)
	p.restart(ctx, p.pick(names))
	if missing := p.unknown(names); len(missing) > 0 {
		return fmt.Errorf("no MCP server named %s in %s", strings.Join(missing, ", "), p.path)
	}
	return nil
}

// restart replaces each server with a fresh one built from the current
// config, stops the old connection and connects the new one.
func (p *Pool) restart(ctx context.Context, targets []*server) {
	var fresh []*server
	p.mu.Lock()
	for _, old := range targets {
		sc, ok := p.cfg.Servers[old.cfg.Name]
		if !ok {
			continue
		}
		s := newServer(sc, p.cfg.Effective(sc))
		if s.claim() {
			fresh = append(fresh, s)
		}
		p.servers[sc.Name] = s
	}
	p.mu.Unlock()
	p.stopAll(targets)
	p.connectAll(ctx, fresh)
}

// pick returns the named servers (all when names is empty), sorted by name.
func (p *Pool) pick(names []string) []*server {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*server
	for name, s := range p.servers {
		if len(names) == 0 || contains(names, name) {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].cfg.Name < out[j].cfg.Name })
	return out
}

func (p *Pool) unknown(names []string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, n := range names {
		if _, ok := p.servers[n]; !ok {
			out = append(out, fmt.Sprintf("'%s'", n))
		}
	}
	return out
}

func (p *Pool) connectAll(ctx context.Context, list []*server) {
	var wg sync.WaitGroup
	for _, s := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.connect(ctx, s)
		}()
	}
	wg.Wait()
}

// Statuses snapshots every configured server, sorted by name.
func (p *Pool) Statuses() []Status {
	list := p.pick(nil)
	out := make([]Status, 0, len(list))
	for _, s := range list {
		out = append(out, s.status())
	}
	return out
}

// Status snapshots one server.
func (p *Pool) Status(name string) (Status, bool) {
	p.mu.Lock()
	s, ok := p.servers[name]
	p.mu.Unlock()
	if !ok {
		return Status{}, false
	}
	return s.status(), true
}

// RequiredFailures is an error naming every "required" server that is not
// connected, or nil. Callers that must not run without them check it after
// Start.
func (p *Pool) RequiredFailures() error {
	var bad []string
	for _, st := range p.Statuses() {
		if st.Required && st.State != StateConnected {
			msg := fmt.Sprintf("'%s' (%s", st.Name, st.State)
			if st.Error != "" {
				msg += ": " + st.Error
			}
			bad = append(bad, msg+")")
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("required MCP server(s) not connected: %s", strings.Join(bad, "; "))
}

// Close stops every server and waits for the pool's goroutines. A handshake
// still running is abandoned and reaped before Close returns.
func (p *Pool) Close() error {
	p.bgMu.Lock()
	already := p.closed
	p.closed = true
	p.bgMu.Unlock()
	if already {
		return nil
	}
	close(p.done)
	p.stopAll(p.pick(nil))
	p.bg.Wait()
	p.stopAll(p.pick(nil)) // a handshake that finished during the wait
	return nil
}

// spawn runs f on a goroutine the pool owns; false (and f not run) once the
// pool is closed.
func (p *Pool) spawn(f func()) bool {
	p.bgMu.Lock()
	defer p.bgMu.Unlock()
	if p.closed {
		return false
	}
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		f()
	}()
	return true
}

func (p *Pool) isClosed() bool {
	p.bgMu.Lock()
	defer p.bgMu.Unlock()
	return p.closed
}

// Tools returns the adapters to register for this turn: one per unambiguous
// model name of a connected server, plus a hidden refusal for each ambiguous
// name. The slice is shared until the next change; do not modify it.
func (p *Pool) Tools() []tools.Tool { return p.surface().tools }

// Changed returns a channel that is closed at the next change of any
// server's state or tools, so a UI can refresh without polling.
func (p *Pool) Changed() <-chan struct{} {
	p.changeMu.Lock()
	defer p.changeMu.Unlock()
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.changed
}

func (p *Pool) bump() {
	p.version.Add(1)
	p.changeMu.Lock()
	defer p.changeMu.Unlock()
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

// lockedWriter serialises trace writes from several servers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

var errClosed = errors.New("the MCP pool is closed")

// Version counts changes of any server's state, tools, resources or
// prompts; a UI rebuilds what it derived when it moves.
func (p *Pool) Version() uint64 { return p.version.Load() }

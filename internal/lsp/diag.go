package lsp

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// Bounds of what a server's diagnostics may take: a file with more than
// maxPerURI is a flood (its count is kept, its items are not), and at most
// maxURIs files are remembered besides the open ones.
const (
	maxPerURI = 1000
	maxURIs   = 2000
)

// published is a server's latest diagnostics of one file.
type published struct {
	seq     uint64 // the store's count of publishes when this one arrived
	version int32  // the document version it describes (0: not said)
	items   []protocol.Diagnostic
	flood   int       // the number sent, when over maxPerURI (items is then nil)
	at      time.Time // when it arrived
}

// A set published without a version cannot be tied to a text, and some
// servers publish a file's problems in parts (typescript-language-server
// sends the syntax check's result, then the type check's): such a set is
// taken once no newer one has come for quietProblems (it lists problems)
// or quietClean (it lists none, which a later part may contradict).
const (
	quietProblems = 100 * time.Millisecond
	quietClean    = 500 * time.Millisecond
)

// diagStore holds what the server published, and wakes waiters on every
// new set.
type diagStore struct {
	mu      sync.Mutex
	seq     uint64
	byURI   map[protocol.DocumentURI]*published
	changed chan struct{}
	// keep reports a URI that is open; those are stored even when the
	// store is full.
	keep func(protocol.DocumentURI) bool
}

func (s *diagStore) init() {
	s.byURI = map[protocol.DocumentURI]*published{}
	s.changed = make(chan struct{})
}

// now is the count of sets received so far.
func (s *diagStore) now() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// publish stores a set for uri and wakes the waiters.
func (s *diagStore) publish(uri protocol.DocumentURI, version int32, items []protocol.Diagnostic) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, known := s.byURI[uri]; !known && len(s.byURI) >= maxURIs && (s.keep == nil || !s.keep(uri)) {
		return
	}
	s.seq++
	p := &published{seq: s.seq, version: version, items: items, at: time.Now()}
	if len(items) > maxPerURI {
		p.items, p.flood = nil, len(items)
	}
	s.byURI[uri] = p
	s.wake()
}

// forget drops what is known of uri (a deleted or closed file).
func (s *diagStore) forget(uri protocol.DocumentURI) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byURI, uri)
}

func (s *diagStore) get(uri protocol.DocumentURI) *published {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byURI[uri]
}

// broadcast wakes every waiter (the server stopped).
func (s *diagStore) broadcast() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wake()
}

func (s *diagStore) wake() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// wait returns the set for uri that describes the text the store's count
// after was taken before: the first one published for version (or later),
// or — published without a version — the last of a run of sets once no
// newer one comes (quietProblems, quietClean). When ctx ends first it
// returns such an unversioned set if there is one; nil when there is none
// or gone is closed first.
func (s *diagStore) wait(ctx context.Context, uri protocol.DocumentURI, after uint64, version int32,
	gone <-chan struct{}) *published {
	for {
		s.mu.Lock()
		p, ch := s.byURI[uri], s.changed
		s.mu.Unlock()
		fits := p != nil && p.seq > after && (p.version == 0 || p.version >= version)
		if fits && p.version != 0 {
			return p
		}
		var settled <-chan time.Time
		var t *time.Timer
		if fits {
			quiet := quietClean
			if len(p.items) > 0 || p.flood > 0 {
				quiet = quietProblems
			}
			t = time.NewTimer(quiet - time.Since(p.at))
			settled = t.C
		}
		done, got := s.await(ch, settled, ctx.Done(), gone, p, fits)
		if t != nil {
			t.Stop()
		}
		if done {
			return got
		}
	}
}

// await is one wait of wait's loop: done with its answer, or not done when
// a newer set came.
func (s *diagStore) await(changed <-chan struct{}, settled <-chan time.Time, ctxDone, gone <-chan struct{},
	p *published, fits bool) (bool, *published) {
	select {
	case <-changed:
		return false, nil
	case <-settled:
		return true, p
	case <-ctxDone:
		if fits {
			return true, p
		}
		return true, nil
	case <-gone:
		return true, nil
	}
}

// pull asks the server for uri's diagnostics (textDocument/diagnostic) and
// stores the answer as if it had been published for version.
func (c *client) pull(ctx context.Context, uri protocol.DocumentURI, version int32) (*published, error) {
	var report struct {
		Kind  string                `json:"kind"`
		Items []protocol.Diagnostic `json:"items"`
	}
	params := protocol.DocumentDiagnosticParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}
	if err := c.call(ctx, "textDocument/diagnostic", params, &report); err != nil {
		return nil, err
	}
	if report.Kind == "unchanged" { // only after a previousResultId, which is never sent
		if p := c.diags.get(uri); p != nil {
			return p, nil
		}
	}
	c.diags.publish(uri, version, report.Items)
	return c.diags.get(uri), nil
}

// onPublish is textDocument/publishDiagnostics.
func (c *client) onPublish(params json.RawMessage) {
	var p struct {
		URI         string                `json:"uri"`
		Version     int32                 `json:"version"`
		Diagnostics []protocol.Diagnostic `json:"diagnostics"`
	}
	if json.Unmarshal(params, &p) != nil || p.URI == "" {
		return
	}
	c.diags.publish(protocol.DocumentURI(p.URI), p.Version, p.Diagnostics)
}

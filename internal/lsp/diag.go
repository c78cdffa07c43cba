package lsp

import (
	"context"
	"encoding/json"
	"sync"

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
	flood   int // the number sent, when over maxPerURI (items is then nil)
}

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
	p := &published{seq: s.seq, version: version, items: items}
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

// wait returns the first set for uri that arrived after the store's count
// after and describes version (or says no version), or nil when ctx ends
// or gone is closed first.
func (s *diagStore) wait(ctx context.Context, uri protocol.DocumentURI, after uint64, version int32,
	gone <-chan struct{}) *published {
	for {
		s.mu.Lock()
		p, ch := s.byURI[uri], s.changed
		s.mu.Unlock()
		if p != nil && p.seq > after && (p.version == 0 || p.version >= version) {
			return p
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil
		case <-gone:
			return nil
		}
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

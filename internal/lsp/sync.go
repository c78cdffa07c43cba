package lsp

import (
	"context"
	"sync"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// maxOpen bounds the documents kept open in one server; the least recently
// used is closed beyond it.
const maxOpen = 100

// document is the server's copy of one file.
type document struct {
	uri     protocol.DocumentURI
	lang    string
	version int32
	text    string
	used    uint64
}

// docSet is a server's open documents. Its lock is held across a sync's
// notifications so each document's versions go out in order.
type docSet struct {
	mu     sync.Mutex
	byURI  map[protocol.DocumentURI]*document
	tick   uint64
	isOpen sync.Map // protocol.DocumentURI → struct{}: the diagnostics store reads it without mu
}

func (s *docSet) init() { s.byURI = map[protocol.DocumentURI]*document{} }

func (s *docSet) open(uri protocol.DocumentURI) bool {
	_, ok := s.isOpen.Load(uri)
	return ok
}

// synced is what a sync did: the version the server now has, the store's
// count just before it was told, and the text it had before (open: the
// document was already open).
type synced struct {
	version int32
	before  uint64
	prior   string
	open    bool
	same    bool // the server already had this text
}

// sync makes the server's copy of uri hold text: didOpen the first time,
// then didChange (whole text) and didSave, as its capabilities ask.
func (c *client) sync(ctx context.Context, uri protocol.DocumentURI, lang, text string) (synced, error) {
	return c.syncAs(ctx, uri, lang, text, false)
}

func (c *client) syncAs(ctx context.Context, uri protocol.DocumentURI, lang, text string, openOnly bool) (synced, error) {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	c.mu.Lock()
	caps := c.caps
	c.mu.Unlock()
	c.docs.tick++
	d := c.docs.byURI[uri]
	if d == nil {
		c.evict(ctx)
		d = &document{uri: uri, lang: lang, version: 1, text: text, used: c.docs.tick}
		s := synced{version: 1, before: c.diags.now()}
		if caps.openClose {
			item := protocol.TextDocumentItem{URI: uri, LanguageID: protocol.LanguageKind(lang), Version: 1, Text: text}
			if err := c.notify(ctx, "textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: item}); err != nil {
				return synced{}, err
			}
		}
		c.docs.byURI[uri] = d
		c.docs.isOpen.Store(uri, struct{}{})
		return s, nil
	}
	d.used = c.docs.tick
	s := synced{version: d.version, before: c.diags.now(), prior: d.text, open: true}
	if d.text == text || openOnly {
		s.same = true
		return s, nil
	}
	d.version++
	d.text = text
	s.version = d.version
	if caps.change != protocol.None {
		change := protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{Version: d.version, TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{{Value: protocol.TextDocumentContentChangeWholeDocument{Text: text}}},
		}
		if err := c.notify(ctx, "textDocument/didChange", change); err != nil {
			return synced{}, err
		}
	}
	if caps.save {
		save := protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}
		if caps.saveText {
			save.Text = &text
		}
		if err := c.notify(ctx, "textDocument/didSave", save); err != nil {
			return synced{}, err
		}
	}
	return s, nil
}

// close tells the server a document is gone (a deleted file). docs.mu is
// not held.
func (c *client) close(ctx context.Context, uri protocol.DocumentURI) {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	c.closeLocked(ctx, uri)
}

func (c *client) closeLocked(ctx context.Context, uri protocol.DocumentURI) {
	if _, ok := c.docs.byURI[uri]; !ok {
		return
	}
	delete(c.docs.byURI, uri)
	c.docs.isOpen.Delete(uri)
	c.diags.forget(uri)
	c.mu.Lock()
	openClose := c.caps.openClose
	c.mu.Unlock()
	if openClose {
		_ = c.notify(ctx, "textDocument/didClose",
			protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}})
	}
}

// evict closes the least recently used document when maxOpen are open.
// docs.mu is held.
func (c *client) evict(ctx context.Context) {
	if len(c.docs.byURI) < maxOpen {
		return
	}
	var oldest *document
	for _, d := range c.docs.byURI {
		if oldest == nil || d.used < oldest.used {
			oldest = d
		}
	}
	c.closeLocked(ctx, oldest.uri)
}

// text is the server's copy of uri, if open.
func (c *client) text(uri protocol.DocumentURI) (string, bool) {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	if d, ok := c.docs.byURI[uri]; ok {
		return d.text, true
	}
	return "", false
}

// openCount is the number of open documents.
func (c *client) openCount() int {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	return len(c.docs.byURI)
}

// openOnce opens uri with text unless the server already has it: a read's
// late sync must never take back an edit's.
func (c *client) openOnce(ctx context.Context, uri protocol.DocumentURI, lang, text string) error {
	_, err := c.syncAs(ctx, uri, lang, text, true)
	return err
}

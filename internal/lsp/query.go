package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"

	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// ErrNoServer is a file no configured server takes.
var ErrNoServer = errors.New("no language server takes this file")

// Unsupported is a question the file's server said at initialize it does
// not answer.
type Unsupported struct{ Server, What string }

func (e *Unsupported) Error() string {
	return fmt.Sprintf("%s does not offer %s (its initialize answer leaves it out)", e.Server, e.What)
}

// Target is the file a question is about: its absolute path and its text
// as the caller read it (through its boundary), and a 1-based line and
// character column where the question needs a position.
type Target struct {
	Path      string
	Text      []byte
	Line, Col int
}

// Location is a place a server pointed at: absolute path, 1-based line and
// character column (Col counts characters when the file could be read to
// count them, else the server's units plus one).
type Location struct {
	Path            string
	Line, Col       int
	EndLine, EndCol int
}

// session is a ready server with the target file synced to it.
type session struct {
	c    *client
	uri  protocol.DocumentURI
	text string
	enc  encoding
	name string
	sync synced
}

// open routes t to its server, waits (within ctx) for it to be ready and
// syncs t's text, so the answer is about what the caller read.
func (m *Manager) open(ctx context.Context, t Target) (*session, error) {
	r, lang, ok := m.route(t.Path)
	if !ok {
		return nil, ErrNoServer
	}
	if len(t.Text) > maxSyncBytes {
		return nil, fmt.Errorf("the file is %d bytes; files over %d are not sent to a language server", len(t.Text), maxSyncBytes)
	}
	c, err := m.client(r, m.root(r.srv, t.Path))
	if err != nil {
		return nil, err
	}
	select {
	case <-c.ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("%s is still starting; try again shortly", r.srv.Name)
	}
	if state, why := c.status(); state != StateReady {
		return nil, fmt.Errorf("%s %s: %s", r.srv.Name, state, why)
	}
	s := &session{c: c, uri: protocol.URIFromPath(t.Path), text: string(t.Text), name: r.srv.Name}
	if s.sync, err = c.sync(ctx, s.uri, lang, s.text); err != nil {
		return nil, fmt.Errorf("%s: %s", r.srv.Name, m.failure(c, err))
	}
	c.mu.Lock()
	s.enc = c.caps.encoding
	c.mu.Unlock()
	return s, nil
}

func (s *session) caps() capabilities {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return s.c.caps
}

// position is t's 1-based line and column in the server's terms.
func (s *session) position(t Target) protocol.Position {
	line := max(t.Line, 1) - 1
	return protocol.Position{Line: uint32(line), Character: s.enc.offset(lineAt(s.text, line), max(t.Col, 1))}
}

func (s *session) at(t Target) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.uri}, Position: s.position(t)}
}

// Server names the server that answers for path ("" when none does).
func (m *Manager) Server(path string) string {
	if r, _, ok := m.route(path); ok {
		return r.srv.Name
	}
	return ""
}

// Missing says which configured server would take path but cannot start
// ("" when none would): "gopls (gopls not found on PATH)".
func (m *Manager) Missing(path string) string {
	if !m.Enabled() {
		return ""
	}
	for i := range m.opts.Servers {
		s := &m.opts.Servers[i]
		if _, ok := s.handles(path); ok {
			if r := m.resolve(s); r.err != nil {
				return fmt.Sprintf("%s (%v)", s.Name, r.err)
			}
		}
	}
	return ""
}

// Diagnostics is every problem (errors and warnings) the server reports
// for t's text now, waiting at most Wait for it.
func (m *Manager) Diagnostics(ctx context.Context, t Target) ([]Diagnostic, error) {
	s, err := m.open(ctx, t)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, m.opts.Wait)
	defer cancel()
	p := s.c.diags.get(s.uri)
	if p == nil || !s.sync.same || s.caps().pull {
		p = m.await(wctx, s.c, s.uri, s.sync)
	}
	if p == nil {
		return nil, fmt.Errorf("%s: %s", s.name, m.failure(s.c, wctx.Err()))
	}
	if p.flood > 0 {
		return nil, fmt.Errorf("%s sent %d diagnostics for the file, over the %d a file may have", s.name, p.flood, maxPerURI)
	}
	items := append([]protocol.Diagnostic(nil), p.items...)
	sortDiagnostics(items)
	var out []Diagnostic
	for _, d := range items {
		if severityName(d.Severity) == "error" || severityName(d.Severity) == "warning" {
			out = append(out, convert(d, m.display(t.Path), s.text, s.enc))
		}
	}
	return out, nil
}

// Definition is where the symbol at t is defined.
func (m *Manager) Definition(ctx context.Context, t Target) ([]Location, error) {
	s, err := m.open(ctx, t)
	if err != nil {
		return nil, err
	}
	if !s.caps().definition {
		return nil, &Unsupported{s.name, "definition"}
	}
	var raw json.RawMessage
	if err := s.c.call(ctx, "textDocument/definition", protocol.DefinitionParams{TextDocumentPositionParams: s.at(t)}, &raw); err != nil {
		return nil, err
	}
	return m.locations(s, decodeLocations(raw)), nil
}

// References are the uses of the symbol at t (and its declaration, with
// decl).
func (m *Manager) References(ctx context.Context, t Target, decl bool) ([]Location, error) {
	s, err := m.open(ctx, t)
	if err != nil {
		return nil, err
	}
	if !s.caps().references {
		return nil, &Unsupported{s.name, "references"}
	}
	var raw json.RawMessage
	params := protocol.ReferenceParams{TextDocumentPositionParams: s.at(t), Context: protocol.ReferenceContext{IncludeDeclaration: decl}}
	if err := s.c.call(ctx, "textDocument/references", params, &raw); err != nil {
		return nil, err
	}
	return m.locations(s, decodeLocations(raw)), nil
}

// Hover is the server's description of the symbol at t ("" when it has
// none).
func (m *Manager) Hover(ctx context.Context, t Target) (string, error) {
	s, err := m.open(ctx, t)
	if err != nil {
		return "", err
	}
	if !s.caps().hover {
		return "", &Unsupported{s.name, "hover"}
	}
	var res struct {
		Contents json.RawMessage `json:"contents"`
	}
	if err := s.c.call(ctx, "textDocument/hover", protocol.HoverParams{TextDocumentPositionParams: s.at(t)}, &res); err != nil {
		return "", err
	}
	return strings.TrimSpace(markedText(res.Contents)), nil
}

// markedText is hover contents as text: a MarkupContent, a MarkedString
// (string or {language, value}) or a list of them.
func markedText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var v struct {
		Value string `json:"value"`
	}
	if json.Unmarshal(raw, &v) == nil && v.Value != "" {
		return v.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return ""
	}
	parts := make([]string, 0, len(list))
	for _, item := range list {
		if t := markedText(item); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// wireLocation is a Location or LocationLink as sent, its URI kept as a
// string (one the protocol package cannot parse must not void the list).
type wireLocation struct {
	URI       string          `json:"uri"`
	Range     *protocol.Range `json:"range"`
	TargetURI string          `json:"targetUri"`
	Target    *protocol.Range `json:"targetSelectionRange"`
}

// decodeLocations reads null, a Location, or a list of Locations or
// LocationLinks.
func decodeLocations(raw json.RawMessage) []wireLocation {
	var list []wireLocation
	if json.Unmarshal(raw, &list) != nil {
		var one wireLocation
		if json.Unmarshal(raw, &one) != nil {
			return nil
		}
		list = []wireLocation{one}
	}
	out := list[:0]
	for _, l := range list {
		if l.TargetURI != "" && l.Target != nil {
			l.URI, l.Range = l.TargetURI, l.Target
		}
		if l.URI != "" && l.Range != nil {
			out = append(out, l)
		}
	}
	return out
}

// locations converts server locations; files outside file: URIs are left
// out.
func (m *Manager) locations(s *session, ls []wireLocation) []Location {
	texts := map[string]string{}
	var out []Location
	for _, l := range ls {
		path, err := protocol.DocumentURI(l.URI).Path()
		if err != nil || path == "" {
			continue
		}
		text, ok := texts[path]
		if !ok {
			text = m.lineSource(s, path)
			texts[path] = text
		}
		out = append(out, Location{Path: path, Line: int(l.Range.Start.Line) + 1, Col: s.column(text, l.Range.Start),
			EndLine: int(l.Range.End.Line) + 1, EndCol: s.column(text, l.Range.End)})
	}
	return out
}

// column is p's 1-based character column, counted on text ("" unknown:
// the server's units plus one).
func (s *session) column(text string, p protocol.Position) int {
	if text == "" {
		return int(p.Character) + 1
	}
	return s.enc.column(lineAt(text, int(p.Line)), p.Character)
}

// lineSource is the text columns in path are counted on: the server's copy
// when open, else the file as it is on disk when it lies in the workspace
// and is not a secret (it is read to count characters, never shown).
func (m *Manager) lineSource(s *session, path string) string {
	if text, ok := s.c.text(protocol.URIFromPath(path)); ok {
		return text
	}
	if m.opts.Workspace == "" || !within(path, m.opts.Workspace) {
		return ""
	}
	if _, secret := secrets.IsSecretPath(path); secret {
		return ""
	}
	data, fi, err := confine.ReadFile([]string{m.opts.Workspace}, path, maxSyncBytes+1)
	if err != nil || fi.Size() > maxSyncBytes {
		return ""
	}
	return string(data)
}

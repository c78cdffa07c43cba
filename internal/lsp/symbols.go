package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// Symbol is a named thing a server found: its kind ("function", "struct"
// …), what contains it, and where.
type Symbol struct {
	Name, Kind, Container string
	Location
}

var symbolKinds = []string{"", "file", "module", "namespace", "package", "class", "method", "property", "field",
	"constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array",
	"object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

func kindName(k protocol.SymbolKind) string {
	if int(k) < len(symbolKinds) && k > 0 {
		return symbolKinds[k]
	}
	return "symbol"
}

// wireSymbol is a DocumentSymbol, a SymbolInformation or a WorkspaceSymbol
// as sent.
type wireSymbol struct {
	Name           string              `json:"name"`
	Kind           protocol.SymbolKind `json:"kind"`
	Container      string              `json:"containerName"`
	Range          *protocol.Range     `json:"range"`
	SelectionRange *protocol.Range     `json:"selectionRange"`
	Children       []wireSymbol        `json:"children"`
	Location       *struct {
		URI   string          `json:"uri"`
		Range *protocol.Range `json:"range"`
	} `json:"location"`
}

// Symbols lists t's file's symbols, or with query the workspace's symbols
// matching it (asked of the server of t's file).
func (m *Manager) Symbols(ctx context.Context, t Target, query string) ([]Symbol, error) {
	s, err := m.open(ctx, t)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if query != "" {
		if !s.caps().workspaceSymbols {
			return nil, &Unsupported{s.name, "workspace symbols"}
		}
		err = s.c.call(ctx, "workspace/symbol", protocol.WorkspaceSymbolParams{Query: query}, &raw)
	} else {
		if !s.caps().docSymbols {
			return nil, &Unsupported{s.name, "document symbols"}
		}
		err = s.c.call(ctx, "textDocument/documentSymbol",
			protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.uri}}, &raw)
	}
	if err != nil {
		return nil, err
	}
	var list []wireSymbol
	if json.Unmarshal(raw, &list) != nil {
		return nil, fmt.Errorf("%s answered symbols with something that is not a list", s.name)
	}
	return m.symbols(s, t.Path, list, ""), nil
}

// symbols flattens list (hierarchical document symbols get their parent
// as container) into locations.
func (m *Manager) symbols(s *session, path string, list []wireSymbol, parent string) []Symbol {
	var out []Symbol
	for _, w := range list {
		container := w.Container
		if container == "" {
			container = parent
		}
		loc := wireLocation{URI: string(protocol.URIFromPath(path)), Range: w.SelectionRange}
		if loc.Range == nil {
			loc.Range = w.Range
		}
		if w.Location != nil {
			loc = wireLocation{URI: w.Location.URI, Range: w.Location.Range}
			if loc.Range == nil { // a WorkspaceSymbol that only names its file
				loc.Range = &protocol.Range{}
			}
		}
		if ls := m.locations(s, []wireLocation{loc}); len(ls) == 1 {
			out = append(out, Symbol{Name: w.Name, Kind: kindName(w.Kind), Container: container, Location: ls[0]})
		}
		name := w.Name
		if parent != "" {
			name = parent + "." + w.Name
		}
		out = append(out, m.symbols(s, path, w.Children, name)...)
	}
	return out
}

// FileEdit is what a rename would do to one file: text edits (Edits, in
// the server's positions: apply them with Rename.Apply), or a file created,
// renamed (NewPath) or deleted.
type FileEdit struct {
	Path, NewPath string
	Kind          string // edit, create, rename, delete
	Edits         []protocol.TextEdit
}

// Rename is a rename's proposed edit; nothing is applied.
type Rename struct {
	Files []FileEdit
	enc   encoding
}

// RenamePreview is the edit the server proposes for renaming the symbol at
// t to name. It is never applied.
func (m *Manager) RenamePreview(ctx context.Context, t Target, name string) (Rename, error) {
	s, err := m.open(ctx, t)
	if err != nil {
		return Rename{}, err
	}
	if !s.caps().rename {
		return Rename{}, &Unsupported{s.name, "rename"}
	}
	var we struct {
		Changes         map[string][]protocol.TextEdit `json:"changes"`
		DocumentChanges []json.RawMessage              `json:"documentChanges"`
	}
	params := protocol.RenameParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.uri}, Position: s.position(t), NewName: name}
	if err := s.c.call(ctx, "textDocument/rename", params, &we); err != nil {
		return Rename{}, err
	}
	r := Rename{enc: s.enc}
	for uri, edits := range we.Changes {
		if p, err := protocol.DocumentURI(uri).Path(); err == nil {
			r.Files = append(r.Files, FileEdit{Path: p, Kind: "edit", Edits: edits})
		}
	}
	sort.Slice(r.Files, func(i, j int) bool { return r.Files[i].Path < r.Files[j].Path })
	for _, raw := range we.DocumentChanges {
		if f, ok := documentChange(raw); ok {
			r.Files = append(r.Files, f)
		}
	}
	return r, nil
}

// documentChange reads one entry of documentChanges: a TextDocumentEdit,
// or a create, rename or delete.
func documentChange(raw json.RawMessage) (FileEdit, bool) {
	var d struct {
		Kind         string `json:"kind"`
		URI          string `json:"uri"`
		OldURI       string `json:"oldUri"`
		NewURI       string `json:"newUri"`
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Edits []protocol.TextEdit `json:"edits"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return FileEdit{}, false
	}
	path := func(u string) string { p, _ := protocol.DocumentURI(u).Path(); return p }
	switch d.Kind {
	case "":
		return FileEdit{Path: path(d.TextDocument.URI), Kind: "edit", Edits: d.Edits}, d.TextDocument.URI != ""
	case "create", "delete":
		return FileEdit{Path: path(d.URI), Kind: d.Kind}, d.URI != ""
	case "rename":
		return FileEdit{Path: path(d.OldURI), NewPath: path(d.NewURI), Kind: "rename"}, d.OldURI != ""
	}
	return FileEdit{}, false
}

// Apply is text with f's edits applied (the caller read text through its
// own boundary). Overlapping edits are refused.
func (r Rename) Apply(f FileEdit, text string) (string, error) {
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, 0, len(f.Edits))
	for _, e := range f.Edits {
		start, end := r.byteOffset(text, e.Range.Start), r.byteOffset(text, e.Range.End)
		if end < start {
			return "", fmt.Errorf("an edit of %s ends before it starts", f.Path)
		}
		spans = append(spans, span{start, end, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.start < at {
			return "", fmt.Errorf("the edits of %s overlap", f.Path)
		}
		b.WriteString(text[at:s.start])
		b.WriteString(s.text)
		at = s.end
	}
	b.WriteString(text[at:])
	return b.String(), nil
}

// byteOffset is p's offset in text (clamped to the text).
func (r Rename) byteOffset(text string, p protocol.Position) int {
	off := 0
	for n := p.Line; n > 0; n-- {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	line := lineAt(text[off:], 0)
	col := r.enc.column(line, p.Character) // 1-based characters
	for ; col > 1 && line != ""; col-- {
		_, size := utf8.DecodeRuneInString(line)
		off += size
		line = line[size:]
	}
	return off
}

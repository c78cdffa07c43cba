package lsp

import (
	"bytes"
	"encoding/json"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// clientCapabilities is what codewhale advertises, and no more: document
// sync with save, versioned pushed diagnostics and pulled ones, hover,
// definition (links), references, symbols, rename (the edit is shown,
// never applied: no workspace.applyEdit), configuration and folders
// requests answered, positions in UTF-8 or UTF-16.
func clientCapabilities() protocol.ClientCapabilities {
	var c protocol.ClientCapabilities
	td := &c.TextDocument
	td.Synchronization = &protocol.TextDocumentSyncClientCapabilities{DidSave: true}
	td.Hover = &protocol.HoverClientCapabilities{ContentFormat: []protocol.MarkupKind{"plaintext", "markdown"}}
	td.Definition = &protocol.DefinitionClientCapabilities{LinkSupport: true}
	td.References = &protocol.ReferenceClientCapabilities{}
	td.DocumentSymbol.HierarchicalDocumentSymbolSupport = true
	td.Rename = &protocol.RenameClientCapabilities{}
	td.PublishDiagnostics.VersionSupport = true
	td.Diagnostic = &protocol.DiagnosticClientCapabilities{}
	c.Workspace.Symbol = &protocol.WorkspaceSymbolClientCapabilities{}
	c.Workspace.Configuration = true
	c.Workspace.WorkspaceFolders = true
	c.General = &protocol.GeneralClientCapabilities{PositionEncodings: []protocol.PositionEncodingKind{"utf-8", "utf-16"}}
	return c
}

// capabilities is what a server's initialize result says it does. It is
// read leniently (each provider is "present and not false"): the protocol
// package's strict unions would refuse a whole result over one option a
// server adds.
type capabilities struct {
	encoding                                  encoding
	openClose                                 bool
	change                                    protocol.TextDocumentSyncKind
	save, saveText                            bool
	hover, definition, references, docSymbols bool
	workspaceSymbols, rename, pull            bool
	name                                      string
}

type initializeResult struct {
	Capabilities struct {
		PositionEncoding        string          `json:"positionEncoding"`
		TextDocumentSync        json.RawMessage `json:"textDocumentSync"`
		HoverProvider           json.RawMessage `json:"hoverProvider"`
		DefinitionProvider      json.RawMessage `json:"definitionProvider"`
		ReferencesProvider      json.RawMessage `json:"referencesProvider"`
		DocumentSymbolProvider  json.RawMessage `json:"documentSymbolProvider"`
		WorkspaceSymbolProvider json.RawMessage `json:"workspaceSymbolProvider"`
		RenameProvider          json.RawMessage `json:"renameProvider"`
		DiagnosticProvider      json.RawMessage `json:"diagnosticProvider"`
	} `json:"capabilities"`
	ServerInfo *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	OffsetEncoding string `json:"offsetEncoding"`
}

func offered(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("false")) && !bytes.Equal(raw, []byte("null"))
}

func (r *initializeResult) capabilities() capabilities {
	rc := r.Capabilities
	c := capabilities{encoding: parseEncoding(rc.PositionEncoding, r.OffsetEncoding),
		hover: offered(rc.HoverProvider), definition: offered(rc.DefinitionProvider),
		references: offered(rc.ReferencesProvider), docSymbols: offered(rc.DocumentSymbolProvider),
		workspaceSymbols: offered(rc.WorkspaceSymbolProvider), rename: offered(rc.RenameProvider),
		pull: offered(rc.DiagnosticProvider)}
	if r.ServerInfo != nil {
		c.name = r.ServerInfo.Name
	}
	c.readSync(rc.TextDocumentSync)
	return c
}

// readSync reads textDocumentSync: a kind, or the options object. Absent,
// the protocol's default is no sync at all; servers that omit it still
// expect open and close, which every client sends, so those are kept.
func (c *capabilities) readSync(raw json.RawMessage) {
	c.openClose, c.change = true, protocol.Full
	var kind protocol.TextDocumentSyncKind
	if json.Unmarshal(raw, &kind) == nil && len(bytes.TrimSpace(raw)) > 0 {
		c.openClose, c.change = kind != protocol.None, kind
		return
	}
	var o struct {
		OpenClose *bool                          `json:"openClose"`
		Change    *protocol.TextDocumentSyncKind `json:"change"`
		Save      json.RawMessage                `json:"save"`
	}
	if json.Unmarshal(raw, &o) != nil {
		return
	}
	if o.OpenClose != nil {
		c.openClose = *o.OpenClose
	}
	if o.Change != nil {
		c.change = *o.Change
	}
	c.save = offered(o.Save)
	var so struct {
		IncludeText bool `json:"includeText"`
	}
	if json.Unmarshal(o.Save, &so) == nil {
		c.saveText = so.IncludeText
	}
}

package lsptool

import (
	"github.com/codewhale/codewhale/internal/tools"
)

// input is the lsp tool's parameter contract (ARCHITECTURE.md §6,
// CONTRACT.md §6.13).
type input struct {
	Action             string `json:"action" jsonschema:"What to ask the file's language server: diagnostics, definition, references, hover, symbols or rename_preview."`
	Path               string `json:"path" jsonschema:"The source file, relative to the workspace (or absolute inside it)."`
	Line               int    `json:"line,omitempty" jsonschema:"definition, references, hover, rename_preview: the 1-based line of the symbol."`
	Column             int    `json:"column,omitempty" jsonschema:"The 1-based column (in characters) of the symbol on that line. Give column or symbol."`
	Symbol             string `json:"symbol,omitempty" jsonschema:"The symbol's name as written on that line, instead of column: its first occurrence there is used."`
	Query              string `json:"query,omitempty" jsonschema:"symbols: search the whole workspace for symbols matching this text, instead of listing the file's own."`
	NewName            string `json:"new_name,omitempty" jsonschema:"rename_preview: the new name. The edit is shown as a diff and never applied."`
	IncludeDeclaration bool   `json:"include_declaration,omitempty" jsonschema:"references: list the declaration too. Default true."`
	MaxResults         int    `json:"max_results,omitempty" jsonschema:"references, symbols, definition, diagnostics: at most this many results. Default 50."`
}

// Actions are the lsp tool's actions, in the order the contract lists them.
var Actions = []string{"diagnostics", "definition", "references", "hover", "symbols", "rename_preview"}

var positioned = []string{"path", "line", "column", "symbol"}

var lspActions = &tools.Actions{
	Field:     "action",
	KeepField: true,
	Rules: []tools.Rule{
		{Action: "diagnostics", Allowed: []string{"path", "max_results"}, Required: []string{"path"}},
		{Action: "definition", Allowed: append(positioned, "max_results"), Required: []string{"path", "line"}},
		{Action: "references", Allowed: append(positioned, "include_declaration", "max_results"), Required: []string{"path", "line"}},
		{Action: "hover", Allowed: positioned, Required: []string{"path", "line"}},
		{Action: "symbols", Allowed: []string{"path", "query", "max_results"}, Required: []string{"path"}},
		{Action: "rename_preview", Allowed: append(positioned, "new_name"), Required: []string{"path", "line", "new_name"}},
	},
}

// Bounds of CONTRACT.md §6.13.
const (
	defaultMaxResults = 50
	maxMaxResults     = 200
)

var params = tools.NewParams[input](Name, tools.ParamOptions[input]{Actions: lspActions, Closed: true,
	Bounds: map[string]tools.Bound{"line": {Min: 1}, "column": {Min: 1}, "max_results": {Min: 1, Max: maxMaxResults}},
	Check:  checkInput})

// checkInput refuses a position given both as column and as symbol. One
// given as neither is refused when the call runs (positionOf), where the
// line it names is read.
func checkInput(d *tools.Decoded[input]) error {
	if d.Has("column") && d.Has("symbol") {
		return tools.InvalidInput("lsp %s takes column or symbol, not both; nothing was asked", d.Action)
	}
	return nil
}

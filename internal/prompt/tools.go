package prompt

import (
	"strings"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/catalog"
)

// Bounds of the deferred-tools list: it names every built-in deferred tool
// with the first sentence of its own description, and MCP tools by name
// only (their descriptions are the servers' words, not ours).
const (
	maxDeferred = 24
	maxSummary  = 110 // runes
	maxMCPNames = 16
)

// Tool is one catalog entry as the prompt sees it.
type Tool struct {
	Name     string
	Summary  string // the description's first sentence, bounded; "" for MCP tools
	Deferred bool
	MCP      bool
}

// ToolsOf is the catalog's entries as the prompt sees them, in catalog
// order. Whether an entry is deferred is the catalog's policy, not its
// state this step, so loading a tool never changes the prompt.
func ToolsOf(cat *catalog.Catalog) []Tool {
	if cat == nil {
		return nil
	}
	var out []Tool
	for _, e := range cat.Entries() {
		t := Tool{Name: e.Tool.Name, Deferred: e.Deferred(), MCP: e.Origin == catalog.OriginMCP}
		if !t.MCP {
			t.Summary = summary(e.Tool.Description)
		}
		out = append(out, t)
	}
	return out
}

// summary is the first sentence of a description, cut at maxSummary runes
// on a word boundary.
func summary(desc string) string {
	s := strings.Join(strings.Fields(desc), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if utf8.RuneCountInString(s) <= maxSummary {
		return s
	}
	r := []rune(s)[:maxSummary]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > maxSummary/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

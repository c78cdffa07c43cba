package catalog

import "github.com/codewhale/codewhale/internal/provider"

// The catalog budget bounds what one request carries, whatever the
// posture. Full Access makes MCP tools eager (CONTRACT.md §4.7), but a server
// with thousands of tools would then put hundreds of kilobytes into every
// request (5,000 tools made 716 KB): beyond MaxEagerMCP tools or
// MaxEagerMCPBytes of their definitions, MCP tools stay deferred, and
// tool_search finds and loads them like any deferred tool. MaxActive caps
// the tools field as a whole, loaded tools included. Read helpers and
// always_load names are eager regardless: the user asked for them.
const (
	MaxEagerMCP      = 64
	MaxEagerMCPBytes = 64 << 10
	MaxActive        = 128
)

// eagerBudget admits Full Access MCP tools in catalog order until the
// budget is spent.
type eagerBudget struct {
	n, bytes int
	held     int
}

func (b *eagerBudget) admit(t *provider.Tool) bool {
	size := len(t.Name) + len(t.Description) + len(t.CanonicalSchema())
	if b.held > 0 || b.n >= MaxEagerMCP || b.bytes+size > MaxEagerMCPBytes {
		b.held++
		return false
	}
	b.n++
	b.bytes += size
	return true
}

// HeldByBudget is the number of MCP tools Full Access would have sent from
// the first step that the budget keeps deferred.
func (c *Catalog) HeldByBudget() int { return c.held }

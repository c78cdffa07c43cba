package catalog_test

import (
	"testing"

	"github.com/codewhale/codewhale/internal/catalog"
)

// README.md "MCP servers": in Full Access MCP tools are sent from the first
// step up to a catalog budget of 64 tools and 64 KiB of definitions, and no
// request carries more than 128 tools (TestCatalogBudgetHoldsInFullAccess
// holds the catalog to these numbers).
func TestREADMEMCPCatalogBudgetNumbers(t *testing.T) {
	t.Parallel()
	if catalog.MaxEagerMCP != 64 || catalog.MaxEagerMCPBytes != 64<<10 || catalog.MaxActive != 128 {
		t.Errorf("eager MCP budget %d tools, %d bytes; at most %d tools a request", catalog.MaxEagerMCP,
			catalog.MaxEagerMCPBytes, catalog.MaxActive)
	}
}

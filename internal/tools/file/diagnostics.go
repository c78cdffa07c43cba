package file

import (
	"context"

	"github.com/codewhale/codewhale/internal/tools"
)

// Diagnostics is what File tells the session's language servers
// (internal/lsp, wired by internal/toolset): each file it reads, so a
// server starts and knows the problems a file had before it is edited, and
// each file a write, edit or patch changed, whose new problems are added
// to the result (CONTRACT.md §6.13). Neither may fail the call.
type Diagnostics interface {
	// Read is told a file's whole text; it returns at once and must not
	// keep text.
	Read(abs string, text []byte)
	// Changed returns the text to add to the result ("" for nothing),
	// within the servers' wait.
	Changed(ctx context.Context, changes []FileChange) string
}

// FileChange is one changed file: Before is nil for a file that did not
// exist.
type FileChange struct {
	Path          string
	Before, After []byte
	Deleted       bool
}

// noted is res with what the language servers say of changes added after a
// blank line.
func (t *Tool) noted(ctx context.Context, res tools.Result, changes ...FileChange) tools.Result {
	if t.diag == nil || len(changes) == 0 {
		return res
	}
	if text := t.diag.Changed(ctx, changes); text != "" {
		res.Content += "\n\n" + text
	}
	return res
}

// patchChanges are the files a committed patch changed.
func (p *plan) patchChanges() []FileChange {
	var out []FileChange
	for _, pd := range p.changed() {
		c := FileChange{Path: pd.abs, Deleted: pd.after == nil}
		if pd.before.fi != nil {
			c.Before = pd.before.data
		}
		if pd.after != nil {
			c.After = []byte(*pd.after)
		}
		out = append(out, c)
	}
	return out
}

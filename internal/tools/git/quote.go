package git

import "github.com/codewhale/codewhale/internal/gitquote"

// quoteName renders a path the way git's C-style quoting does
// (gitquote.Name).
func quoteName(name string, full, quoteSpace bool) string {
	return gitquote.Name(name, full, quoteSpace)
}

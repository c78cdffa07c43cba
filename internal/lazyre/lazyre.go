// Package lazyre compiles package-level regular expressions on first use
// instead of in package init, so start-up (`codewhale --version`) does not
// pay for patterns a run never touches.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr once, on first call, and
// panics on a bad pattern like regexp.MustCompile.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

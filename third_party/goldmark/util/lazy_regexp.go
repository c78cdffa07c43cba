package util

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on its first use instead of at package
// initialisation (codewhale patch, see PATCHES.md).
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

package git

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/ignore"
)

// .gitattributes patterns are matched by the one gitignore(5) glob matcher.
func wildmatch(pattern, path string) bool    { return ignore.MatchPath(pattern, path) }
func matchSegment(pattern, name string) bool { return ignore.MatchName(pattern, name) }

func expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// bareSkip finds a Skip whose reason says a tool or file is missing: that
// must be e2e.Missing, which fails under CODEWHALE_REQUIRE_E2E=1 in CI
// instead of hiding the test.
var bareSkip = regexp.MustCompile(`\.Skipf?\("[^"]*(?i:not installed|install|missing|not found|no such|requires?)`)

func TestNoBareSkipForAMissingTool(t *testing.T) {
	t.Parallel()
	n := 0
	for _, p := range packages(t) {
		if p.DepOnly || !strings.HasPrefix(p.ImportPath, module+"/") {
			continue
		}
		for _, name := range append(append([]string(nil), p.TestGoFiles...), p.XTestGoFiles...) {
			src, err := os.ReadFile(filepath.Join(p.Dir, name))
			if err != nil {
				t.Fatal(err)
			}
			n++
			for i, line := range strings.Split(string(src), "\n") {
				if bareSkip.MatchString(line) {
					t.Errorf("%s:%d: a missing tool must call e2e.Missing, not Skip: %s", name, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d test files read", n)
	}
}

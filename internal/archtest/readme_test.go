package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// readmeEnv is a CODEWHALE_ or DEEPSEEK_ variable README.md names in a code
// span, with an optional `=value`.
var readmeEnv = regexp.MustCompile("`((?:CODEWHALE|DEEPSEEK)_[A-Z0-9_]+)")

// Every environment variable of codewhale's own that the README names is
// read by the code: its name is a string literal of a production file. A
// variable renamed or dropped in the code fails here until the README
// follows. (Flags, config keys, slash commands and keys have their own
// README checks, next to what they check: cmd/codewhale, internal/config,
// internal/tui.)
func TestREADMEEnvironmentVariablesAreRead(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	corpus := codeStrings(t)
	seen := map[string]bool{}
	for _, m := range readmeEnv.FindAllStringSubmatch(string(raw), -1) {
		name := m[1]
		if seen[name] {
			continue
		}
		seen[name] = true
		if !regexp.MustCompile(`(^|[^A-Z0-9_])` + name + `([^A-Z0-9_]|$)`).MatchString(corpus) {
			t.Errorf("README.md names the environment variable %s, which no production code reads", name)
		}
	}
	if len(seen) < 15 {
		t.Fatalf("found only %d variables in README.md; the pattern is stale", len(seen))
	}
}

package config

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeTOML is every ```toml block of README.md that is a config.toml
// (not permissions.toml's [[rules]]), with its line number.
func readmeTOML(t *testing.T) map[int]string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[int]string{}
	lines := strings.Split(string(raw), "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```toml" {
			continue
		}
		start := i + 1
		var b strings.Builder
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			b.WriteString(lines[i] + "\n")
		}
		if !strings.Contains(b.String(), "[[rules]]") {
			blocks[start+1] = b.String()
		}
	}
	return blocks
}

var commentedKey = regexp.MustCompile(`(?m)^#\s*([a-z_]+)\s*=`)

// The README's configuration examples are config files the loader accepts:
// every key they set is a real key of the table it is in, with a value of
// its type; a key they only show commented out is a known key too. A key
// renamed in the code fails here until the README follows.
// README.md "Configuration": every key the example sets is a real config.toml key with a valid value
// README.md "Providers: OpenRouter, local models, your gateway": the Ollama and gateway examples are valid config.toml.
func TestREADMEConfigExamplesAreValid(t *testing.T) {
	t.Parallel()
	blocks := readmeTOML(t)
	if len(blocks) < 6 {
		t.Fatalf("found %d config blocks in README.md; the parser is stale", len(blocks))
	}
	var known []string
	for _, keys := range knownKeys() {
		known = append(known, keys...)
	}
	for line, body := range blocks {
		if _, err := ParseFile("README.md", []byte(body)); err != nil {
			t.Errorf("README.md line %d: the example is not a valid config.toml: %v", line, err)
		}
		for _, m := range commentedKey.FindAllStringSubmatch(body, -1) {
			if !slices.Contains(known, m[1]) {
				t.Errorf("README.md line %d shows the key %q commented out, which config.toml does not have", line, m[1])
			}
		}
	}
}

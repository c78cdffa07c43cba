package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// envReaders are the packages that may read an environment variable
// themselves, each with its reason. Everything else takes values from
// config (which snapshots the environment once, config.ProcessEnv) or a
// getenv handed down. os.Environ for a child's environment is not a read
// and is allowed everywhere.
var envReaders = map[string]string{
	"internal/config":              "the one reader: snapshots the environment and resolves every setting",
	"internal/ignore":              "git's own variables (XDG_CONFIG_HOME, GIT_CONFIG_*), as git reads them",
	"internal/gitsafe":             "git's own GIT_CONFIG_COUNT, as git reads it",
	"internal/binpath":             "PATH, as the exec.LookPath it stands in for reads it",
	"internal/tools/git":           "git's own XDG_CONFIG_HOME for attributes, as git reads it",
	"internal/jobs":                "$SHELL picks the child shell when none is configured",
	"internal/mcp":                 "a server's config names the variables its env and bearer token come from",
	"internal/secrets":             "CODEWHALE_HOME for the secret-path predicate; to be handed down",
	"internal/tui":                 "defaults when the host passes no getenv (tests); cmd passes config.Env",
	"internal/tui/theme":           "Detect's default when the host passes no getenv; cmd passes config.Env",
	"internal/toolset":             "the command classifier's home expansion; to be handed down from config",
	"internal/tools/tasks":         "DefaultDir's default when no getenv is passed; app passes config.Env",
	"internal/testutil/e2e":        "CODEWHALE_REQUIRE_E2E is the test harness's switch",
	"internal/testutil/plantedbin": "PATH, to put a planted workspace directory in front of it (tests only)",
}

var envRead = regexp.MustCompile(`\bos\.(Getenv|LookupEnv)\b`)

func TestEnvironmentIsReadByConfig(t *testing.T) {
	t.Parallel()
	for _, p := range packages(t) {
		if p.DepOnly || !strings.HasPrefix(p.ImportPath, module+"/") {
			continue
		}
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		if _, ok := envReaders[rel]; ok {
			continue
		}
		for _, name := range append(append([]string(nil), p.GoFiles...), p.IgnoredGoFiles...) {
			src, err := os.ReadFile(filepath.Join(p.Dir, name))
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(src), "\n") {
				if envRead.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
					t.Errorf("%s/%s:%d reads the environment; take the value from config (Config.Env or a field) instead: %s",
						rel, name, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}

package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// childEnvBuilders are the one way a child's environment is made
// (CONTRACT.md §12.7): secrets.Environ/EnvironFrom for codewhale's own
// helpers, a sandbox's Environ for commands and hooks, gitsafe for git,
// and MCP's allow-list for a stdio server the person configured.
var childEnvBuilders = regexp.MustCompile(`\bsecrets\.Environ(From)?\(|\.Environ\(|\bgitsafe\.(Command|Env)\(|\bchildEnv\(`)

// ownEnv are the packages that start a process without one of those, each
// with its reason.
var ownEnv = map[string]string{
	"internal/sandbox":      "codewhale's own helper (spawner, probes); the commands it runs get sandbox.Environ",
	"internal/jobs":         "the watchdog is codewhale itself; commands get sandbox.Environ (process.go)",
	"internal/tui/handoff":  "the person's own $EDITOR and tmux, started at their keypress",
	"internal/tools/rlm":    "a fixed minimal environment (kernelEnv): no variable of the agent's reaches the kernel",
	"internal/testutil/e2e": "tests only",
}

var startsProcess = regexp.MustCompile(`\bexec\.Command(Context)?\(`)

// Every package that starts a child builds its environment with the one
// scrub Bash's commands get, so no child inherits the agent's API key.
func TestChildrenGetTheScrubbedEnvironment(t *testing.T) {
	t.Parallel()
	for _, p := range packages(t) {
		if p.DepOnly || !strings.HasPrefix(p.ImportPath, module+"/") {
			continue
		}
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		if _, ok := ownEnv[rel]; ok || strings.HasPrefix(rel, "internal/testutil/") {
			continue
		}
		starts, builds := "", false
		for _, name := range append(append([]string(nil), p.GoFiles...), p.IgnoredGoFiles...) {
			src, err := os.ReadFile(filepath.Join(p.Dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if startsProcess.Match(src) && starts == "" {
				starts = name
			}
			builds = builds || childEnvBuilders.Match(src)
		}
		if starts != "" && !builds {
			t.Errorf("%s/%s starts a process without the scrubbed environment: set cmd.Env = secrets.Environ() "+
				"(or use gitsafe for git)", rel, starts)
		}
	}
}

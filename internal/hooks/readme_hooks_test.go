package hooks

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/testutil/readme"
)

// README.md "Hooks": the section's example is a config.toml whose hooks compile; the events its comment lists are
// exactly the events a hook may name, in order; and its no-force-push hook blocks `git push --force` with its stderr
// as the reason, while a plain `git push` and a call of another tool go on.
func TestREADMEHooksExample(t *testing.T) {
	t.Parallel()
	section := readme.Section(t, "Hooks")
	_, block, ok2 := strings.Cut(section, "```toml\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok2 || !ok3 {
		t.Fatal("README.md's Hooks section has no toml example")
	}
	f, err := config.ParseFile("README.md", []byte(block))
	if err != nil {
		t.Fatalf("the example is not a valid config.toml: %v", err)
	}
	if len(f.Hooks) != 2 {
		t.Fatalf("the example has %d hooks, want 2", len(f.Hooks))
	}
	m := regexp.MustCompile(`event = "tool_call_before"\s*#([^\n]*)\n\s*#([^\n]*)\n`).FindStringSubmatch(block)
	if m == nil {
		t.Fatal("the example no longer lists the events in its comment")
	}
	var listed []string
	for _, e := range strings.Split(m[1]+"|"+m[2], "|") {
		if e = strings.TrimSpace(e); e != "" {
			listed = append(listed, e)
		}
	}
	if !slices.Equal(listed, Events) {
		t.Errorf("the README lists the events %q, hooks has %q", listed, Events)
	}
	r, _ := runner(t, f.Hooks[0])
	v := r.Run(context.Background(), engine.HookToolBefore, bashCall("git push origin main --force"))
	if !v.Block || v.Reason != "force-push is for humans" {
		t.Errorf("git push --force: verdict %+v", v)
	}
	for _, call := range []engine.HookCall{bashCall("git push origin main"), {Tool: "File", Input: []byte(`{"action":"read","path":"x"}`)}} {
		if v := r.Run(context.Background(), engine.HookToolBefore, call); v.Block || v.Ask {
			t.Errorf("%s %s: verdict %+v", call.Tool, call.Input, v)
		}
	}
}

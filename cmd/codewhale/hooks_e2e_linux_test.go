package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// The one-shot exec runs its hooks as an agent run does: under the
// session's sandbox (a write outside the workspace fails, one inside
// succeeds) and with the commands' environment (a credential-shaped
// variable only when [shell] env_passthrough names it).
// CONTRACT.md §17.4: a hook runs under the session's sandbox with the commands' environment; the one-shot exec
// runs message_submit hooks too.
func TestOneShotHooksRunUnderTheSandbox(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("ok"))
	c, canary := sandboxedCLI(t, srv)
	c.env = append(c.env, "MY_SERVICE_TOKEN=tok-passed-through", "OTHER_API_KEY=sk-should-not-leak")
	c.config("[shell]\nenv_passthrough = [\"MY_SERVICE_TOKEN\"]\n\n" +
		"[[hooks]]\nname = \"escape\"\nevent = \"message_submit\"\ncommand = \"touch " + filepath.Join(canary, "escaped") + "\"\n\n" +
		"[[hooks]]\nname = \"inside\"\nevent = \"message_submit\"\ncommand = \"env > hook-env.txt\"\n")
	out, errOut, code := c.run("exec", "hello")
	if code != 0 || out != "ok\n" {
		t.Fatalf("code %d out %q stderr %s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(canary, "escaped")); err == nil {
		t.Error("a one-shot hook wrote outside the workspace")
	}
	if !strings.Contains(errOut, "hooks: Hook escape (message_submit, "+filepath.Join(c.home, ".codewhale", "config.toml")+") failed (exit 1)") {
		t.Errorf("the refused write was not reported: %s", errOut)
	}
	data, err := os.ReadFile(filepath.Join(c.ws, "hook-env.txt"))
	if err != nil {
		t.Fatalf("a one-shot hook could not write in the workspace: %v", err)
	}
	env := "\n" + string(data)
	if strings.Contains(env, "sk-should-not-leak") || !strings.Contains(env, "\nMY_SERVICE_TOKEN=tok-passed-through\n") {
		t.Errorf("the hook's environment:\n%s", data)
	}
}

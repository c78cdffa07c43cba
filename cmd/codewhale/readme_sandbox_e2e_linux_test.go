package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// README.md "Sandbox": a Bash command the sandbox refuses makes exec print `sandbox: refused <path> (<reason>)` on
// stderr, and its result metadata carries sandbox_denied {path, reason}, sandboxed and sandbox_type (landlock or
// bwrap where the sandbox is enforced).
func TestREADMESandboxRefusalIsReported(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	c, canary := sandboxedCLI(t, srv)
	target := filepath.Join(canary, "new.txt")
	args, _ := json.Marshal(map[string]string{"command": `echo pwned > "` + target + `"`})
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		if r.HasToolResult("[sandbox]") {
			return fakemodel.Text("done")
		}
		return fakemodel.Tools(fakemodel.Call{ID: "w1", Name: "Bash", Args: string(args)})
	})
	_, errOut, code := c.run("exec", "--auto", "write outside")
	if code != 0 {
		t.Fatalf("code %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "sandbox: refused "+target+" (") {
		t.Errorf("exec's stderr does not say what the sandbox refused:\n%s", errOut)
	}
	out, errOut, code := c.run("exec", "--auto", "--output-format", "stream-json", "write outside")
	if code != 0 {
		t.Fatalf("code %d\n%s", code, errOut)
	}
	var meta map[string]any
	for _, ev := range lines(t, out) {
		if ev["type"] == "tool_result" {
			meta, _ = ev["result_metadata"].(map[string]any)
		}
	}
	denied, _ := meta["sandbox_denied"].(map[string]any)
	if denied["path"] != target || denied["reason"] == "" || denied["reason"] == nil {
		t.Errorf("sandbox_denied %v", meta["sandbox_denied"])
	}
	if typ := meta["sandbox_type"]; meta["sandboxed"] != true || (typ != "landlock" && typ != "bwrap") {
		t.Errorf("sandboxed %v, sandbox_type %v", meta["sandboxed"], typ)
	}
}

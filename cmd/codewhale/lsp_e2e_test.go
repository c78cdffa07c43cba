package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// The whole path with a real gopls: a File edit that breaks the build gets
// gopls's error in its result, the edit that fixes it gets none, and a
// Bash command that breaks it again is reported to the model as a runtime
// notice.
// CONTRACT.md §6.13: in the real binary with gopls, File edits and a Bash call's changes reach the model as new
// diagnostics, the latter as the exact runtime notice.
func TestFileEditsGetGoplsDiagnostics(t *testing.T) {
	t.Parallel()
	gopls := e2e.LSPServer(t, "gopls")
	if _, err := exec.LookPath("go"); err != nil {
		e2e.Missing(t, "go is not on PATH (gopls runs it)")
	}
	const good = "package main\n\nfunc double(n int) int { return 2 * n }\n\nfunc main() { _ = double(1) }\n"
	edit := func(id, from, to string) fakemodel.Reply {
		args, _ := json.Marshal(map[string]string{"action": "edit", "path": "main.go", "search": from, "replace": to})
		return fakemodel.Tools(fakemodel.Call{ID: id, Name: "File", Args: string(args)})
	}
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "r", Name: "File", Args: `{"action":"read","path":"main.go"}`}),
		edit("break", "return 2 * n", `return "two"`),
		edit("fix", `return "two"`, "return 2 * n"),
		fakemodel.Tools(fakemodel.Call{ID: "sh", Name: "Bash", Args: `{"command":"sed -i 's/_ = double(1)/_ = double(true)/' main.go"}`}),
		fakemodel.Text("Broken again."),
		fakemodel.Text("Done."))
	c := newCLI(t, srv)
	for name, body := range map[string]string{"main.go": good, "go.mod": "module example.com/m\n\ngo 1.22\n"} {
		if err := os.WriteFile(filepath.Join(c.ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.config("[lsp]\npoll_after_edit_ms = 30000\n[lsp.servers.gopls]\ncommand = \"" + gopls + "\"\n")
	if out, err := exec.Command("git", "-C", c.ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	out, errOut, code := c.run("exec", "--auto", "--output-format", "stream-json", "break it and fix it")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) < 6 {
		t.Fatalf("%d requests; stderr:\n%s", len(reqs), errOut)
	}
	broke := `main.go:3:33 error compiler: cannot use "two" (untyped string constant) as int value in return statement`
	if !reqs[2].HasToolResult("LSP (gopls): 1 new error in main.go after this change:\n" + broke) {
		t.Errorf("the breaking edit's result lacks gopls's error:\n%v", reqs[2].Messages()[len(reqs[2].Messages())-1])
	}
	if last := reqs[3].Messages()[len(reqs[3].Messages())-1]; strings.Contains(last["content"].(string), "LSP") {
		t.Errorf("the fixing edit's result still reports a problem:\n%v", last)
	}
	notice := "Files a command changed were checked by their language servers:\nLSP (gopls): 1 new error in main.go"
	if !strings.Contains(lastText(reqs[5]), notice) {
		t.Errorf("after the Bash call the model was not told; last message of request 6:\n%s", lastText(reqs[5]))
	}
}

// lastText is the content of r's last message.
func lastText(r *fakemodel.Request) string {
	ms := r.Messages()
	s, _ := ms[len(ms)-1]["content"].(string)
	return s
}

// A File patch can plant a gopls (or a go, which gopls runs) in a workspace
// directory on PATH, and the next read of a Go file starts the language
// server without asking anyone. Under every posture the real gopls starts,
// past the workspace's PATH entries, and it runs the real go: its PATH is
// narrowed the same way.
// CONTRACT.md §12.8: programs are found past PATH's relative entries and those inside the workspace (binpath).
func TestPlantedLanguageServerOnPathNeverRuns(t *testing.T) {
	t.Parallel()
	gopls := e2e.LSPServer(t, "gopls")
	if _, err := exec.LookPath("go"); err != nil {
		e2e.Missing(t, "go is not on PATH (gopls runs it)")
	}
	for _, posture := range []struct{ name, policy, flag string }{
		{"ask", "suggest", "--auto"}, {"auto-review", "auto", ""}, {"full-access", "bypass", ""},
	} {
		t.Run(posture.name, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t)
			c := newCLI(t, srv)
			c.config("approval_policy = \"" + posture.policy + "\"\n[lsp]\npoll_after_edit_ms = 30000\n")
			venv := filepath.Join(c.ws, ".venv", "bin")
			sep := string(os.PathListSeparator)
			c.env = replaceEnv(c.env, "PATH", venv+sep+filepath.Dir(gopls)+sep+os.Getenv("PATH"))
			var patch strings.Builder
			for _, name := range []string{"gopls", "go"} {
				fmt.Fprintf(&patch, "diff --git a/.venv/bin/%[1]s b/.venv/bin/%[1]s\nnew file mode 100755\n--- /dev/null\n"+
					"+++ b/.venv/bin/%[1]s\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+touch %[2]s\n", name, filepath.Join(c.ws, "PWNED-"+name))
			}
			for name, body := range map[string]string{"main.go": "package main\n\nfunc main() {}\n", "go.mod": "module example.com/m\n\ngo 1.22\n"} {
				if err := os.WriteFile(filepath.Join(c.ws, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			patchArgs, _ := json.Marshal(map[string]string{"action": "patch", "patch": patch.String()})
			srv.Push(fakemodel.Tools(fakemodel.Call{ID: "plant", Name: "File", Args: string(patchArgs)}),
				fakemodel.Tools(fakemodel.Call{ID: "read", Name: "File", Args: `{"action":"read","path":"main.go"}`}),
				fakemodel.Tools(fakemodel.Call{ID: "edit", Name: "File",
					Args: `{"action":"edit","path":"main.go","search":"func main() {}","replace":"func main() { var x int = \"s\" }"}`}),
				fakemodel.Text("done"))
			args := []string{"exec", "--max-turns", "6"}
			if posture.flag != "" {
				args = append(args, posture.flag)
			}
			out, errOut, code := c.run(append(args, "look around")...)
			reqs := srv.Requests()
			if len(reqs) < 4 {
				t.Fatalf("exit %d, %d requests: %s\n%s", code, len(reqs), out, errOut)
			}
			for _, name := range []string{"gopls", "go"} {
				if fi, err := os.Stat(filepath.Join(venv, name)); err != nil || fi.Mode()&0o111 == 0 {
					t.Fatalf("the patch did not plant %s, so the test shows nothing: %q", name, toolResults(reqs[1])["plant"])
				}
				if _, err := os.Stat(filepath.Join(c.ws, "PWNED-"+name)); err == nil {
					t.Errorf("the %s planted on PATH ran", name)
				}
			}
			if res := toolResults(reqs[3])["edit"]; !strings.Contains(res, "LSP (gopls): ") || !strings.Contains(res, "error compiler: ") {
				t.Errorf("the real gopls did not check the edit:\n%s", res)
			}
		})
	}
}

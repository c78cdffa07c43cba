package file

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/tools"
)

const fakeKey = "sk-test0123456789abcdef0123456789ab"

// secretEnv is a workspace that holds a custom CODEWHALE_HOME (as a user
// with CODEWHALE_HOME=<ws>/cw-home has), a copied ~/.ssh, a .env and a .pem,
// each holding the key; the policy is built for that home.
func secretEnv(t *testing.T) *env {
	t.Helper()
	ws := tools.Canonical(t.TempDir())
	pol := secrets.New(secrets.Options{UserHome: filepath.Join(ws, "no-such-home"), Home: filepath.Join(ws, "cw-home")})
	e := newEnv(t, Options{Writable: true, Patch: true, Secrets: pol, Workspace: ws})
	e.ws, e.tc.Workspace = ws, ws
	e.put("cw-home/config.toml", "api_key = \""+fakeKey+"\"\n")
	e.put("cw-home/secrets/deepseek.key", fakeKey+"\n")
	e.put("fake-home/.ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n"+fakeKey+"\n")
	e.put("fake-home/.ssh/config", "Host x\n  IdentityFile "+fakeKey+"\n")
	e.put(".env", "DEEPSEEK_API_KEY="+fakeKey+"\n")
	e.put("certs/server.pem", fakeKey+"\n")
	e.put(".env.example", "DEEPSEEK_API_KEY=\n")
	e.put("src/main.go", "package main // no secret here\n")
	return e
}

func TestCredentialGuardCoversEveryAction(t *testing.T) {
	t.Parallel()
	e := secretEnv(t)
	targets := []string{"cw-home/config.toml", "cw-home/secrets/deepseek.key", "fake-home/.ssh/id_rsa",
		"fake-home/.ssh/config", ".env", "certs/server.pem"}
	for _, p := range targets {
		for _, in := range []map[string]any{
			{"action": "read", "path": p},
			{"action": "list", "path": filepath.Dir(p)},
			{"action": "search_name", "query": "x", "path": p},
			{"action": "search_content", "pattern": "sk-", "path": p},
			{"action": "write", "path": p, "content": "overwritten"},
			{"action": "edit", "path": p, "search": "sk-", "replace": "x"},
			{"action": "patch", "path": p, "patch": "@@ -1 +1 @@\n-a\n+b\n"},
			{"action": "patch", "replace": []map[string]any{{"path": p, "content": "x"}}},
		} {
			if in["action"] == "list" && (filepath.Dir(p) == "." || filepath.Dir(p) == "certs") {
				continue // listing the workspace or certs/ is fine: names are not secrets
			}
			res, err := e.call(js(in))
			if err == nil {
				t.Errorf("%s: not refused: %s", js(in), res.Content)
				continue
			}
			if te := tools.AsError(err); te.Kind != tools.KindPermissionDenied {
				t.Errorf("%s: refused as %v, want permission denied: %s", js(in), te.Kind, errText(err))
			}
			if strings.Contains(errText(err), fakeKey) {
				t.Errorf("%s: the refusal shows the key", js(in))
			}
		}
	}
	// The exact contract text for CodeWhale's own files.
	mustContain(t, e.callErr(`{"action":"read","path":"cw-home/config.toml"}`), credentialRefusal)
	mustContain(t, e.callErr(`{"action":"read","path":".env"}`), "File `read` cannot expose credential files: ",
		"is a dotenv file (.env)")
	for _, p := range targets {
		if got := e.get(p); strings.Contains(got, "overwritten") {
			t.Errorf("%s was written", p)
		}
	}
}

func TestCredentialGuardInWalks(t *testing.T) {
	t.Parallel()
	e := secretEnv(t)
	for _, in := range []string{
		`{"action":"search_content","pattern":"sk-test"}`,
		`{"action":"search_content","pattern":"sk-test","path":"fake-home"}`,
		`{"action":"search_content","pattern":"API_KEY"}`,
	} {
		got := e.callOK(in).Content
		if strings.Contains(got, fakeKey) || strings.Contains(got, "cw-home") || strings.Contains(got, ".ssh") {
			t.Errorf("%s showed a secret: %s", in, got)
		}
	}
	// .env.example is a template, not a secret: it is searched.
	mustContain(t, e.callOK(`{"action":"search_content","pattern":"API_KEY"}`).Content, ".env.example")
	// Names stay visible, contents and secret directories do not.
	list := e.callOK(`{"action":"list","depth":5}`).Content
	mustContain(t, list, `".env"`, `"certs/server.pem"`, `"cw-home"`, `"fake-home/.ssh"`)
	for _, hidden := range []string{"cw-home/config.toml", "deepseek.key", "id_rsa"} {
		if strings.Contains(list, hidden) {
			t.Errorf("list entered a secret directory: %s in %s", hidden, list)
		}
	}
	names := e.callOK(`{"action":"search_name","query":"deepseek"}`).Content
	if strings.Contains(names, "deepseek.key") {
		t.Errorf("search_name entered the CodeWhale home: %s", names)
	}
}

func TestProtectedWritesNeedExplicitApproval(t *testing.T) {
	t.Parallel()
	e := secretEnv(t)
	if err := os.MkdirAll(e.path(".git/hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git/hooks", e.path("hooks")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		in   map[string]any
		want tools.Approval
		path string
	}{
		{map[string]any{"action": "write", "path": ".git/config", "content": "x"}, tools.Explicit, ".git/config"},
		{map[string]any{"action": "write", "path": "hooks/pre-commit", "content": "x"}, tools.Explicit, "hooks/pre-commit"},
		{map[string]any{"action": "edit", "path": ".codewhale/config.toml", "search": "a", "replace": "b"}, tools.Explicit, ".codewhale"},
		{map[string]any{"action": "patch", "patch": "--- a/ok.txt\n+++ b/ok.txt\n@@ -1 +1 @@\n-a\n+b\n" +
			"--- a/.git/hooks/post-checkout\n+++ b/.git/hooks/post-checkout\n@@ -1 +1 @@\n-a\n+b\n"}, tools.Explicit, "post-checkout"},
		{map[string]any{"action": "patch", "replace": []map[string]any{{"path": ".git/HEAD", "content": "x"}}}, tools.Explicit, ".git/HEAD"},
		{map[string]any{"action": "write", "path": "src/main.go", "content": "x"}, tools.Suggest, ""},
		{map[string]any{"action": "write", "path": ".gitignore", "content": "x"}, tools.Suggest, ""},
		{map[string]any{"action": "read", "path": ".git/config"}, tools.Auto, ""},
	}
	for _, c := range cases {
		in := json.RawMessage(js(c.in))
		pol := policyOf(t, e.tool, in)
		if got := pol.Approval; got != c.want {
			t.Errorf("%s: approval %v, want %v", in, got, c.want)
		}
		why := pol.Reason
		if c.path != "" && (!strings.Contains(why, c.path) || !strings.Contains(why, "writes ")) {
			t.Errorf("%s: reason %q does not name %s and why", in, why, c.path)
		}
	}
	alias := NewApplyPatchOver(e.tool)
	if got := policyOf(t, alias, json.RawMessage(`{"patch":"--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n"}`)).Approval; got != tools.Explicit {
		t.Errorf("apply_patch onto .git/config: %v, want Explicit", got)
	}
	// A protected write runs once granted an explicit approval (the engine
	// asked the person, or Full Access allowed it), and only then.
	mustContain(t, e.callErr(`{"action":"write","path":".git/info/exclude","content":"*.log\n"}`),
		"was not approved as a protected write")
	e.tc.Approval = tools.Explicit
	e.callOK(`{"action":"write","path":".git/info/exclude","content":"*.log\n"}`)
	if got := e.get(".git/info/exclude"); got != "*.log\n" {
		t.Errorf("approved protected write: %q", got)
	}
}

// TestProtectedPathAppearingAfterApproval: the call was judged ordinary,
// then the tree changed so the same path now leads into .git; the write is
// refused instead of landing without the approval it needs.
func TestProtectedPathAppearingAfterApproval(t *testing.T) {
	t.Parallel()
	e := secretEnv(t)
	e.put("tools/readme.txt", "x")
	in := `{"action":"write","path":"tools/pre-commit","content":"#!/bin/sh\ntouch /tmp/pwned\n"}`
	if got := policyOf(t, e.tool, json.RawMessage(in)).Approval; got != tools.Suggest {
		t.Fatalf("approval %v before the swap", got)
	}
	if err := os.MkdirAll(e.path(".git/hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(e.path("tools")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git/hooks", e.path("tools")); err != nil {
		t.Fatal(err)
	}
	// The engine granted what the call's policy said before the swap.
	e.tc.Approval = tools.Suggest
	mustContain(t, e.callErr(in), "now resolves to", "nothing was written")
	if _, err := os.Stat(e.path(".git/hooks/pre-commit")); err == nil {
		t.Error("the hook was written")
	}
}

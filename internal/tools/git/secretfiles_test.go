package git

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
	"github.com/codewhale/codewhale/internal/tools"
)

// A committed secret file (.env, a key) is as secret in the history as on
// disk: File refuses to read it and Bash's `git show HEAD:.env` needs a
// person's approval, so the Git tool, which runs without asking, never
// prints its content — not as a blob, in a diff or patch, or in blame.
// README.md "Modes and permissions": the Git tool never shows a committed secret file (show REV:.env, blame .env refused; a diff keeps the header, leaves out the content).
func TestGitNeverShowsASecretFilesContent(t *testing.T) {
	t.Parallel()
	r := gitfixture.New(t)
	r.Write(".env", "API_TOKEN=committed-canary\n")
	r.Write("deploy/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\nkey-canary\n")
	r.Write("notes.txt", "plain\n")
	r.Commit("secrets committed by mistake")
	r.Write(".env", "API_TOKEN=committed-canary\nNEW_TOKEN=worktree-canary\n")
	r.Write("notes.txt", "plain\nmore\n")
	tc := &tools.Context{Workspace: r.Dir}
	for _, in := range []string{
		`{"action":"show","rev":"HEAD:.env"}`,
		`{"action":"show","rev":"HEAD:deploy/id_rsa"}`,
		`{"action":"show","rev":"HEAD"}`,
		`{"action":"diff"}`,
		`{"action":"diff","path":".env"}`,
		`{"action":"blame","path":".env"}`,
	} {
		res, err := New().Execute(context.Background(), tc, json.RawMessage(in))
		text := res.Content
		if err != nil {
			text = err.Error()
		}
		for _, canary := range []string{"committed-canary", "worktree-canary", "key-canary"} {
			if strings.Contains(text, canary) {
				t.Errorf("%s shows the secret %s:\n%s", in, canary, text)
			}
		}
		if in == `{"action":"diff"}` && !strings.Contains(text, "+more") {
			t.Errorf("%s lost the other file's change:\n%s", in, text)
		}
	}
}

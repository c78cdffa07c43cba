package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// A tool output that carries the configured key (or a credential-shaped
// string) reaches neither the provider nor the session file: the engine
// redacts every tool result before it enters history (issue 11 §7).
func TestToolOutputSecretsAreRedactedEndToEnd(t *testing.T) {
	t.Parallel()
	const key = "cwkey-e2e-7f3a9c2b51d04e86a1b2c3d4"
	const pat = "ghp_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210"
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "r", Name: "File", Args: `{"action":"read","path":"notes.txt"}`},
			fakemodel.Call{ID: "b", Name: "Bash", Args: `{"command":"printenv DEEPSEEK_API_KEY; cat notes.txt"}`},
			fakemodel.Call{ID: "s", Name: "File", Args: `{"action":"search_content","pattern":"token"}`}),
		fakemodel.Text("done"))
	c := newCLI(t, srv)
	c.env = append(c.env, "DEEPSEEK_API_KEY="+key)
	if err := os.WriteFile(filepath.Join(c.ws, "notes.txt"), []byte("token: "+key+"\ngh token: "+pat+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("exec", "--auto", "look at the notes")
	if code != 0 || out != "done\n" {
		t.Fatalf("code %d out %q err %q", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := string(reqs[1].Raw)
	if !strings.Contains(body, "[REDACTED:api-key]") || !strings.Contains(body, "[REDACTED:github-token]") {
		t.Errorf("the tool results did not reach the model redacted:\n%s", toolMessages(reqs[1]))
	}
	for i, r := range reqs {
		if strings.Contains(string(r.Raw), key) || strings.Contains(string(r.Raw), pat) {
			t.Errorf("request %d body carries a secret", i+1)
		}
	}
	found := 0
	err := filepath.WalkDir(filepath.Join(c.home, ".codewhale"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".jsonl") {
			found++
		}
		if strings.Contains(string(b), key) || strings.Contains(string(b), pat) {
			t.Errorf("%s carries a secret", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Error("no session file was written: the check proves nothing")
	}
}

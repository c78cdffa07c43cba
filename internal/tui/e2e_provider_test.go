package tui_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// CONTRACT.md §14.7: in the real binary, /provider sends the next turn to
// the other provider's server with its model; the header says which, and
// the first provider's server hears nothing more.
func TestProviderSwitchInTheTUI(t *testing.T) {
	t.Parallel()
	deepseek := fakemodel.New(t, fakemodel.Text("from deepseek"))
	ollama := fakemodel.New(t, fakemodel.Text("from ollama"))
	ollama.ServeModels("qwen3:8b")
	home := t.TempDir()
	cfg := "[providers.deepseek]\nbase_url = \"" + deepseek.URL + "/v1\"\n" +
		"[providers.ollama]\nbase_url = \"" + ollama.URL + "/v1\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	p := launchTUI(t, nil, launch{home: home, ws: t.TempDir()})
	p.line("first")
	p.waitFor("from deepseek", "✓ done")
	p.line("/provider ollama")
	p.waitFor("Provider set to ollama")
	p.line("second")
	p.waitFor("from ollama", "qwen3:8b")
	if n := len(deepseek.Requests()); n != 1 {
		t.Errorf("DeepSeek's server got %d requests, want 1", n)
	}
	reqs := ollama.Requests()
	if len(reqs) != 1 || reqs[0].Body["model"] != "qwen3:8b" {
		t.Errorf("ollama's server got %d requests (%v)", len(reqs), reqs)
	}
}

package secrets

import (
	"slices"
	"strings"
	"testing"
)

func TestIsSecretEnvName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"DEEPSEEK_API_KEY": true, "OPENAI_API_KEY": true, "GITHUB_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true,
		"CLIENT_SECRET": true, "DB_PASSWORD": true, "PGPASSWORD": true, "CODEWHALE_HOME": true, "deepseek_base_url": true,
		"HOME": false, "PATH": false, "TOKENIZER_PATH": false, "GOPATH": false, "SSH_AUTH_SOCK": false, "TERM": false,
	} {
		if got := IsSecretEnvName(name); got != want {
			t.Errorf("IsSecretEnvName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestScrubEnv(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=/bin", "HOME=/h", "DEEPSEEK_API_KEY=sk-1", "OPENAI_API_KEY=sk-2", "GITHUB_TOKEN=t",
		"gh_token=t", "AWS_SECRET_ACCESS_KEY=s", "MY_SECRET=s", "CODEWHALE_HOME=/c", "DEEPSEEK_BASE_URL=u",
		"DB_PASSWORD=p", "GIT_TERMINAL_PROMPT=0", "TOKENIZER=x", "SECRETARY=x", "TERM=xterm"}
	got := ScrubEnv(env, []string{"GITHUB_TOKEN", " deepseek_base_url "})
	want := []string{"PATH=/bin", "HOME=/h", "GITHUB_TOKEN=t", "DEEPSEEK_BASE_URL=u", "GIT_TERMINAL_PROMPT=0",
		"TOKENIZER=x", "SECRETARY=x", "TERM=xterm"}
	if !slices.Equal(got, want) {
		t.Fatalf("ScrubEnv\n got %q\nwant %q", got, want)
	}
}

// Environ is the process environment scrubbed with the installed Policy's
// passthrough: what codewhale's own helpers get.
func TestEnvironKeepsOnlyThePassthrough(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", "sk-canary")
	t.Setenv("GH_TOKEN", "gh-canary")
	t.Setenv("SOME_PLAIN", "plain")
	defer Configure(Default())
	Configure(New(Options{EnvPassthrough: []string{"GH_TOKEN"}}))
	got := strings.Join(Environ("EXTRA=1"), "\n")
	if strings.Contains(got, "sk-canary") || !strings.Contains(got, "GH_TOKEN=gh-canary") ||
		!strings.Contains(got, "SOME_PLAIN=plain") || !strings.HasSuffix(got, "EXTRA=1") {
		t.Fatalf("Environ: %s", got)
	}
}

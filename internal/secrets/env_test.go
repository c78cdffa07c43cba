package secrets

import "testing"

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

package secrets

import (
	"path/filepath"
	"testing"
)

// README.md "Modes and permissions": every path the Secrets paragraph names is a secret (the committed .env
// templates and *.pub are not), and every variable-name shape the Sandbox section's Environment paragraph names is
// kept from commands.
func TestREADMESecretPathsAndNames(t *testing.T) {
	t.Parallel()
	p, home, cw := fixture(t)
	for path, want := range map[string]bool{
		cw: true, filepath.Join(cw, "config.toml"): true, filepath.Join(cw, "secrets", "k"): true,
		filepath.Join(home, ".deepseek", "x"): true, filepath.Join(home, ".ssh", "id_rsa"): true,
		filepath.Join(home, ".aws", "config"): true, filepath.Join(home, ".gnupg", "x"): true,
		filepath.Join(home, ".config", "gh", "hosts.yml"): true, filepath.Join(home, ".kube", "config"): true,
		filepath.Join(home, ".docker", "config.json"): true, filepath.Join(home, ".netrc"): true,
		"/etc/shadow": true, "/etc/gshadow": true,
		"/ws/a/.ssh/x": true, "/ws/a/.aws/x": true, "/ws/a/.gnupg/x": true,
		"/ws/.env": true, "/ws/.env.local": true, "/ws/prod.env": true,
		"/ws/.env.example": false, "/ws/.env.sample": false, "/ws/.env.template": false, "/ws/.env.dist": false,
		"/ws/.env.defaults": false,
		"/ws/a.pem":         true, "/ws/a.key": true, "/ws/a.p12": true, "/ws/a.pfx": true,
		"/ws/id_rsa": true, "/ws/id_ed25519": true, "/ws/id_ed25519.pub": false, "/ws/id_rsa.pub": false,
		"/ws/.git-credentials": true, "/ws/.pgpass": true,
	} {
		if _, got := p.IsSecretPath(path); got != want {
			t.Errorf("IsSecretPath(%q) = %v, want %v", path, got, want)
		}
	}
	for name, want := range map[string]bool{
		"X_API_KEY": true, "X_APIKEY": true, "X_TOKEN": true, "X_SECRET": true, "X_PASSWORD": true, "X_PASSWD": true,
		"A_SECRET_B": true, "PGPASSWORD": true, "DEEPSEEK_BASE_URL": true, "CODEWHALE_ANYTHING": true,
		"TOKEN_PATH": false, "PASSWD_FILE": false, "HOME": false,
	} {
		if got := IsSecretEnvName(name); got != want {
			t.Errorf("IsSecretEnvName(%q) = %v, want %v", name, got, want)
		}
	}
}

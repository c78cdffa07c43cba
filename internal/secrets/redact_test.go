package secrets

import (
	"strings"
	"testing"
)

const testKey = "cwk-live-9f8e7d6c5b4a39281706"

func keyPolicy() *Policy {
	return New(Options{UserHome: "/nonexistent-home", Home: "/nonexistent-cw", Keys: func() []string { return []string{testKey, "short"} }})
}

func TestRedact(t *testing.T) {
	t.Parallel()
	p := keyPolicy()
	pem := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"
	cases := []struct{ name, in, want string }{
		{"configured key", "DEEPSEEK_API_KEY=" + testKey + "\n", "DEEPSEEK_API_KEY=[REDACTED:api-key]\n"},
		{"configured key twice", testKey + " " + testKey, "[REDACTED:api-key] [REDACTED:api-key]"},
		{"short configured key is not a key", "a short word", "a short word"},
		{"sk key", `api_key = "sk-3b1f6c0e9a8d47e2b5c4f1a0d9e8c7b6"`, `api_key = "[REDACTED:api-key]"`},
		{"sk project key", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12", "[REDACTED:api-key]"},
		{"sk-like identifier", "class sk-this-is-a-very-long-css-name here", "class sk-this-is-a-very-long-css-name here"},
		{"inside a word", "task-0123456789012345678901234", "task-0123456789012345678901234"},
		{"ghp", "token ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 end", "token [REDACTED:github-token] end"},
		{"github pat", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED:github-token]"},
		{"aws key id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = [REDACTED:aws-access-key-id]"},
		{"aws secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [REDACTED:aws-secret-access-key]"},
		{"pem block", "before\n" + pem + "\nafter", "before\n[REDACTED:private-key]\nafter"},
		{"cut pem block", "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA", "x\n[REDACTED:private-key]"},
		{"public cert kept", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
		{"bearer", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc", "Authorization: Bearer [REDACTED:bearer-token]"},
		{"bearer lower", `-H "authorization: bearer abcdefgh12345678"`, `-H "authorization: bearer [REDACTED:bearer-token]"`},
		{"bearer variable kept", `-H "Authorization: Bearer $TOKEN"`, `-H "Authorization: Bearer $TOKEN"`},
		{"plain", "nothing to see here", "nothing to see here"},
		{"empty", "", ""},
	}
	for _, c := range cases {
		if got := p.Redact(c.in); got != c.want {
			t.Errorf("%s: Redact(%q)\n got %q\nwant %q", c.name, c.in, got, c.want)
		}
	}
}

func TestRedactKeySourceIsReadEachTime(t *testing.T) {
	t.Parallel()
	key := ""
	p := New(Options{Home: "/nonexistent", UserHome: "/nonexistent", Keys: func() []string { return []string{key} }})
	if got := p.Redact("v=later-set-key-123"); got != "v=later-set-key-123" {
		t.Fatalf("redacted before a key was known: %q", got)
	}
	key = "later-set-key-123"
	if got := p.Redact("v=later-set-key-123"); got != "v=[REDACTED:api-key]" {
		t.Fatalf("key set later not redacted: %q", got)
	}
}

// corpus48K is 48 KB of Go-like source, the size of a large tool result.
func corpus48K(secret string) string {
	var b strings.Builder
	line := "func (c *Config) resolveKey(flags Flags, env Env) (string, string) { return flags.APIKey, \"flag\" }\n"
	for b.Len() < 48<<10 {
		b.WriteString(line)
	}
	return b.String()[:48<<10-len(secret)] + secret
}

func BenchmarkRedact48KClean(b *testing.B) {
	p := keyPolicy()
	text := corpus48K("")
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		p.Redact(text)
	}
}

func BenchmarkRedact48KWithSecrets(b *testing.B) {
	p := keyPolicy()
	text := corpus48K("\nkey=" + testKey + " sk-3b1f6c0e9a8d47e2b5c4f1a0d9e8c7b6 Authorization: Bearer abcdefgh12345678\n")
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		p.Redact(text)
	}
}

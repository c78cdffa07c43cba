package secrets

import "strings"

// IsSecretEnvName reports an environment variable whose value is a
// credential by its name: *_API_KEY, *_TOKEN, *_SECRET, *_SECRET_*,
// *_PASSWORD, *_PASSWD, PGPASSWORD, and everything of DEEPSEEK_* and
// CODEWHALE_* (the agent's own configuration, key included). Names compare
// case-insensitively (Windows' are). It is the one definition the command
// classifier (a shell that prints such a variable needs approval) and the
// command environment scrub share.
func IsSecretEnvName(name string) bool {
	n := strings.ToUpper(name)
	for _, suffix := range []string{"_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return n == "PGPASSWORD" || strings.Contains(n, "_SECRET_") || strings.HasPrefix(n, "DEEPSEEK_") ||
		strings.HasPrefix(n, "CODEWHALE_")
}

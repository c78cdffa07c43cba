package secrets

import (
	"os"
	"strings"
)

// IsSecretEnvName reports an environment variable whose value is a
// credential by its name: *_API_KEY, *_TOKEN, *_SECRET, *_SECRET_*,
// *_PASSWORD, *_PASSWD, PGPASSWORD, and everything of DEEPSEEK_* and
// CODEWHALE_* (the agent's own configuration, key included). Names compare
// case-insensitively (Windows' are). It is the one definition the command
// classifier (a shell that prints such a variable needs approval) and the
// environment scrub (ScrubEnv) share.
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

// ScrubEnv returns env ("KEY=value" entries) without the variables
// IsSecretEnvName marks, except those named in passthrough (compared
// case-insensitively, surrounding blanks ignored). It is the one scrub of
// every environment codewhale hands a child: the sandbox's commands and
// hooks (sandbox.Environ) and, through Environ, codewhale's own helpers.
func ScrubEnv(env, passthrough []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if IsSecretEnvName(name) && !listed(name, passthrough) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Environ is the environment of a program codewhale starts itself — its own
// git (internal/gitsafe, checkpoints, the Git tool), gh, pdftotext,
// tesseract, doctor's probes: the process environment through ScrubEnv
// with the process-wide Policy's EnvPassthrough, the same environment a
// Bash command gets, followed by extra.
func Environ(extra ...string) []string { return EnvironFrom(os.Environ(), extra...) }

// EnvironFrom is Environ over base instead of the process environment (a
// tool that adds the person's own settings to it first).
func EnvironFrom(base []string, extra ...string) []string {
	return append(ScrubEnv(base, Default().opts.EnvPassthrough), extra...)
}

func listed(name string, list []string) bool {
	for _, l := range list {
		if strings.EqualFold(strings.TrimSpace(l), name) {
			return true
		}
	}
	return false
}

package sandbox

import (
	"os"
	"strings"
)

// Environ is the environment for a command: the agent's own with secrets
// removed (names ending in _API_KEY, _TOKEN or _SECRET, containing
// _SECRET_, starting with DEEPSEEK_ or CODEWHALE_), except those listed in
// Options.EnvPassthrough, followed by extra. It applies in every mode: even
// a command outside the sandbox does not inherit the agent's keys.
func (s *Sandbox) Environ(extra ...string) []string {
	var pass []string
	if s != nil {
		pass = s.opts.EnvPassthrough
	}
	return append(ScrubEnv(os.Environ(), pass), extra...)
}

// ScrubEnv returns env without the secret-looking variables not named in
// passthrough. Names compare case-insensitively (Windows' are).
func ScrubEnv(env, passthrough []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if secretName(name) && !listed(name, passthrough) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, suffix := range []string{"_API_KEY", "_TOKEN", "_SECRET"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return strings.Contains(n, "_SECRET_") || strings.HasPrefix(n, "DEEPSEEK_") || strings.HasPrefix(n, "CODEWHALE_")
}

func listed(name string, list []string) bool {
	for _, l := range list {
		if strings.EqualFold(strings.TrimSpace(l), name) {
			return true
		}
	}
	return false
}

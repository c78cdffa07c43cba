package sandbox

import (
	"os"

	"github.com/codewhale/codewhale/internal/secrets"
)

// Environ is the environment for a command: the agent's own with secrets
// removed (secrets.ScrubEnv: names ending in _API_KEY, _TOKEN, _SECRET,
// _PASSWORD, containing _SECRET_, starting with DEEPSEEK_ or CODEWHALE_),
// except those listed in Options.EnvPassthrough, followed by extra. It
// applies in every mode: even a command outside the sandbox does not
// inherit the agent's keys.
func (s *Sandbox) Environ(extra ...string) []string {
	var pass []string
	if s != nil {
		pass = s.opts.EnvPassthrough
	}
	return append(secrets.ScrubEnv(os.Environ(), pass), extra...)
}

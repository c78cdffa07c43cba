package engine

import (
	"encoding/json"

	"github.com/codewhale/codewhale/internal/secrets"
)

// redact is the engine's one redaction of text that tools produced
// (issue 11 §7): the configured key and credential-shaped text become
// markers before the text reaches history — and so the provider, the session
// file and every host. Options.Redact replaces it (tests); the default is
// the process-wide secrets policy the wiring installed.
func (e *Engine) redact(s string) string {
	if e.opts.Redact != nil {
		return e.opts.Redact(s)
	}
	return secrets.Redact(s)
}

// redactOutcome redacts a tool outcome's content and its metadata (a diff
// or a command's output can carry what the content does). Metadata is
// rebuilt from its redacted JSON only when that JSON held a secret, so
// typed values survive everywhere else.
func (e *Engine) redactOutcome(o ToolOutcome) ToolOutcome {
	o.Content = e.redact(o.Content)
	if len(o.Metadata) == 0 {
		return o
	}
	raw, err := json.Marshal(o.Metadata)
	if err != nil {
		return o
	}
	if clean := e.redact(string(raw)); clean != string(raw) {
		var m map[string]any
		if json.Unmarshal([]byte(clean), &m) == nil {
			o.Metadata = m
		} else {
			o.Metadata = map[string]any{"redacted": true}
		}
	}
	return o
}

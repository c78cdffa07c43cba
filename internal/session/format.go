package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/provider"
)

// SchemaVersion is the journal format this build writes and the newest it
// reads.
const SchemaVersion = 1

// Line types of a journal.
const (
	lineHeader  = "session"
	lineMessage = "message"
	lineMeta    = "meta"
	// lineCompaction replaces the first Replaced messages of the history
	// with its summary Message. The replaced lines stay in the file above
	// it: compaction never destroys the original.
	lineCompaction = "compaction"
	lineSystem     = "system_prompt"
	// lineCut ends the history at its N messages (/undo, /restore, /retry
	// cutting the conversation back); the lines of the messages it drops
	// stay above it, so nothing is rewritten away.
	lineCut = "cut"
)

// record is one journal line. Only the fields of its Type are set.
type record struct {
	Type string `json:"type"`

	// header
	SchemaVersion int       `json:"schema_version,omitempty"`
	ID            string    `json:"id,omitempty"`
	CreatedAt     time.Time `json:"created_at,omitzero"`
	Parent        string    `json:"parent_session_id,omitempty"`

	// message, meta and system_prompt lines
	N        int               `json:"n,omitempty"`        // message count after this line
	Replaced int               `json:"replaced,omitempty"` // compaction: messages the summary replaces
	At       time.Time         `json:"at,omitzero"`
	Message  *provider.Message `json:"message,omitempty"`
	Text     *string           `json:"text,omitempty"`

	// header and meta lines carry the mutable metadata
	State *state `json:"meta,omitempty"`
}

// state is the metadata that changes while a session runs. A meta line holds
// a complete snapshot, so the last one wins.
type state struct {
	Title         string         `json:"title,omitempty"`
	Preview       string         `json:"preview,omitempty"`
	Model         string         `json:"model,omitempty"`
	ModelProvider string         `json:"model_provider,omitempty"`
	Workspace     string         `json:"workspace,omitempty"`
	Mode          string         `json:"mode,omitempty"`
	Usage         provider.Usage `json:"usage"`
	Cost          float64        `json:"cost"`
	Archived      bool           `json:"archived,omitempty"`
}

func (s *state) clone() state {
	c := *s
	c.Usage = cloneUsage(s.Usage)
	return c
}

// encodeLine marshals r as one newline-terminated line. encoding/json escapes
// every control character, so a record never contains a raw newline.
func encodeLine(r *record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encoding a %s line: %w", r.Type, err)
	}
	return append(b, '\n'), nil
}

// redactor hides API keys in everything written to a session file.
type redactor struct{ secrets []string }

func newRedactor(secrets []string) redactor {
	var keep []string
	for _, s := range secrets {
		// Very short values would redact ordinary words.
		if s = strings.TrimSpace(s); len(s) >= 8 {
			keep = append(keep, s)
		}
	}
	return redactor{secrets: keep}
}

func (r redactor) text(s string) string {
	for _, k := range r.secrets {
		s = strings.ReplaceAll(s, k, "[REDACTED]")
	}
	return provider.RedactSecrets(s, "")
}

// message returns a redacted deep copy of m. Tool inputs are JSON: a key
// inside a string is replaced by characters that need no escaping, so the
// input stays valid JSON; if a configured secret contained such characters
// and broke it, the input is replaced by a JSON string of the redacted text.
func (r redactor) message(m provider.Message) provider.Message {
	out := provider.Message{Role: m.Role, Content: make([]provider.Block, len(m.Content)), Origin: m.Origin}
	for i, b := range m.Content {
		b.Text = r.text(b.Text)
		b.Thinking = r.text(b.Thinking)
		b.Content = r.text(b.Content)
		if len(b.Input) > 0 {
			in := r.text(string(b.Input))
			if !json.Valid([]byte(in)) {
				q, _ := json.Marshal(in)
				in = string(q)
			}
			b.Input = json.RawMessage(in)
		}
		out.Content[i] = b
	}
	return out
}

// validRole reports whether a stored message has a role of the block model.
func validRole(r provider.Role) bool {
	switch r {
	case provider.RoleUser, provider.RoleAssistant, provider.RoleAssistantInterrupted, provider.RoleSystem:
		return true
	}
	return false
}

func validMessage(m *provider.Message) bool {
	if m == nil || !validRole(m.Role) {
		return false
	}
	for _, b := range m.Content {
		if b.Type == "" {
			return false
		}
	}
	return true
}

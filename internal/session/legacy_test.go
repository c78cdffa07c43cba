package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
)

const legacyDocJSON = `{
  "schema_version": 1,
  "metadata": {
    "id": "0b7d1c2e-1111-4222-8333-444455556666",
    "title": "Port the parser",
    "created_at": "2026-05-01T10:00:00Z",
    "updated_at": "2026-05-01T11:30:00Z",
    "message_count": 4,
    "total_tokens": 1234,
    "model": "deepseek-v4-pro",
    "model_provider": "deepseek",
    "workspace": "/home/me/parser",
    "mode": "agent",
    "cost": {"session_cost_usd": 0.01}
  },
  "messages": [
    {"role": "user", "content": [{"type": "text", "text": "Port the parser; key sk-abcdef0123456789abcdef"}]},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": "plan"}, {"type": "tool_use", "id": "t1", "name": "File", "input": {"action": "read"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "line one"}, {"type": "text", "text": "line two"}]}]},
    {"role": "assistant", "content": [{"type": "text", "text": "Done."}, {"type": "mystery"}]}
  ],
  "system_prompt": "legacy prompt"
}`

func TestImportLegacy(t *testing.T) {
	t.Parallel()
	home, legacy := t.TempDir(), t.TempDir()
	docs := map[string]string{
		"0b7d1c2e-1111-4222-8333-444455556666.json": legacyDocJSON,
		"newer.json":  `{"schema_version": 9, "metadata": {"id": "newer"}, "messages": []}`,
		"broken.json": `{"schema_version": 1, "metad`,
		"notes.txt":   "not a session",
	}
	for name, body := range docs {
		if err := os.WriteFile(filepath.Join(legacy, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	imported, err := ImportLegacy(home, legacy, Options{})
	if len(imported) != 1 || imported[0] != "0b7d1c2e-1111-4222-8333-444455556666" {
		t.Fatalf("imported %v", imported)
	}
	if err == nil || !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("the newer and broken documents were not reported: %v", err)
	}
	l, err := Resolve(home, "/home/me/parser", "0b7d", false)
	if err != nil {
		t.Fatal(err)
	}
	if l.Meta.Title != "Port the parser" || l.Meta.Model != "deepseek-v4-pro" || l.Session.Mode != posture.Act ||
		l.Session.SystemPrompt != "legacy prompt" || l.Meta.CreatedAt.Format("15:04") != "10:00" || l.Meta.UpdatedAt.Format("15:04") != "11:30" {
		t.Fatalf("imported meta %+v", l.Meta)
	}
	msgs := l.Session.Messages
	if len(msgs) != 4 || msgs[2].Content[0].Content != "line one\nline two" || len(msgs[3].Content) != 2 {
		t.Fatalf("imported messages %+v", msgs)
	}
	if got := msgs[0].Content[0].Text; got != "Port the parser; key sk-[REDACTED]" {
		t.Fatalf("imported text not redacted: %q", got)
	}
	if msgs[1].ToolUses()[0].Name != "File" || msgs[3].Content[1].Type != "mystery" {
		t.Fatalf("blocks not kept: %+v", msgs)
	}
	for name, body := range docs {
		if got, _ := os.ReadFile(filepath.Join(legacy, name)); !bytes.Equal(got, []byte(body)) {
			t.Fatalf("source %s was modified", name)
		}
	}

	// A session the user deleted is not imported again.
	os.Remove(l.Path)
	again, _ := ImportLegacy(home, legacy, Options{})
	if len(again) != 0 {
		t.Fatalf("re-imported %v", again)
	}
	if _, err := os.Stat(l.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("deleted session came back")
	}
}

func TestLegacyMessageSkipsUnknownRoles(t *testing.T) {
	t.Parallel()
	if _, ok := legacyMessage([]byte(`{"role":"tool","content":[]}`)); ok {
		t.Fatal("accepted a role outside the block model")
	}
	m, ok := legacyMessage([]byte(`{"role":"assistant_interrupted","content":[{"type":"text","text":"par"}]}`))
	if !ok || m.Role != provider.RoleAssistantInterrupted {
		t.Fatalf("got %+v %v", m, ok)
	}
}

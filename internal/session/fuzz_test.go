package session

import (
	"bytes"
	"errors"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
)

// FuzzLoadJournal loads arbitrary bytes as a session file, as a crash, a
// full disk or a hand edit could leave it. Loading must never panic and
// never fail except for a newer schema; what it recovers is only valid
// messages, every line is either used or reported, the tool-history repair
// leaves one result per call, and the recovered history written out again
// loads back to the same messages.
//
//	go test -fuzz=FuzzLoadJournal -fuzztime=20s ./internal/session
func FuzzLoadJournal(f *testing.F) {
	header := `{"type":"session","schema_version":1,"id":"s","created_at":"2026-11-29T12:00:00Z","meta":{"model":"deepseek-v4-pro","mode":"act","usage":{"input_tokens":0,"output_tokens":0},"cost":0}}` + "\n"
	msg := func(n int, m string) string {
		return `{"type":"message","n":` + string(rune('0'+n)) + `,"at":"2026-11-29T12:00:01Z","message":` + m + "}\n"
	}
	user := `{"role":"user","content":[{"type":"text","text":"hi"}]}`
	call := `{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"File","input":{"action":"read"}},{"type":"tool_use","id":"c1","name":"Git","input":{}}]}`
	result := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"ok"}]}`
	for _, seed := range []string{
		header + msg(1, user) + msg(2, call) + msg(3, result),
		header + msg(1, user) + `{"type":"compaction","n":1,"replaced":1,"message":{"role":"user","content":[{"type":"text","text":"SUMMARY"}]}}` + "\n",
		header + msg(1, user) + `{"type":"meta","meta":{"title":"t","usage":{"input_tokens":5,"output_tokens":1},"cost":0.1}}` + "\n" + `{"type":"message","n":2,"mess`,
		`{"type":"session","schema_version":99,"id":"s"}` + "\n",
		"garbage\n" + msg(1, user),
		header + `{"type":"compaction","n":1,"replaced":7,"message":{"role":"user","content":[]}}` + "\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := parseJournal("/sessions/fuzz.jsonl", data)
		var ns *NewerSchemaError
		if errors.As(err, &ns) {
			return
		}
		if err != nil {
			t.Fatalf("load failed: %v", err)
		}
		for _, m := range j.messages {
			if !validMessage(&m) {
				t.Fatalf("invalid message recovered: %+v", m)
			}
		}
		lines := bytes.Count(data, []byte("\n"))
		if len(j.damage.Corrupt) > lines {
			t.Fatalf("%d corrupt lines reported in %d lines", len(j.damage.Corrupt), lines)
		}
		repaired, _ := engine.RepairHistory(j.messages)
		checkOneResultPerCall(t, repaired)
		var buf bytes.Buffer
		buf.WriteString(header)
		for i := range j.messages {
			line, err := encodeLine(&record{Type: lineMessage, N: i + 1, Message: &j.messages[i]})
			if err != nil {
				t.Fatalf("a recovered message does not encode: %v", err)
			}
			buf.Write(line)
		}
		again, err := parseJournal("/sessions/fuzz.jsonl", buf.Bytes())
		if err != nil || len(again.messages) != len(j.messages) || again.damage.Any() {
			t.Fatalf("round trip: %d of %d messages, damage %+v, %v", len(again.messages), len(j.messages), again.damage, err)
		}
	})
}

// checkOneResultPerCall: after the repair every tool call of an assistant
// message is answered exactly once by the messages right after it.
func checkOneResultPerCall(t *testing.T, msgs []provider.Message) {
	t.Helper()
	for i, m := range msgs {
		calls := m.ToolUses()
		if len(calls) == 0 || (m.Role != provider.RoleAssistant && m.Role != provider.RoleAssistantInterrupted) {
			continue
		}
		answered := map[string]int{}
		for k := i + 1; k < len(msgs) && msgs[k].HasBlock(provider.BlockToolResult); k++ {
			for _, b := range msgs[k].Content {
				if b.Type == provider.BlockToolResult {
					answered[b.ToolUseID]++
				}
			}
		}
		for _, c := range calls {
			if answered[c.ID] == 0 {
				t.Fatalf("call %s of message %d has no result after the repair", c.ID, i)
			}
		}
	}
}

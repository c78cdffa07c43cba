package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
)

const testWS = "/work/project"

func testInfo(id string) engine.SessionInfo {
	return engine.SessionInfo{ID: id, Model: "deepseek-v4-pro", Workspace: testWS, Mode: posture.Act,
		SystemPrompt: "You are codewhale."}
}

func fixedClock(t0 time.Time) func() time.Time {
	n := 0
	return func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) }
}

// userTurn is a user message the way the engine builds it: text plus the
// turn_meta block.
func userTurn(text string) provider.Message {
	return provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(text),
		provider.TextBlock("<turn_meta>\nCurrent workspace: " + testWS + "\n</turn_meta>")}}
}

func toolCall(id, cmd string) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{
		provider.ThinkingBlock("run it"), provider.ToolUseBlock(id, "Bash", json.RawMessage(`{"command":"`+cmd+`"}`))}}
}

func toolResult(id, out string) provider.Message {
	return provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.ToolResultBlock(id, out, false)}}
}

func assistant(text string) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock(text)}}
}

func mustAppend(t testing.TB, j *Journal, info engine.SessionInfo, msgs ...provider.Message) {
	t.Helper()
	if err := j.Append(info, msgs...); err != nil {
		t.Fatalf("Append: %v", err)
	}
}

func TestJournalRoundTrip(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{Provider: "deepseek", Now: fixedClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))})
	defer j.Close()
	info := testInfo("11111111-aaaa-4bbb-8ccc-000000000001")
	history := []provider.Message{userTurn("Fix the flaky\n  test in   parser_test.go"), toolCall("call_1", "go test ./..."),
		toolResult("call_1", "ok"), assistant("Fixed.")}
	for _, m := range history {
		mustAppend(t, j, info, m)
	}
	info.Usage = provider.Usage{InputTokens: 1000, OutputTokens: 200, PromptCacheHitTokens: provider.Int(600)}
	mustAppend(t, j, info) // turn end: new totals only

	l, err := Load(filepath.Join(Dir(home), info.ID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Damage.Any() || l.Repair.Changed() || l.Persist {
		t.Fatalf("clean journal reported damage %+v repair %+v", l.Damage, l.Repair)
	}
	gotJS, _ := json.Marshal(l.Session.Messages)
	wantJS, _ := json.Marshal(history)
	if !bytes.Equal(gotJS, wantJS) {
		t.Fatalf("messages differ:\n got %s\nwant %s", gotJS, wantJS)
	}
	m := l.Meta
	want := Meta{ID: info.ID, Title: "Fix the flaky test in parser_test.go", MessageCount: 4, TotalTokens: 1200,
		Model: "deepseek-v4-pro", ModelProvider: "deepseek", Workspace: testWS, Mode: "act"}
	if m.ID != want.ID || m.Title != want.Title || m.MessageCount != want.MessageCount || m.TotalTokens != want.TotalTokens ||
		m.Model != want.Model || m.ModelProvider != want.ModelProvider || m.Workspace != want.Workspace || m.Mode != want.Mode {
		t.Fatalf("meta = %+v\nwant  %+v", m, want)
	}
	if !m.UpdatedAt.After(m.CreatedAt) {
		t.Fatalf("updated_at %v not after created_at %v", m.UpdatedAt, m.CreatedAt)
	}
	if wantCost := Cost("deepseek-v4-pro", info.Usage, nil); m.Cost != wantCost || m.Cost == 0 {
		t.Fatalf("cost = %v, want %v", m.Cost, wantCost)
	}
	if l.Session.SystemPrompt != "You are codewhale." || l.Session.Model != "deepseek-v4-pro" || l.Session.Mode != posture.Act {
		t.Fatalf("session settings not restored: %+v", l.Session)
	}
}

func TestTitleSkipsEngineMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msgs []provider.Message
		want string
	}{
		{"turn meta only block is skipped", []provider.Message{userTurn("hello")}, "hello"},
		{"runtime notice then prompt", []provider.Message{provider.UserText("[runtime] Background job finished"), userTurn("second")}, "second"},
		{"marked jobs notice then prompt", []provider.Message{provider.EngineText("1 background shell job finished. x"), userTurn("third")}, "third"},
		{"unmarked legacy jobs notice then prompt", []provider.Message{provider.UserText("2 background shell jobs finished. x"), userTurn("fourth")}, "fourth"},
		{"tool result is not a prompt", []provider.Message{toolResult("c", "output"), userTurn("real")}, "real"},
		{"long prompt is clipped to 100 runes", []provider.Message{userTurn(strings.Repeat("é", 150))}, strings.Repeat("é", 99) + "…"},
		{"no prompt yet", []provider.Message{assistant("hi")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _ := titleAndPreview(tt.msgs)
			if got != tt.want {
				t.Fatalf("title = %q, want %q", got, tt.want)
			}
			if n := len([]rune(got)); n > 100 {
				t.Fatalf("title has %d runes", n)
			}
		})
	}
}

// TestOriginSurvivesTheJournal: an engine-made message is still engine-made
// after a save and a load, so a resumed session classifies it the same.
func TestOriginSurvivesTheJournal(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{})
	mustAppend(t, j, testInfo("origin"), provider.EngineText("1 background shell job finished. x"), userTurn("typed"))
	j.Close()
	l, err := Load(filepath.Join(home, "sessions", "origin.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	msgs := l.Session.Messages
	if len(msgs) != 2 || msgs[0].Origin != provider.OriginEngine || !msgs[0].EngineMade() || msgs[1].EngineMade() || l.Meta.Title != "typed" {
		t.Fatalf("loaded %+v, title %q", msgs, l.Meta.Title)
	}
}

func TestUsageAccumulatesAcrossEngineRestarts(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	info := testInfo("usage-session")
	j := NewJournal(home, Options{})
	mustAppend(t, j, info, userTurn("one"))
	info.Usage = provider.Usage{InputTokens: 100, OutputTokens: 10}
	mustAppend(t, j, info)
	j.Close()

	// A second process resumes but its engine counts from zero again.
	j2 := NewJournal(home, Options{})
	defer j2.Close()
	info.Usage = provider.Usage{InputTokens: 50, OutputTokens: 5}
	mustAppend(t, j2, info, userTurn("two"))
	l, err := Load(filepath.Join(Dir(home), info.ID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Meta.Usage; got.InputTokens != 150 || got.OutputTokens != 15 {
		t.Fatalf("usage = %+v, want 150 in / 15 out", got)
	}
}

// README.md "Sessions": API keys are redacted before anything is written
func TestKeysNeverReachTheFile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	const key = "sk-4f9c2a7be1d84c0f9a3e5b6c7d8e9f01"
	const configured = "custom-proxy-token-XYZ123456"
	j := NewJournal(home, Options{Secrets: []string{configured}})
	info := testInfo("redact-session")
	info.SystemPrompt = "prompt with " + configured
	mustAppend(t, j, info, userTurn("my DEEPSEEK_API_KEY="+key+" please set it up"))
	mustAppend(t, j, info, toolCall("c1", "echo "+key))
	mustAppend(t, j, info, toolResult("c1", "DEEPSEEK_API_KEY="+key+"\nPROXY="+configured))
	if err := j.Rewrite(info, []provider.Message{userTurn("again " + key)}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, j, info, assistant("thinking about "+key))
	j.Close()

	entries, _ := os.ReadDir(Dir(home))
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(Dir(home), e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{key, configured, "4f9c2a7be1d84c0f"} {
			if bytes.Contains(data, []byte(secret)) {
				t.Fatalf("%s contains the secret %q:\n%s", e.Name(), secret, data)
			}
		}
	}
	l, err := Load(filepath.Join(Dir(home), info.ID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Session.Messages[0].Content[0].Text; got != "again sk-[REDACTED]" {
		t.Fatalf("redacted text = %q", got)
	}
	if !strings.Contains(l.Meta.Title, "sk-[REDACTED]") {
		t.Fatalf("title %q not redacted", l.Meta.Title)
	}
}

func TestRewriteReplacesHistoryAtomically(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{})
	defer j.Close()
	info := testInfo("compact-session")
	for i := range 6 {
		mustAppend(t, j, info, userTurn("turn "+string(rune('a'+i))), assistant("ok"))
	}
	summary := provider.UserText("<codewhale:compaction_summary replaced_messages=\"8\" kept_messages=\"4\">\nsummary\n</codewhale:compaction_summary>")
	kept := []provider.Message{summary, userTurn("turn e"), assistant("ok"), userTurn("turn f"), assistant("ok")}
	if err := j.Rewrite(info, kept); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, j, info, userTurn("after"))
	l, err := Load(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(l.Session.Messages); n != 6 || l.Session.Messages[5].Content[0].Text != "after" {
		t.Fatalf("after rewrite+append got %d messages: %+v", n, l.Session.Messages)
	}
	if l.Meta.Title != "turn a" {
		t.Fatalf("title changed by compaction: %q", l.Meta.Title)
	}
	if tmp, _ := filepath.Glob(filepath.Join(Dir(home), "*.tmp-*")); len(tmp) > 0 {
		t.Fatalf("temporary files left behind: %v", tmp)
	}
}

func TestJournalFollowsSessionID(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{})
	defer j.Close()
	a, b := testInfo("session-a"), testInfo("session-b")
	mustAppend(t, j, a, userTurn("first"))
	mustAppend(t, j, b, userTurn("second")) // /new
	mustAppend(t, j, a, assistant("back"))  // resumed a in the TUI
	for id, want := range map[string]int{"session-a": 2, "session-b": 1} {
		l, err := Load(filepath.Join(Dir(home), id+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Session.Messages) != want {
			t.Fatalf("%s has %d messages, want %d", id, len(l.Session.Messages), want)
		}
	}
}

// README.md "Sessions": a session has one writer
func TestSecondWriterIsRefused(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	info := testInfo("locked-session")
	j1 := NewJournal(home, Options{})
	defer j1.Close()
	mustAppend(t, j1, info, userTurn("mine"))
	j2 := NewJournal(home, Options{})
	defer j2.Close()
	err := j2.Append(info, userTurn("theirs"))
	if err == nil || !strings.Contains(err.Error(), "another codewhale process") {
		t.Fatalf("second writer error = %v", err)
	}
	// Claim refuses before anything is written, naming the holder; the
	// lock survives the holder's atomic rewrites of the journal.
	if err := j1.Rewrite(info, []provider.Message{userTurn("rewritten")}); err != nil {
		t.Fatal(err)
	}
	err = j2.Claim(info.ID)
	var busy *BusyError
	if !errors.As(err, &busy) || !errors.Is(err, ErrBusy) || busy.PID != os.Getpid() ||
		!strings.Contains(err.Error(), fmt.Sprintf("(pid %d)", os.Getpid())) {
		t.Fatalf("claim error = %v", err)
	}
	j1.Close()
	if err := j2.Claim(info.ID); err != nil {
		t.Fatalf("claim after the holder closed: %v", err)
	}
	mustAppend(t, j2, info, userTurn("now mine"))
	l, err := Load(filepath.Join(Dir(home), info.ID+journalExt))
	if err != nil || len(l.Session.Messages) != 2 || !strings.HasPrefix(l.Session.Messages[0].Text(), "rewritten") {
		t.Fatalf("history %+v, %v", l, err)
	}
}

func TestUsageOnlyAppendCreatesNothing(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{})
	defer j.Close()
	mustAppend(t, j, testInfo("empty"))
	if _, err := os.Stat(filepath.Join(Dir(home), "empty.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a session without messages was written: %v", err)
	}
}

func TestInvalidIDRejected(t *testing.T) {
	t.Parallel()
	j := NewJournal(t.TempDir(), Options{})
	for _, id := range []string{"", "../escape", "a/b", strings.Repeat("x", 129)} {
		if err := j.Append(testInfo(id), userTurn("x")); err == nil {
			t.Fatalf("id %q accepted", id)
		}
	}
}

// A compaction is one appended record: the history loads as the summary
// plus what followed, the replaced messages stay in the file, and later
// appends continue after it.
func TestCompactionRecordKeepsTheOriginal(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	info := testInfo("compacted")
	j := NewJournal(home, Options{noSync: true})
	defer j.Close()
	mustAppend(t, j, info, userTurn("one"), assistant("a1"), userTurn("two"), assistant("a2"))
	if err := j.Compacted(info, 3, assistant("SUMMARY")); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, j, info, userTurn("three"))
	if err := j.Compacted(info, 9, assistant("too many")); err == nil {
		t.Error("a compaction of more messages than the history was accepted")
	}
	l, err := Load(filepath.Join(Dir(home), info.ID+journalExt))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range l.Session.Messages {
		texts = append(texts, strings.SplitN(m.Text(), "\n", 2)[0])
	}
	if got := strings.Join(texts, "|"); got != "SUMMARY|a2|three" || l.Damage.Any() {
		t.Errorf("history %s, damage %+v", got, l.Damage)
	}
	raw, _ := os.ReadFile(filepath.Join(Dir(home), info.ID+journalExt))
	if !strings.Contains(string(raw), `"a1"`) || !strings.Contains(string(raw), `"one`) {
		t.Error("the replaced messages are gone from the file")
	}
}

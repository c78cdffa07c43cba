package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/provider"
)

// writeSample writes a four-message session and returns its path and lines
// (each with its newline).
func writeSample(t *testing.T, home, id string) (string, [][]byte) {
	t.Helper()
	j := NewJournal(home, Options{})
	info := testInfo(id)
	mustAppend(t, j, info, userTurn("first question"))
	mustAppend(t, j, info, assistant("answer one"))
	mustAppend(t, j, info, userTurn("second question"))
	mustAppend(t, j, info, assistant("answer two"))
	j.Close()
	path := filepath.Join(Dir(home), id+".jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, bytes.SplitAfter(data, []byte("\n"))[:bytes.Count(data, []byte("\n"))]
}

// messageLines returns the 0-based indexes of message lines.
func messageLines(lines [][]byte) []int {
	var idx []int
	for i, l := range lines {
		if bytes.HasPrefix(l, []byte(`{"type":"message"`)) {
			idx = append(idx, i)
		}
	}
	return idx
}

// README.md "Sessions": a damaged file loads every complete message
func TestLoadRecoversDamagedFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		damage    func(lines [][]byte) []byte
		wantTexts []string
		check     func(t *testing.T, d Damage)
		lineHas   string
	}{
		{
			name: "truncated final line",
			damage: func(lines [][]byte) []byte {
				last := messageLines(lines)[3]
				out := bytes.Join(lines[:last], nil)
				return append(out, lines[last][:len(lines[last])/2]...)
			},
			wantTexts: []string{"first question", "answer one", "second question"},
			check: func(t *testing.T, d Damage) {
				if d.TruncatedBytes == 0 || len(d.Corrupt) > 0 || d.BadHeader {
					t.Fatalf("damage = %+v, want only a truncated tail", d)
				}
			},
			lineHas: "a truncated final line of",
		},
		{
			name: "corrupted middle line",
			damage: func(lines [][]byte) []byte {
				lines[messageLines(lines)[1]] = []byte("{\"type\":\"message\",\"n\":2,\"mess\x00garbage\n")
				return bytes.Join(lines, nil)
			},
			wantTexts: []string{"first question", "second question", "answer two"},
			check: func(t *testing.T, d Damage) {
				if len(d.Corrupt) != 1 || d.TruncatedBytes != 0 || d.BadHeader {
					t.Fatalf("damage = %+v, want one corrupt line", d)
				}
			},
			lineHas: "not valid JSON (invalid character",
		},
		{
			name: "valid JSON that is not a record",
			damage: func(lines [][]byte) []byte {
				lines[messageLines(lines)[2]] = []byte(`{"type":"message","n":3,"message":{"role":"robot","content":[]}}` + "\n")
				return bytes.Join(lines, nil)
			},
			wantTexts: []string{"first question", "answer one", "answer two"},
			check: func(t *testing.T, d Damage) {
				if len(d.Corrupt) != 1 {
					t.Fatalf("damage = %+v, want one corrupt line", d)
				}
			},
			lineHas: `a "message" record whose fields are not valid`,
		},
		{
			name: "bad header",
			damage: func(lines [][]byte) []byte {
				lines[0] = []byte("{\"type\":\"sess\n")
				return bytes.Join(lines, nil)
			},
			wantTexts: []string{"first question", "answer one", "second question", "answer two"},
			check: func(t *testing.T, d Damage) {
				if !d.BadHeader || len(d.Corrupt) > 0 {
					t.Fatalf("damage = %+v, want a bad header only", d)
				}
			},
			lineHas: "line 1: an unreadable header",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			path, lines := writeSample(t, home, "damaged-session")
			if err := os.WriteFile(path, tt.damage(lines), 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := Load(path)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			var texts []string
			for _, m := range l.Session.Messages {
				texts = append(texts, promptOrText(m))
			}
			if strings.Join(texts, "|") != strings.Join(tt.wantTexts, "|") {
				t.Fatalf("recovered %q, want %q", texts, tt.wantTexts)
			}
			tt.check(t, l.Damage)
			if line := l.DamageLine(); !strings.HasPrefix(line, "[session_recovery] Recovered ") || !strings.Contains(line, tt.lineHas) {
				t.Fatalf("damage line %q lacks %q", line, tt.lineHas)
			}
			if !l.Persist || l.Meta.ID != "damaged-session" || l.Meta.Workspace != testWS {
				t.Fatalf("loaded meta %+v persist %v", l.Meta, l.Persist)
			}
		})
	}
}

func promptOrText(m provider.Message) string {
	if s := promptText(m); s != "" {
		return s
	}
	return m.Text()
}

// README.md "Sessions": resuming a damaged file keeps it beside as <id>.jsonl.damaged-<time> and rewrites it clean
func TestAppendAfterDamageKeepsBackupAndCleanFile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path, lines := writeSample(t, home, "resume-damaged")
	last := messageLines(lines)[3]
	damaged := append(bytes.Join(lines[:last], nil), lines[last][:10]...)
	if err := os.WriteFile(path, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	j := NewJournal(home, Options{})
	defer j.Close()
	mustAppend(t, j, testInfo("resume-damaged"), assistant("answer two, again"))
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if l.Damage.Any() || len(l.Session.Messages) != 4 || l.Session.Messages[3].Text() != "answer two, again" {
		t.Fatalf("after repair+append: damage %+v, %d messages", l.Damage, len(l.Session.Messages))
	}
	backups, _ := filepath.Glob(path + ".damaged-*")
	if len(backups) != 1 {
		t.Fatalf("backups = %v, want one", backups)
	}
	if got, _ := os.ReadFile(backups[0]); !bytes.Equal(got, damaged) {
		t.Fatal("the backup does not hold the damaged bytes")
	}
}

// README.md "Sessions": a file from a newer schema is refused, never rewritten
func TestNewerSchemaIsRefusedAndUntouched(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := Dir(home)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	const id = "future-session"
	path := filepath.Join(dir, id+".jsonl")
	content := []byte(`{"type":"session","schema_version":2,"id":"future-session","created_at":"2027-01-01T00:00:00Z","meta":{"workspace":"/work/project","usage":{"input_tokens":0,"output_tokens":0},"cost":0}}` + "\n" +
		`{"type":"chunk","shape":"unknown to v1"}` + "\n" + `{"type":"message","n":1,"mess`)
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	unchanged := func() {
		t.Helper()
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, content) {
			t.Fatalf("the newer-schema file was modified (err %v)", err)
		}
		if extra, _ := filepath.Glob(path + ".*"); len(extra) > 0 {
			t.Fatalf("files created beside it: %v", extra)
		}
	}

	_, err := Load(path)
	var ns *NewerSchemaError
	if !errors.As(err, &ns) || !errors.Is(err, ErrNewerSchema) || ns.Version != 2 || !strings.Contains(err.Error(), "upgrade codewhale") {
		t.Fatalf("Load error = %v", err)
	}
	if _, err := Resolve(home, testWS, "future", false); !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("Resolve error = %v", err)
	}
	j := NewJournal(home, Options{})
	if err := j.Append(testInfo(id), userTurn("overwrite?")); !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("Append error = %v", err)
	}
	if err := j.Rewrite(testInfo(id), nil); !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("Rewrite error = %v", err)
	}
	j.Close()
	ms, err := List(home, Query{})
	if err != nil || len(ms) != 1 || ms[0].NewerSchema != 2 || ms[0].ID != id {
		t.Fatalf("List = %+v, %v", ms, err)
	}
	if deleted, _ := Prune(home, config.Retention{MaxSessions: 1, MaxAgeDays: 1}, "other", ms[0].CreatedAt.AddDate(1, 0, 0)); len(deleted) > 0 {
		t.Fatalf("pruned a newer-schema session: %v", deleted)
	}
	unchanged()
}

// Resuming a damaged session for writing repairs the file between the two
// loads ResolveOwned makes; the report of what was dropped survives it
// (issue 23 §8, issue 32 §6): one line per dropped or truncated record and
// the kept copy's path, handed over once.
func TestResolveOwnedReportsWhatTheClaimRepaired(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path, lines := writeSample(t, home, "damaged-resume")
	mid, last := messageLines(lines)[1], messageLines(lines)[3]
	lines[mid] = []byte("{\"type\":\"message\",\"mess\x00garbage\n")
	out := bytes.Join(lines[:last], nil)
	if err := os.WriteFile(path, append(out, lines[last][:20]...), 0o600); err != nil {
		t.Fatal(err)
	}
	j := NewJournal(home, Options{})
	defer j.Close()
	l, err := ResolveOwned(j, home, testWS, "damaged-resume", false)
	if err != nil {
		t.Fatal(err)
	}
	report := l.DamageLine()
	rows := strings.Split(report, "\n")
	want := []string{
		"[session_recovery] Recovered 2 message(s); dropped 2 damaged line(s); the file as it was is kept at " + l.Backup + ":",
		"  line " + itoa(mid+1) + ": not valid JSON (invalid character",
		"  line " + itoa(last+1) + ": a truncated final line of 20 bytes (a write interrupted by a crash)",
	}
	if len(rows) != len(want) {
		t.Fatalf("report:\n%s", report)
	}
	for i := range want {
		if !strings.HasPrefix(rows[i], want[i]) {
			t.Errorf("row %d = %q, want %q…", i, rows[i], want[i])
		}
	}
	if !strings.HasPrefix(l.Backup, path+".damaged-") {
		t.Errorf("backup %q", l.Backup)
	}
	if kept, err := os.ReadFile(l.Backup); err != nil || !bytes.Contains(kept, []byte("garbage")) {
		t.Errorf("the kept copy: %v", err)
	}
	if len(l.Notices()) != 1 || l.Notices()[0] != report {
		t.Errorf("notices %q", l.Notices())
	}
	again, err := ResolveOwned(j, home, testWS, "damaged-resume", false)
	if err != nil || again.DamageLine() != "" {
		t.Errorf("the repair was reported twice: %q %v", again.DamageLine(), err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

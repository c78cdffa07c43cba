package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func ids(ms []Meta) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return strings.Join(out, ",")
}

func TestListFiltersAndOrders(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	seed(t, home, "s1", "/ws/one", t0, userTurn("Refactor the lexer"))
	seed(t, home, "s2", "/ws/one", t0.Add(2*time.Hour), userTurn("Add retries to the HTTP client"))
	seed(t, home, "s3", "/ws/two", t0.Add(time.Hour), userTurn("Write docs"))
	long := strings.Repeat("context ", 20) + "needle-in-the-first-message"
	seed(t, home, "s4", "/ws/one", t0.Add(30*time.Minute), userTurn(long))

	tests := []struct {
		name string
		q    Query
		want string
	}{
		{"workspace, newest first", Query{Workspace: "/ws/one"}, "s2,s4,s1"},
		{"every workspace", Query{}, "s2,s3,s4,s1"},
		{"limit", Query{Limit: 2}, "s2,s3"},
		{"search the title, any case", Query{Search: "LEXER"}, "s1"},
		{"search the first message beyond the title", Query{Search: "needle-in-the"}, "s4"},
		{"search and workspace", Query{Workspace: "/ws/two", Search: "lexer"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ms, err := List(home, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(ms); got != tt.want {
				t.Fatalf("List(%+v) = %s, want %s", tt.q, got, tt.want)
			}
		})
	}
}

func TestListWithoutSessionsDirectory(t *testing.T) {
	t.Parallel()
	ms, err := List(t.TempDir(), Query{})
	if err != nil || len(ms) != 0 {
		t.Fatalf("List = %v, %v", ms, err)
	}
}

func TestIndexRebuiltAndRefreshed(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	seed(t, home, "keep", testWS, t0, userTurn("kept session"))
	seed(t, home, "grow", testWS, t0.Add(time.Minute), userTurn("growing session"))
	seed(t, home, "gone", testWS, t0.Add(2*time.Minute), userTurn("deleted session"))
	index := filepath.Join(Dir(home), indexFile)
	first, err := List(home, Query{})
	if err != nil || ids(first) != "gone,grow,keep" {
		t.Fatalf("first List = %s, %v", ids(first), err)
	}
	if _, err := os.Stat(index); err != nil {
		t.Fatalf("no index after listing: %v", err)
	}

	steps := []struct {
		name   string
		change func(t *testing.T)
		want   string
		check  func(t *testing.T, ms []Meta)
	}{
		{"index file deleted", func(t *testing.T) { os.Remove(index) }, "gone,grow,keep", nil},
		{"index file corrupted", func(t *testing.T) { os.WriteFile(index, []byte("{not json"), 0o600) }, "gone,grow,keep", nil},
		{"session grew after indexing", func(t *testing.T) {
			j := NewJournal(home, Options{Now: fixedClock(t0.Add(time.Hour)), noSync: true})
			defer j.Close()
			mustAppend(t, j, testInfo("grow"), assistant("more"), userTurn("and more"))
		}, "grow,gone,keep", func(t *testing.T, ms []Meta) {
			if ms[0].MessageCount != 3 || ms[0].Title != "growing session" {
				t.Fatalf("grown session listed as %+v", ms[0])
			}
		}},
		{"session file deleted", func(t *testing.T) { os.Remove(filepath.Join(Dir(home), "gone.jsonl")) }, "grow,keep", nil},
	}
	for _, s := range steps {
		s.change(t)
		ms, err := List(home, Query{})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := ids(ms); got != s.want {
			t.Fatalf("%s: List = %s, want %s", s.name, got, s.want)
		}
		if s.check != nil {
			s.check(t, ms)
		}
		if doc := readIndex(Dir(home)); len(doc) != len(ms) {
			t.Fatalf("%s: index has %d entries, want %d", s.name, len(doc), len(ms))
		}
	}
}

func TestSummaryFallsBackWhenTheTailHasNoMeta(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{noSync: true})
	info := testInfo("long-tail")
	mustAppend(t, j, info, userTurn("the title"))
	for range 100 {
		mustAppend(t, j, info, assistant(strings.Repeat("y", 1024))) // no metadata change, no meta line
	}
	j.Close()
	path := filepath.Join(Dir(home), "long-tail.jsonl")
	st, _ := os.Stat(path)
	m, err := summarize(path, st.Size())
	if err != nil || m.Title != "the title" || m.MessageCount != 101 {
		t.Fatalf("summary = %+v, %v", m, err)
	}
}

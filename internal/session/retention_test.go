package session

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/config"
)

// README.md "Sessions": session_retention prunes by count and age
func TestPrune(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	tests := []struct {
		name    string
		r       config.Retention
		keep    string
		locked  string
		wantDel []string
	}{
		{name: "unset keeps everything", r: config.Retention{}},
		{name: "by count", r: config.Retention{MaxSessions: 2}, wantDel: []string{"s1", "s2", "s3"}},
		{name: "by count, never the current session", r: config.Retention{MaxSessions: 2}, keep: "s1", wantDel: []string{"s2", "s3"}},
		{name: "by age", r: config.Retention{MaxAgeDays: 7}, wantDel: []string{"s1", "s2"}},
		{name: "count and age together", r: config.Retention{MaxSessions: 4, MaxAgeDays: 30}, wantDel: []string{"s1"}},
		{name: "a session open in another writer is skipped", r: config.Retention{MaxSessions: 1}, locked: "s2", wantDel: []string{"s1", "s3", "s4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.locked != "" && runtime.GOOS == "windows" {
				t.Skip("no advisory locks")
			}
			home := t.TempDir()
			ages := map[string]time.Duration{"s1": 20 * day, "s2": 10 * day, "s3": 3 * day, "s4": 2 * day, "s5": day}
			now := t0.Add(30 * day)
			for id, age := range ages {
				seed(t, home, id, testWS, now.Add(-age))
			}
			if tt.locked != "" {
				j := NewJournal(home, Options{noSync: true, Now: fixedClock(now.Add(-ages[tt.locked]))})
				defer j.Close()
				mustAppend(t, j, testInfo(tt.locked), assistant("still working"))
			}
			deleted, err := Prune(home, tt.r, tt.keep, now)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(deleted)
			if strings.Join(deleted, ",") != strings.Join(tt.wantDel, ",") {
				t.Fatalf("deleted %v, want %v", deleted, tt.wantDel)
			}
			left, _ := List(home, Query{})
			if len(left) != len(ages)-len(tt.wantDel) {
				t.Fatalf("%d sessions left, want %d", len(left), len(ages)-len(tt.wantDel))
			}
		})
	}
}

func TestNewSessionAppliesRetention(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for i, id := range []string{"old1", "old2", "old3"} {
		seed(t, home, id, testWS, t0.Add(time.Duration(i)*time.Hour))
	}
	var reported []string
	j := NewJournal(home, Options{Retention: &config.Retention{MaxSessions: 2}, Now: fixedClock(t0.Add(24 * time.Hour)),
		OnPrune: func(deleted []string, err error) { reported = append(reported, deleted...) }})
	defer j.Close()
	mustAppend(t, j, testInfo("fresh"), userTurn("new work"))
	mustAppend(t, j, testInfo("fresh"), assistant("no second pruning"))
	slices.Sort(reported)
	if strings.Join(reported, ",") != "old1,old2" {
		t.Fatalf("reported pruned %v", reported)
	}
	ms, err := List(home, Query{})
	if err != nil || ids(ms) != "fresh,old3" {
		t.Fatalf("after a new session with max_sessions=2: %s, %v", ids(ms), err)
	}
}

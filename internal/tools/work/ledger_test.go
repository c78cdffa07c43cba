package work

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

func entries(pairs ...string) []Entry {
	var out []Entry
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, Entry{Content: pairs[i], Status: Status(pairs[i+1])})
	}
	return out
}

func TestParseStatusAcceptsSynonymsCaseInsensitively(t *testing.T) {
	t.Parallel()
	cases := map[string]Status{
		"pending": Pending, "PENDING": Pending,
		"in_progress": InProgress, "InProgress": InProgress, "in-progress": InProgress, "In Progress": InProgress,
		"completed": Completed, "complete": Completed, "Done": Completed,
		"cancelled": Cancelled, "canceled": Cancelled, " CANCELED ": Cancelled,
	}
	for raw, want := range cases {
		got, ok := ParseStatus(raw)
		if !ok || got != want {
			t.Errorf("ParseStatus(%q) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	for _, raw := range []string{"doing", "", "todo", "in_progres"} {
		if _, ok := ParseStatus(raw); ok {
			t.Errorf("ParseStatus(%q) accepted an unknown status", raw)
		}
	}
}

// CONTRACT.md §6.8: a later in_progress demotes earlier ones to pending.
func TestReplaceNumbersFromOneAndKeepsOnlyTheLastInProgress(t *testing.T) {
	t.Parallel()
	l := NewLedger()
	l.Replace(entries("old", "pending", "older", "pending", "oldest", "pending"))
	snap := l.Replace(entries("a", "in_progress", "b", "in_progress", "c", "pending"))
	want := []Item{{1, "a", Pending}, {2, "b", InProgress}, {3, "c", Pending}}
	if len(snap.Items) != len(want) {
		t.Fatalf("items = %+v, want %+v", snap.Items, want)
	}
	for i := range want {
		if snap.Items[i] != want[i] {
			t.Errorf("item %d = %+v, want %+v", i, snap.Items[i], want[i])
		}
	}
	if snap.InProgressID != 2 {
		t.Errorf("in_progress_id = %d, want 2", snap.InProgressID)
	}
}

// CONTRACT.md §6.8: completion rounds half up.
func TestCompletionPctRoundsHalfUp(t *testing.T) {
	t.Parallel()
	cases := []struct {
		settled, total, want int
	}{
		{0, 0, 0}, {1, 3, 33}, {2, 3, 67}, {1, 8, 13}, {1, 200, 1}, {1, 201, 0}, {4, 4, 100}, {1, 4, 25},
	}
	for _, c := range cases {
		var es []Entry
		for i := 0; i < c.total; i++ {
			st := Pending
			if i < c.settled {
				st = Cancelled // cancelled settles like completed
			}
			es = append(es, Entry{Content: "x", Status: st})
		}
		if got := NewLedger().Replace(es).CompletionPct; got != c.want {
			t.Errorf("%d/%d settled: pct = %d, want %d", c.settled, c.total, got, c.want)
		}
	}
}

func TestSnapshotJSONOmitsEmptyItemsAndAbsentActiveItem(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		es   []Entry
		want string
	}{
		{"empty", nil, `{"completion_pct":0}`},
		{"no active", entries("a", "completed"), `{"items":[{"id":1,"content":"a","status":"completed"}],"completion_pct":100}`},
		{"active", entries("a", "in_progress"), `{"items":[{"id":1,"content":"a","status":"in_progress"}],"completion_pct":0,"in_progress_id":1}`},
	}
	for _, c := range cases {
		got, _ := json.Marshal(NewLedger().Replace(c.es))
		if string(got) != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestAddAndSetStatusGoThroughTheSameList(t *testing.T) {
	t.Parallel()
	l := NewLedger()
	l.Replace(entries("a", "in_progress"))
	item, snap := l.Add(Entry{Content: "b", Status: InProgress})
	if item.ID != 2 || snap.InProgressID != 2 || snap.Items[0].Status != Pending {
		t.Fatalf("add did not demote the earlier in-progress item: %+v", snap)
	}
	snap, ok := l.SetStatus(1, InProgress)
	if !ok || snap.InProgressID != 1 || snap.Items[1].Status != Pending {
		t.Fatalf("set status did not move the active item: %+v", snap)
	}
	if _, ok := l.SetStatus(9, Completed); ok {
		t.Fatal("SetStatus on an unknown id reported success")
	}
}

func TestRestoreValidatesBeforeReplacing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, data, err string
	}{
		{"zero id", `{"items":[{"id":0,"content":"a","status":"pending"}]}`, "To-do item IDs must be greater than zero"},
		{"negative id", `{"items":[{"id":-3,"content":"a","status":"pending"}]}`, "To-do item IDs must be greater than zero"},
		{"duplicate", `{"items":[{"id":4,"content":"a","status":"pending"},{"id":4,"content":"b","status":"pending"}]}`, "Duplicate To-do item ID 4"},
		{"two active", `{"items":[{"id":1,"content":"a","status":"in_progress"},{"id":2,"content":"b","status":"in_progress"}]}`, "Only one To-do item may be in progress"},
		{"bad status", `{"items":[{"id":1,"content":"a","status":"doing"}]}`, "unknown todo status 'doing'"},
	}
	for _, c := range cases {
		l := NewLedger()
		l.Replace(entries("keep", "pending"))
		err := l.RestoreJSON([]byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.err)
		}
		if s := l.Snapshot(); len(s.Items) != 1 || s.Items[0].Content != "keep" {
			t.Errorf("%s: a rejected restore changed the live list: %+v", c.name, s)
		}
	}
}

func TestRestoreRoundTripsAndContinuesNumbering(t *testing.T) {
	t.Parallel()
	l := NewLedger()
	if err := l.RestoreJSON([]byte(`{"items":[{"id":4,"content":" inspect ","status":"done"},{"id":9,"content":"patch","status":"in_progress"}],"completion_pct":0}`)); err != nil {
		t.Fatal(err)
	}
	snap := l.Snapshot()
	if snap.CompletionPct != 50 || snap.InProgressID != 9 || snap.Items[0].Status != Completed || snap.Items[0].Content != " inspect " {
		t.Fatalf("restored snapshot = %+v", snap)
	}
	if item, _ := l.Add(Entry{Content: "verify", Status: Pending}); item.ID != 10 {
		t.Fatalf("next id after restore = %d, want 10", item.ID)
	}
	saved, _ := json.Marshal(l)
	other := NewLedger()
	if err := other.RestoreJSON(saved); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(other)
	if string(again) != string(saved) {
		t.Fatalf("round trip changed the snapshot:\n%s\n%s", saved, again)
	}
}

func TestLedgerIsSafeForConcurrentWriters(t *testing.T) {
	t.Parallel()
	l := NewLedger()
	var published int
	var mu sync.Mutex
	l.OnChange(func(Snapshot) { mu.Lock(); published++; mu.Unlock() })
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				l.Add(Entry{Content: "x", Status: InProgress})
				_ = RenderWorkState(l.Snapshot())
			}
		}()
	}
	wg.Wait()
	snap := l.Snapshot()
	if len(snap.Items) != 400 || published != 400 {
		t.Fatalf("items = %d, published = %d; want 400 each", len(snap.Items), published)
	}
	active := 0
	for _, it := range snap.Items {
		if it.Status == InProgress {
			active++
		}
	}
	if active != 1 {
		t.Fatalf("%d items in progress after concurrent adds, want 1", active)
	}
}

package tui

import "testing"

func TestQueueKeepsOrderAndPutsAPulledEditBack(t *testing.T) {
	var q queue
	for _, s := range []string{"one", "two", "three"} {
		q.add(s)
	}
	if got := q.pull(); got != "three" || q.pulled != "three" || q.len() != 2 {
		t.Fatalf("pull = %q, pulled %q, len %d", got, q.pulled, q.len())
	}
	q.unpull()
	if q.pulled != "" || q.len() != 3 || q.items[0] != "three" {
		t.Fatalf("a cancelled edit goes back to the front: %q", q.items)
	}
	if text, ok := q.take(2); !ok || text != "one" {
		t.Fatalf("take(2) = %q %v", text, ok)
	}
	for _, n := range []int{0, -1, 3} {
		if _, ok := q.take(n); ok {
			t.Fatalf("take(%d) took a message from %q", n, q.items)
		}
	}
	if text, ok := q.next(); !ok || text != "three" {
		t.Fatalf("next = %q %v", text, ok)
	}
	if want := "Queued messages (1):\n  1. two"; q.list() != want {
		t.Fatalf("list = %q", q.list())
	}
	if n := q.clear(); n != 1 || q.len() != 0 || q.list() != "No queued messages." {
		t.Fatalf("clear dropped %d, left %q", n, q.items)
	}
	if _, ok := q.next(); ok {
		t.Fatal("an empty queue gave a message")
	}
}

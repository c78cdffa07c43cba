package engine_test

import (
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// README.md "Sessions": /compact summarises older turns through the model and keeps the two most recent turns
func TestCompactSummarisesOlderTurnsThroughTheModel(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text(strings.Repeat("first answer ", 200)), fakemodel.Text(strings.Repeat("second answer ", 200)),
		fakemodel.Text("third answer"), fakemodel.Text("SUMMARY: the user asked three things."), fakemodel.Text("after compaction"))
	h := newHarness(t, srv)
	h.turn("first question")
	h.turn("second question")
	h.turn("third question")
	before := len(srv.Requests()[2].Raw)
	h.eng.Submit(engine.CompactContext{Focus: "decisions"})
	var done engine.CompactionCompleted
	for ev := range h.eng.Events() {
		if f, ok := ev.(engine.CompactionFailed); ok {
			t.Fatalf("compaction failed: %s", f.Error)
		}
		if c, ok := ev.(engine.CompactionCompleted); ok {
			done = c
			break
		}
	}
	if done.Replaced != 2 || done.Kept != 4 || done.AfterEstimate >= done.BeforeEstimate {
		t.Errorf("completed %+v", done)
	}
	summaryReq := srv.Requests()[3]
	if stream, _ := summaryReq.Body["stream"].(bool); stream || summaryReq.Body["tools"] != nil ||
		!strings.Contains(summaryReq.LastUserText(), "first question") || !strings.Contains(summaryReq.LastUserText(), "Focus the summary on: decisions") {
		t.Errorf("summary request %s", summaryReq.Raw)
	}
	msgs := h.eng.Snapshot().Messages
	if !strings.HasPrefix(msgs[0].Text(), `<codewhale:compaction_summary replaced_messages="2" kept_messages="4">`) ||
		!strings.Contains(msgs[0].Text(), "SUMMARY: the user asked three things.") || msgs[1].Text() != "second question\n"+msgs[1].Content[1].Text {
		t.Errorf("history after compaction: %q / %q", msgs[0].Text(), msgs[1].Text())
	}
	h.turn("fourth question")
	after := srv.Requests()[4]
	if len(after.Raw) >= before || strings.Contains(string(after.Raw), "first answer") {
		t.Errorf("next request not smaller: %d >= %d", len(after.Raw), before)
	}
}

// CONTRACT.md §9.2: the step auto-compacts before its request once the estimate passes the threshold.
// README.md "Sessions": auto-compaction runs once the estimate passes the threshold
func TestAutoCompactionBeforeTheProviderRejects(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text(strings.Repeat("long answer ", 300)), fakemodel.Text(strings.Repeat("more ", 300)),
		fakemodel.Text("SUMMARY"), fakemodel.Text("fits now"))
	h := newHarness(t, srv, func(o *engine.Options) { o.ContextWindow = 7000; o.AutoCompactPercent = 70 })
	h.turn("one")
	h.turn("two")
	evs := h.turn("three")
	var started, completed bool
	for _, ev := range evs {
		switch ev.(type) {
		case engine.CompactionStarted:
			started = true
		case engine.CompactionCompleted:
			completed = true
		}
	}
	if !started || !completed || text(evs) != "fits now" {
		t.Fatalf("auto compaction: %v", describe(evs))
	}
	if _, ok := srv.Requests()[2].Body["stream"]; ok {
		t.Error("the summary request must come before the step's own request")
	}
}

func TestNothingToCompactLeavesHistory(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("only"))
	h := newHarness(t, srv)
	h.turn("hi")
	h.eng.Submit(engine.CompactContext{})
	for ev := range h.eng.Events() {
		if f, ok := ev.(engine.CompactionFailed); ok {
			if !strings.Contains(f.Error, "not enough history") {
				t.Errorf("error %q", f.Error)
			}
			break
		}
	}
	if len(srv.Requests()) != 1 || len(h.eng.Snapshot().Messages) != 2 {
		t.Error("history changed")
	}
}

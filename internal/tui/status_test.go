package tui

import (
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
)

func TestStatusLineExpiresBySeverityAndErrorsStay(t *testing.T) {
	now := time.Unix(1000, 0)
	s := statusLine{now: func() time.Time { return now }}
	if s.set("saved", sevInfo) == nil {
		t.Fatal("an info toast schedules no expiry")
	}
	now = now.Add(infoToast - time.Millisecond)
	if text, _ := s.current(); text != "saved" {
		t.Fatalf("before its 4 s: %q", text)
	}
	now = now.Add(2 * time.Millisecond)
	if text, _ := s.current(); text != "" {
		t.Fatalf("after its 4 s: %q", text)
	}
	if s.set("boom", sevError) != nil {
		t.Fatal("an error schedules an expiry")
	}
	now = now.Add(time.Hour)
	s.clearToast()
	if text, sev := s.current(); text != "boom" || sev != sevError {
		t.Fatalf("an error after a turn ended well: %q %v", text, sev)
	}
	s.clearIf("other")
	if text, _ := s.current(); text != "boom" {
		t.Fatal("clearIf took another text")
	}
	s.clearError()
	if text, _ := s.current(); text != "" {
		t.Fatalf("a new turn kept the error: %q", text)
	}
	s.retrying(engine.Retry{Attempt: 1, Wait: 10 * time.Second})
	first, _ := s.current()
	now = now.Add(5 * time.Second)
	if later, sev := s.current(); later == first || sev != sevWarning {
		t.Fatalf("a retry's wait does not count down: %q then %q (%v)", first, later, sev)
	}
}

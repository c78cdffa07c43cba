package views_test

import (
	"testing"

	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

func TestStackDropsApprovalsAndKeepsTheRestInOrder(t *testing.T) {
	var s views.Stack
	if s.Top() != nil || s.TopApproval() != nil || s.HasApproval() {
		t.Fatal("an empty stack has a view")
	}
	s.Pop() // popping nothing is harmless
	help := views.NewPager(theme.Plain(), "help", "body")
	card := views.NewApproval(theme.Plain(), request("Bash", "Bash", map[string]any{"command": "ls"}), true)
	params := views.NewPager(theme.Plain(), "params", "{}")
	s.Push(help)
	s.Push(card)
	if s.TopApproval() != card {
		t.Fatalf("top approval = %v, want the card", s.TopApproval())
	}
	s.Push(params)
	if s.TopApproval() != nil || !s.HasApproval() || len(s.Approvals()) != 1 {
		t.Fatalf("a pager over the card: top approval %v, has %v, approvals %d", s.TopApproval(), s.HasApproval(), len(s.Approvals()))
	}
	s.DropApprovals()
	if s.HasApproval() || s.Top() != params {
		t.Fatalf("after dropping: has %v, top %v", s.HasApproval(), s.Top())
	}
	s.Pop()
	if s.Top() != help {
		t.Fatalf("under the params pager: %v, want help", s.Top())
	}
	s.Pop()
	if s.Top() != nil {
		t.Fatal("the stack is not empty")
	}
}

func TestStackQueuesWaitingRequestsAndDropsThemWithTheCards(t *testing.T) {
	var s views.Stack
	if !s.ComposerHasKeys() {
		t.Fatal("no view, yet the composer has no keys")
	}
	first := request("Bash", "Bash", map[string]any{"command": "ls"})
	second := request("File", "File", map[string]any{"action": "write"})
	s.Push(views.NewApproval(theme.Plain(), first, true))
	if s.ComposerHasKeys() {
		t.Fatal("a focused card leaves the keys to the composer")
	}
	s.Wait(second)
	if got, ok := s.NextWaiting(); !ok || got.ToolName != second.ToolName {
		t.Fatalf("next waiting = %v %v", got, ok)
	}
	if _, ok := s.NextWaiting(); ok {
		t.Fatal("a request was handed out twice")
	}
	s.Wait(second)
	s.DropApprovals()
	if _, ok := s.NextWaiting(); ok || s.HasApproval() {
		t.Fatal("a request outlived its turn")
	}
	s.Push(views.NewApproval(theme.Plain(), first, false))
	if !s.ComposerHasKeys() {
		t.Fatal("an unfocused card took the keys")
	}
	s.Push(views.NewPager(theme.Plain(), "p", "x"))
	if s.ComposerHasKeys() {
		t.Fatal("a pager left the keys to the composer")
	}
}

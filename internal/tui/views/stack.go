package views

import "github.com/codewhale/codewhale/internal/engine"

// Stack is the root model's modal views, bottom first: the top one takes
// the keys and draws over the composer or the whole screen.
type Stack struct {
	views []View
	// waiting are approval requests that came while a card was open, in
	// order: each opens when the one before it is answered.
	waiting []engine.ApprovalRequired
}

// Wait keeps req until the open card is answered.
func (s *Stack) Wait(req engine.ApprovalRequired) { s.waiting = append(s.waiting, req) }

// NextWaiting takes the oldest waiting request.
func (s *Stack) NextWaiting() (engine.ApprovalRequired, bool) {
	if len(s.waiting) == 0 {
		return engine.ApprovalRequired{}, false
	}
	next := s.waiting[0]
	s.waiting = s.waiting[1:]
	return next, true
}

// Top is the view on top, or nil.
func (s *Stack) Top() View {
	if len(s.views) == 0 {
		return nil
	}
	return s.views[len(s.views)-1]
}

// Push puts v on top.
func (s *Stack) Push(v View) { s.views = append(s.views, v) }

// Pop closes the top view, if any.
func (s *Stack) Pop() {
	if len(s.views) > 0 {
		s.views = s.views[:len(s.views)-1]
	}
}

// ComposerHasKeys reports whether keys reach the composer: no view, or a
// card on top that does not have the focus (CONTRACT.md §14.6).
func (s *Stack) ComposerHasKeys() bool {
	v := s.Top()
	if v == nil {
		return true
	}
	f := FocusOf(v)
	return f != nil && !f.Focused()
}

// TopApproval is the approval card on top, or nil.
func (s *Stack) TopApproval() *Approval {
	a, _ := s.Top().(*Approval)
	return a
}

// Approvals are the open approval cards, bottom first (a params pager
// may cover one).
func (s *Stack) Approvals() []*Approval {
	var out []*Approval
	for _, v := range s.views {
		if a, ok := v.(*Approval); ok {
			out = append(out, a)
		}
	}
	return out
}

// DropApprovals closes every approval card, forgets the waiting requests
// (their turn is over) and keeps the other views in their order.
func (s *Stack) DropApprovals() {
	s.waiting = nil
	kept := s.views[:0]
	for _, v := range s.views {
		if _, ok := v.(*Approval); !ok {
			kept = append(kept, v)
		}
	}
	clear(s.views[len(kept):])
	s.views = kept
}

// HasApproval reports whether an approval card is open anywhere.
func (s *Stack) HasApproval() bool {
	for _, v := range s.views {
		if _, ok := v.(*Approval); ok {
			return true
		}
	}
	return false
}

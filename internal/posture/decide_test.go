package posture

import "testing"

// Every posture × need × host, as CONTRACT.md §12.6 and issue 11 settle it:
// --auto approves only what its posture would prompt for.
func TestDecide(t *testing.T) {
	t.Parallel()
	tui, headless, auto := Host{Interactive: true}, Host{}, Host{AutoApprove: true}
	tests := []struct {
		p    Posture
		n    Need
		h    Host
		want Disposition
	}{
		{Ask, NeedSuggest, tui, Prompt},
		{Ask, NeedRequired, tui, Prompt},
		{Ask, NeedExplicit, tui, Prompt},
		{Ask, NeedHold, tui, Prompt},
		{Ask, NeedRequired, headless, DeniedHeadless},
		{Ask, NeedExplicit, headless, DeniedHeadless},
		{Ask, NeedSuggest, auto, AutoApprove},
		{Ask, NeedRequired, auto, AutoApprove},
		{Ask, NeedExplicit, auto, DeniedHeadless},
		{Ask, NeedHold, auto, DeniedHeadless},
		{Ask, NeedExplicit, Host{Interactive: true, AutoApprove: true}, Prompt},
		{AutoReview, NeedSuggest, tui, AutoApprove},
		{AutoReview, NeedRequired, tui, HeldAutoReview},
		{AutoReview, NeedRequired, auto, HeldAutoReview},
		{AutoReview, NeedExplicit, auto, HeldAutoReview},
		{FullAccess, NeedRequired, headless, AutoApprove},
		{FullAccess, NeedExplicit, headless, AutoApprove},
		{FullAccess, NeedHold, auto, BlockedFullAccess},
		{FullAccess, NeedHold, tui, BlockedFullAccess},
		{AutoReview, NeedHold, tui, HeldAutoReview},
		{Ask, NeedHold, headless, DeniedHeadless},
		{Ask, NeedHold, Host{Interactive: true, AutoApprove: true}, Prompt},
		{Never, NeedSuggest, tui, DeniedNever},
		{Never, NeedRequired, auto, DeniedNever},
	}
	for _, tt := range tests {
		if got := Decide(tt.p, tt.n, tt.h); got != tt.want {
			t.Errorf("Decide(%v, %v, %+v) = %v, want %v", tt.p, tt.n, tt.h, got, tt.want)
		}
	}
}

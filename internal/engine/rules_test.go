package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/permissions"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
)

func ruleSet(t *testing.T, body string) *permissions.Set {
	t.Helper()
	p := filepath.Join(t.TempDir(), permissions.FileName)
	if body != "" {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := permissions.Load(p, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The evaluation order: deny > protected path > ask > allow > posture
// default, under each posture.
// README.md "Permission rules": deny > protected path > ask > allow > posture default: deny holds in Full Access, allow beats Never and skips the prompt headless, ask holds in Full Access, an allow does not lift a protected path.
func TestPermissionRulesOrder(t *testing.T) {
	t.Parallel()
	const (
		deny  = "[[rules]]\naction = \"deny\"\ntool = \"Guarded\"\n"
		ask   = "[[rules]]\naction = \"ask\"\ntool = \"Guarded\"\n"
		allow = "[[rules]]\naction = \"allow\"\ntool = \"Guarded\"\n"
	)
	tests := []struct {
		name    string
		rules   string
		need    tools.Approval
		posture posture.Posture
		auto    bool
		ran     bool
		want    string
	}{
		{"deny holds in Full Access", deny + allow, tools.Required, posture.FullAccess, true, false, "denied by the permission rule"},
		{"deny beats a later allow", allow + deny, tools.Auto, posture.Ask, true, false, "denied by the permission rule"},
		{"allow skips the prompt headless", allow, tools.Required, posture.Ask, false, true, "wrote it"},
		{"allow beats Never", allow, tools.Required, posture.Never, false, true, "wrote it"},
		{"allow does not lift a protected path", allow, tools.Explicit, posture.Ask, true, false, "needs explicit approval"},
		{"ask beats allow", allow + ask, tools.Required, posture.Ask, true, false, "asks for a person's approval"},
		{"ask holds in Full Access", ask, tools.Auto, posture.FullAccess, true, false, "is blocked in Full Access"},
		{"protected path is not widened to a hold by ask", ask, tools.Explicit, posture.FullAccess, false, true, "wrote it"},
		{"no rule: posture default", "", tools.Required, posture.Ask, true, true, "wrote it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newGuarded(tt.need)
			rules := ruleSet(t, tt.rules)
			srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "g1", Name: "Guarded", Args: `{"path":"x"}`}),
				fakemodel.Text("done"))
			h := newHarness(t, srv, func(o *engine.Options) {
				o.Posture, o.Interactive, o.AutoApprove, o.Permissions = tt.posture, false, tt.auto, rules
				o.Tools = g.toolset
			})
			evs := h.turn("go")
			res, _ := last[engine.ToolCallComplete](evs)
			if (g.ran.Load() == 1) != tt.ran || !strings.Contains(res.Result.Content, tt.want) {
				t.Errorf("ran=%d content=%q; want ran=%v and %q", g.ran.Load(), res.Result.Content, tt.ran, tt.want)
			}
		})
	}
}

// "Always allow this" writes the exact rule; the next identical call runs
// without a card, a different one still asks.
// README.md "Permission rules": s on the card writes the exact rule; the next identical call runs without a card, a different one still asks.
func TestSaveRuleFromTheCard(t *testing.T) {
	t.Parallel()
	g := newGuarded(tools.Required)
	rules := ruleSet(t, "")
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "g1", Name: "Guarded", Args: `{"path":"a.txt"}`}), fakemodel.Text("one"),
		fakemodel.Tools(fakemodel.Call{ID: "g2", Name: "Guarded", Args: `{"path":"a.txt"}`}), fakemodel.Text("two"),
		fakemodel.Tools(fakemodel.Call{ID: "g3", Name: "Guarded", Args: `{"path":"b.txt"}`}), fakemodel.Text("three"))
	h := newHarness(t, srv, func(o *engine.Options) {
		o.Posture, o.Interactive, o.AutoApprove, o.Permissions = posture.Ask, true, false, rules
		o.Tools = g.toolset
	})
	var saved []string
	cards := h.approveEachSeeing(engine.ApproveToolCall{SaveRule: true}, func(ev engine.Event) {
		if st, ok := ev.(engine.Status); ok && strings.HasPrefix(st.Message, "Saved permission rule") && st.Keep {
			saved = append(saved, st.Message)
		}
	}, "one", "two", "three")
	if len(cards) != 2 || cards[0].SaveRule == "" || !strings.Contains(cards[0].SaveRule, `path="a.txt"`) {
		t.Fatalf("cards %+v", cards)
	}
	// Each save says what was saved and where, in a notice that stays.
	file := string(filepath.Separator) + permissions.FileName
	if len(saved) != 2 || !strings.Contains(saved[0], cards[0].SaveRule) || !strings.Contains(saved[0], file+" rule 1") ||
		!strings.Contains(saved[1], file+" rule 2") {
		t.Errorf("save notices %q", saved)
	}
	if g.ran.Load() != 3 || len(rules.Rules()) != 2 {
		t.Errorf("ran %d, rules %v", g.ran.Load(), rules.Rules())
	}
}

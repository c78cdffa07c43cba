package app

// CONTRACT.md §15: the settled decisions. The tests below check the items no
// other test proves (or proves only in part); the rest are proven where
// their behaviour lives, as listed here for reviewers.
//
// CONTRACT.md §15 item 1: TestDefaultActiveSets in internal/toolset
// CONTRACT.md §15 item 2: TestDefaultActiveSets in internal/toolset
// CONTRACT.md §15 item 3: TestUnknownRemovedAndNearMissNamesNeverDispatch in internal/engine, TestContract33UnknownNameHints in internal/toolset
// CONTRACT.md §15 item 4: TestContractExecMaxTurns in cmd/codewhale (default 100, budget_exhausted), TestMaxStepsIsReported in internal/engine
// CONTRACT.md §15 item 5: TestContract15StrictToolModeNeverForcesToolChoice below, TestContract92StrictModeTightensWhatItCan in internal/engine, TestBetaAndStrictOnTheWire in internal/provider
// CONTRACT.md §15 item 6: TestNextStartStopsWhatACrashedRunLeft in internal/jobs (stale), TestContract12_1SilentIsAFlagOfARunningJob in internal/jobs (silent), TestListShowsRunningFirstWithExactLayout in internal/tui/jobsview (exit=0), TestContract15JobsSilentAfterSixtySeconds below
// CONTRACT.md §15 item 7: TestContract11DigestCanonicalJSON in internal/engine, TestToolsReceiptDigestMatchesFirstRequest in cmd/codewhale
// CONTRACT.md §15 item 8: TestExecInterruptExits130 and TestContractExecSignalsExit128PlusN (session saved) in cmd/codewhale, TestContract15CancelledTurnIsNotAnError in internal/tui
// CONTRACT.md §15 item 9: TestProviderKeysNeverCrossHosts in cmd/codewhale (bound origin, loopback without the key), TestDebugLogsMetadataNotBodies in cmd/codewhale (never logged), TestToolOutputSecretsAreRedactedEndToEnd in cmd/codewhale (never saved), TestNoKeyNeededOnLoopbackButRequiredElsewhere in internal/provider
// CONTRACT.md §15 item 10: TestContract135ToolsTextAndNoProvider in cmd/codewhale
// CONTRACT.md §15 item 11: TestContractExecFlagsThatSelectAgentMode in cmd/codewhale, TestExecInterruptExits130 in cmd/codewhale
// CONTRACT.md §15 item 12: TestRegistryResolvesExactNamesOnly in internal/tools
// CONTRACT.md §15 item 13: TestContract24ActionFamilies (alias folding), TestContract23StrictReading (exact messages) and TestContract23SchemaValidation (schema) in internal/tools
// CONTRACT.md §15 item 14: TestGitDifferentialFixture in internal/tools/git
// CONTRACT.md §15 item 15: TestGoTestsReportCountsAndFailures, TestPytest and TestCargoTests in internal/tools/run
// CONTRACT.md §15 item 16: TestList (depth default 1, at most 5, .gitignore) and TestSearchContent (literal) in internal/tools/file
// CONTRACT.md §15 item 17: TestContract15WaitDefaultsToFiveSecondsAndZeroPolls in internal/tools/bash, TestBackgroundWaitInteractCancel in internal/tools/bash
// CONTRACT.md §15 item 18: TestContract67OneJSONFilePerTaskPlusTheQueueFile in internal/tools/tasks
// CONTRACT.md §15 item 19: TestJobsCommandListsALiveJob in internal/tui, TestFlowToolsJSONAfterARequest in internal/tui
// CONTRACT.md §15 item 20: TestFollowScrollAndNewOutputMarker in internal/tui/transcript, TestContract15EndStaysAComposerKey in internal/tui
// CONTRACT.md §15 item 21: TestModelToolName in internal/mcpname, TestToolNamesAreEncodedReversibly in internal/provider
// CONTRACT.md §15 item 22: TestEachResultIsSavedAsItCompletes in internal/engine, TestSIGKILLLosesAtMostThePartialMessage in internal/session
// CONTRACT.md §15 item 23: TestContract15SessionsAreKeptByDefault below, TestPrune in internal/session
// CONTRACT.md §15 item 24: TestContract15RetriedStatusesAreExactlyTheListedOnes below, TestFaultScripts in internal/provider (streams that break or stall), TestStatus499IsRetried in internal/engine
// CONTRACT.md §15 item 25: TestCapabilityLabelsAreSnakeCase in internal/tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// contractApp is a session against srv in a fresh home and workspace, with
// configToml as its user config; journal keeps the session on disk.
func contractApp(t *testing.T, srv *fakemodel.Server, configToml string, journal bool) (*App, string) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	cwHome := filepath.Join(home, ".codewhale")
	if err := os.MkdirAll(cwHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwHome, "config.toml"), []byte(configToml), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "CODEWHALE_HOME": cwHome, "CODEWHALE_BASE_URL": srv.URL,
		"CODEWHALE_TASKS_DIR": filepath.Join(home, "tasks")}
	cfg, err := config.Load(config.Flags{Workspace: ws}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	mode := posture.Act
	a, err := New(cfg, Options{Version: "test", Mode: &mode, NoMCP: true, NoJournal: !journal})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	a.Sandbox = nil
	return a, cwHome
}

func runContractTurn(t *testing.T, a *App, prompt string) engine.Reply {
	t.Helper()
	a.Start(context.Background(), a.EngineOptions())
	reply, err := a.RunTurn(context.Background(), engine.SendMessage{Content: prompt, Provenance: engine.ProvenanceUser}, nil)
	if err != nil || reply.Done.Status != engine.TurnCompleted {
		t.Fatalf("turn: %+v %v", reply.Done, err)
	}
	return reply
}

// CONTRACT.md §15.5: strict_tool_mode marks tools strict and never forces
// tool_choice "required": the request says "auto" as without it (or, with
// thinking on, leaves tool_choice out as the wire always does).
func TestContract15StrictToolModeNeverForcesToolChoice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		effort string
		choice any // nil: left out
	}{{"off", "auto"}, {"high", nil}} {
		for _, strict := range []bool{false, true} {
			srv := fakemodel.New(t, fakemodel.Text("ok"))
			toml := "reasoning_effort = \"" + tc.effort + "\"\n"
			if strict {
				toml += "strict_tool_mode = true\n"
			}
			a, _ := contractApp(t, srv, toml, false)
			runContractTurn(t, a, "hi")
			body := srv.Requests()[0].Body
			if got, present := body["tool_choice"]; got != tc.choice || (tc.choice == nil && present) {
				t.Errorf("effort %s, strict %v: tool_choice %v (present %v), want %v", tc.effort, strict, got, present, tc.choice)
			}
			marked := 0
			for _, tl := range body["tools"].([]any) {
				if tl.(map[string]any)["function"].(map[string]any)["strict"] == true {
					marked++
				}
			}
			if strict && marked == 0 || !strict && marked != 0 {
				t.Errorf("effort %s, strict %v: %d tools marked strict", tc.effort, strict, marked)
			}
		}
	}
}

// CONTRACT.md §15.6: a running job is silent after 60 s without output
// (the behaviour is tested in internal/jobs against this constant), and an
// exit code prints as the plain integer of exit=0.
func TestContract15JobsSilentAfterSixtySeconds(t *testing.T) {
	t.Parallel()
	if jobs.DefaultSilentAfter != 60*time.Second {
		t.Errorf("silent after %s, want 60s", jobs.DefaultSilentAfter)
	}
	zero, two := 0, 2
	if got := "exit=" + jobs.ExitLabel(&zero); got != "exit=0" {
		t.Errorf("exit code 0 prints %q", got)
	}
	if jobs.ExitLabel(&two) != "2" || jobs.ExitLabel(nil) != "-" {
		t.Errorf("labels %q %q", jobs.ExitLabel(&two), jobs.ExitLabel(nil))
	}
}

// CONTRACT.md §15.23: with no [session_retention] every saved session is
// kept, however old; pruning happens only when the user configures it.
// README.md "Sessions": sessions are kept until you prune them
func TestContract15SessionsAreKeptByDefault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, toml string
		kept       []string
	}{
		{"default", "", []string{"old-1", "old-2", "old-3"}},
		{"opted in", "[session_retention]\nmax_age_days = 30\n", nil},
	} {
		srv := fakemodel.New(t, fakemodel.Text("ok"))
		a, home := contractApp(t, srv, tc.toml, true)
		old := time.Now().Add(-400 * 24 * time.Hour)
		for _, id := range []string{"old-1", "old-2", "old-3"} {
			j := session.NewJournal(home, session.Options{Now: func() time.Time { return old }})
			info := engine.SessionInfo{ID: id, Model: "deepseek-v4-pro", Workspace: a.Cfg.Workspace, Mode: posture.Act}
			if err := j.Append(info, provider.UserText("work on "+id)); err != nil {
				t.Fatal(err)
			}
			j.Close()
		}
		runContractTurn(t, a, "a new session")
		ms, err := session.List(home, session.Query{Archived: true})
		if err != nil {
			t.Fatal(err)
		}
		var old3 []string
		for _, m := range ms {
			if strings.HasPrefix(m.ID, "old-") {
				old3 = append(old3, m.ID)
			}
		}
		slices.Sort(old3)
		if !slices.Equal(old3, tc.kept) || len(ms) != len(tc.kept)+1 {
			t.Errorf("%s: %d sessions left, old ones %v; want %v and the new one", tc.name, len(ms), old3, tc.kept)
		}
	}
}

// CONTRACT.md §15.24: the client retries exactly HTTP 429, 499, 500, 502,
// 503 and 504; every other 4xx and 5xx is sent once.
func TestContract15RetriedStatusesAreExactlyTheListedOnes(t *testing.T) {
	t.Parallel()
	retried := []int{429, 499, 500, 502, 503, 504}
	for status := 400; status <= 599; status++ {
		srv := fakemodel.New(t, fakemodel.Reply{Status: status, Body: "scripted"}, fakemodel.Text("ok"))
		c, err := provider.New(provider.Config{BaseURL: srv.URL, Model: "deepseek-v4-pro", Retry: provider.RetryPolicy{
			Enabled: true, MaxRetries: 1, InitialDelay: time.Millisecond, MaxDelay: time.Millisecond, ExponentialBase: 2,
			MaxRetryAfter: time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), &provider.Request{Model: "deepseek-v4-pro", MaxTokens: 100,
			Messages: []provider.Message{provider.UserText("hi")}})
		want := 1
		if slices.Contains(retried, status) {
			want = 2
		}
		if n := len(srv.Requests()); n != want || (want == 2) != (err == nil) {
			t.Errorf("HTTP %d: %d attempts (err %v), want %d", status, n, err, want)
		}
	}
}

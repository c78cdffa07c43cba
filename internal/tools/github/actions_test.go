package github

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakegithub"
	"github.com/codewhale/codewhale/internal/tools"
)

func TestIssueContextThroughRealGH(t *testing.T) {
	t.Parallel()
	f := fakegithub.New(t)
	tool, _ := newGH(t, f, false)
	res, approval, err := run(t, tool, `{"action":"issue_context","number":1,"repo":"octo/widgets"}`)
	if err != nil {
		t.Fatal(err)
	}
	if approval != tools.Auto {
		t.Errorf("approval %v", approval)
	}
	var c Context
	if err := json.Unmarshal([]byte(res.Content), &c); err != nil {
		t.Fatal(err)
	}
	if c.Title != "Parser panics on empty input" || c.Author != "reporter" || strings.Join(c.Labels, ",") != "bug,parser" ||
		c.Milestone != "v1.2" || c.State != "open" || c.IsPullRequest || !strings.Contains(c.Body, "index out of range") {
		t.Errorf("context %+v", c)
	}
	if c.CommentCount != 3 || len(c.Comments) != 3 || c.Comments[2].Author != "contributor" {
		t.Errorf("pagination lost comments: %+v", c.Comments)
	}
	// The same through the URL form and the replay alias.
	alias := Aliases(tool)[0]
	res2, _, err := run(t, alias, `{"url":"https://`+f.Host()+`/octo/widgets/issues/1"}`)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Content != res.Content {
		t.Errorf("alias differs:\n%s\n%s", res2.Content, res.Content)
	}
}

// README.md "Web and GitHub": pr_context returns the pull request's files, checks and diff.
func TestPRContext(t *testing.T) {
	t.Parallel()
	f := fakegithub.New(t)
	tool, _ := newGH(t, f, true)
	res, _, err := run(t, tool, `{"action":"pr_context","number":2,"repo":"octo/widgets"}`)
	if err != nil {
		t.Fatal(err)
	}
	var pr struct {
		Title   string
		Head    string
		Base    string
		Files   []File
		Checks  Checks
		Diff    string
		IsPR    bool `json:"is_pull_request"`
		Changed int  `json:"changed_files"`
	}
	if err := json.Unmarshal([]byte(res.Content), &pr); err != nil {
		t.Fatal(err)
	}
	if pr.Title != "Return an error on empty input" || pr.Head != "fix-empty" || pr.Base != "main" || !pr.IsPR || pr.Changed != 2 {
		t.Errorf("%+v", pr)
	}
	if len(pr.Files) != 2 || pr.Files[1].Filename != "parse_test.go" || pr.Files[1].Status != "added" {
		t.Errorf("files %+v", pr.Files)
	}
	c := pr.Checks
	if c.State != "failure" || c.Total != 4 || c.Passing != 2 || strings.Join(c.Failing, ",") != "lint (failure)" ||
		strings.Join(c.Pending, ",") != "test (windows)" {
		t.Errorf("checks %+v", c)
	}
	if !strings.HasPrefix(pr.Diff, "diff --git a/parse.go b/parse.go") || !strings.Contains(pr.Diff, `+		return Node{}, errors.New("parse: empty input")`) {
		t.Errorf("diff %q", pr.Diff)
	}
}

func TestCommentNeedsApprovalAndPosts(t *testing.T) {
	t.Parallel()
	f := fakegithub.New(t)
	tool, _ := newGH(t, f, false)
	res, approval, err := run(t, tool, `{"action":"comment","number":1,"repo":"octo/widgets","body":"Fixed in **abc123**."}`)
	if err != nil || approval != tools.Required {
		t.Fatalf("%v %v", err, approval)
	}
	if !strings.Contains(res.Content, `"posted":true`) || !strings.Contains(res.Content, "issuecomment-5009") {
		t.Errorf("%s", res.Content)
	}
	last := f.LastBody()
	if last != `{"body":"Fixed in **abc123**."}` {
		t.Errorf("posted body %q", last)
	}
}

// README.md "Web and GitHub": close posts the evidence as a comment and then closes.
func TestCloseWithEvidence(t *testing.T) {
	t.Parallel()
	f := fakegithub.New(t)
	tool, _ := newGH(t, f, false)
	ev := `"files_changed":["parse.go","parse_test.go"],"tests_run":["go test ./... (pass)"],"final_status":"Fixed in abc123",` +
		`"acceptance_criteria":[{"criterion":"empty input returns an error","met":true,"evidence":"TestParseEmpty"}]`
	// A dry run changes nothing and needs no approval.
	res, approval, err := run(t, tool, `{"action":"close_issue","number":1,"repo":"octo/widgets","dry_run":true,`+ev+`}`)
	if err != nil || approval != tools.Auto {
		t.Fatalf("%v %v", err, approval)
	}
	if !strings.Contains(res.Content, `"dry_run":true`) || !strings.Contains(res.Content, `- [x] empty input returns an error — TestParseEmpty`) {
		t.Errorf("%s", res.Content)
	}
	for _, c := range f.Calls() {
		if !strings.HasPrefix(c, "GET ") {
			t.Fatalf("dry run wrote: %s", c)
		}
	}
	res, approval, err = run(t, tool, `{"action":"close_issue","number":1,"repo":"octo/widgets",`+ev+`}`)
	if err != nil || approval != tools.Required || !strings.Contains(res.Content, `"closed":true`) {
		t.Fatalf("%v %v %s", err, approval, res.Content)
	}
	calls := strings.Join(f.Calls(), "\n")
	if !strings.Contains(calls, "POST /repos/octo/widgets/issues/1/comments") || !strings.Contains(calls, "PATCH /repos/octo/widgets/issues/1") {
		t.Errorf("calls:\n%s", calls)
	}
	patch := f.LastBody()
	if patch != `{"state":"closed","state_reason":"completed"}` {
		t.Errorf("patch body %q", patch)
	}
}

// README.md "Web and GitHub": close_issue/close_pr refuse without the evidence they need.
func TestCloseRefusesWithoutEvidence(t *testing.T) {
	t.Parallel()
	f := fakegithub.New(t)
	tool, _ := newGH(t, f, false)
	for in, want := range map[string]string{
		`{"action":"close_issue","number":1,"repo":"octo/widgets"}`:                       "closing needs `final_status`",
		`{"action":"close_issue","number":1,"repo":"octo/widgets","final_status":"done"}`: "needs evidence: files_changed, tests_run, acceptance_criteria",
		`{"action":"close_issue","number":1,"repo":"octo/widgets","final_status":"done","files_changed":[],"tests_run":[" "],"acceptance_criteria":[{"criterion":"works","met":true}]}`:                     "needs evidence: files_changed, tests_run",
		`{"action":"close_issue","number":1,"repo":"octo/widgets","final_status":"done","files_changed":["a.go"],"tests_run":["go test (pass)"],"acceptance_criteria":[{"criterion":"works","met":false}]}`: `acceptance criterion "works" is not met`,
	} {
		_, _, err := run(t, tool, in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	if len(f.Calls()) != 0 {
		t.Errorf("refused closes reached GitHub: %v", f.Calls())
	}
}

// A half-done close is reported as a failure, never a success.
func TestCloseReportsPartialFailure(t *testing.T) {
	t.Parallel()
	f := fakegithub.New(t)
	f.Fail["PATCH /repos/octo/widgets/issues/1"] = 500
	tool, _ := newGH(t, f, false)
	res, _, err := run(t, tool, `{"action":"close_issue","number":1,"repo":"octo/widgets","reason":"wont_do","final_status":"duplicate of #7"}`)
	if err != nil || res.Success || !strings.Contains(res.Content, "the evidence comment was posted") || !strings.Contains(res.Content, "still open") {
		t.Fatalf("%v %+v", err, res)
	}
}

// README.md "Web and GitHub": a missing gh gives an error naming the fix.
func TestGHMissing(t *testing.T) {
	t.Parallel()
	missing := New(Options{GH: "/nonexistent/gh"})
	_, _, err := run(t, missing, `{"action":"issue_context","number":1,"repo":"octo/widgets"}`)
	if err == nil || !strings.Contains(err.Error(), "the GitHub CLI `gh` is not installed") || !strings.Contains(err.Error(), "gh auth login") {
		t.Errorf("missing gh: %v", err)
	}
}

// README.md "Web and GitHub": an unauthenticated gh gives an error naming gh auth login.
func TestGHUnauthenticated(t *testing.T) {
	t.Parallel()
	f := fakegithub.New(t)
	tool := New(Options{GH: ghBinary(t), Env: f.Env(t, "wrong-token"), Hosts: []string{f.Host()}})
	_, _, err := run(t, tool, `{"action":"issue_context","number":1,"repo":"octo/widgets"}`)
	if err == nil || !strings.Contains(err.Error(), "gh is not authenticated") || !strings.Contains(err.Error(), "gh auth login") {
		t.Errorf("got %v", err)
	}
}

func TestInputErrors(t *testing.T) {
	t.Parallel()
	tool := New(Options{GH: "/bin/false"})
	for in, want := range map[string]string{
		`{"number":1}`:                                        "github: missing `action` (one of: issue_context, pr_context, comment, close_issue, close_pr)",
		`{"action":"merge","number":1}`:                       "github: invalid action `merge`",
		`{"action":"issue_context"}`:                          "pass `number`",
		`{"action":"issue_context","number":1,"repo":"../x"}`: "repo must be owner/name",
		`{"action":"issue_context","url":"https://github.com/octo/widgets/wiki/1"}`: "is not an issue or pull request URL",
		`{"action":"issue_context","number":0}`:                                     "arguments do not match the tool's schema: ",
		`{"action":"comment","number":1}`:                                           "missing required field 'body'. Input provided: action, number",
		`{"action":"close_issue","number":1,"reason":"never"}`:                      "arguments do not match the tool's schema: ",
		`{"action":"close_issue","number":1,"acceptance_criteria":[{"met":true}]}`:  "arguments do not match the tool's schema: ",
	} {
		_, _, err := run(t, tool, in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	ro := New(Options{ReadOnly: true, GH: "/bin/false"})
	_, _, err := run(t, ro, `{"action":"comment","number":1,"body":"x"}`)
	if err == nil || !strings.Contains(err.Error(), "github: invalid action `comment` (one of: issue_context, pr_context)") {
		t.Errorf("read-only: %v", err)
	}
	_, _, err = run(t, ro, `{"action":"issue_context","number":1,"body":"x"}`)
	if err == nil || !strings.Contains(err.Error(), "github issue_context does not take `body`; nothing was run.") {
		t.Errorf("read-only, a write key: %v", err)
	}
}

// Reads and close dry runs are Auto and read-only; what posts or closes is
// Required, whatever the rest of the input says.
// README.md "Web and GitHub": issue_context and pr_context need no approval; comment and close need approval.
func TestPolicyPerAction(t *testing.T) {
	t.Parallel()
	tool := New(Options{GH: "/bin/false"})
	for in, auto := range map[string]bool{
		`{"action":"issue_context","number":1}`:                         true,
		`{"action":"pr_context","url":"https://github.com/o/r/pull/1"}`: true,
		`{"action":"close_issue","number":1,"dry_run":true}`:            true,
		`{"action":"close_pr","number":1,"dry_run":true}`:               true,
		`{"action":"comment","number":1,"body":"x"}`:                    false,
		`{"action":"close_issue","number":1}`:                           false,
		`{"action":"close_pr","number":1,"dry_run":false}`:              false,
	} {
		c, err := tools.PrepareCall(tool, json.RawMessage(in))
		want := tools.Policy{Approval: tools.Required}
		if auto {
			want = tools.Policy{Approval: tools.Auto, ReadOnly: true, Parallel: true}
		}
		if err != nil || c.Policy != want {
			t.Errorf("%s: %+v %v", in, c, err)
		}
	}
}

// A thread too long for the budget comes back inside it, with the newest
// comments inline and the whole thread behind a handle.
func TestLongThreadFitsTheBudget(t *testing.T) {
	t.Parallel()
	f := fakegithub.New(t)
	tool, store := newGH(t, f, true)
	reg := tools.NewRegistry()
	reg.Register(tool)
	call, err := reg.Prepare(ToolName, []byte(`{"action":"issue_context","number":3,"repo":"octo/widgets"}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := call.Run(context.Background(), &tools.Context{Budget: 48000})
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(res.Content)); n > 48000 {
		t.Fatalf("%d characters over a 48000 budget", n)
	}
	var c struct {
		Comments []Comment
		Handle   struct {
			SessionID string `json:"session_id"`
		} `json:"thread_handle"`
		Note string
	}
	if err := json.Unmarshal([]byte(res.Content), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Comments) == 0 || len(c.Comments) == 60 || c.Handle.SessionID == "" || !strings.Contains(c.Note, "of 60 comments (the newest)") {
		t.Fatalf("comments %d handle %q note %q", len(c.Comments), c.Handle.SessionID, c.Note)
	}
	full, ok := store.Get(c.Handle.SessionID, "thread")
	if !ok || strings.Count(full, "comment xxx") != 60 || strings.Count(full, "A very long issue body line.") != 4000 {
		t.Errorf("the handle does not hold the whole thread")
	}
}

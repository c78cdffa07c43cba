package github

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

func (t *Tool) comment(ctx context.Context, g *gh, r ref, d *tools.Decoded[contract]) (tools.Result, error) {
	if !d.Has("body") {
		return tools.Result{}, d.Missing("body")
	}
	body := d.In.Body
	if strings.TrimSpace(body) == "" {
		return tools.Result{}, tools.InvalidInput("github: comment needs a non-empty `body`")
	}
	url, err := postComment(ctx, g, r, body)
	if err != nil {
		return tools.Result{}, err
	}
	return jsonResult(map[string]any{"posted": true, "target": r.label(), "url": url},
		map[string]any{"number": r.number, "url": url})
}

func postComment(ctx context.Context, g *gh, r ref, body string) (string, error) {
	data, err := g.api(ctx, r, "POST", r.path(fmt.Sprintf("/issues/%d/comments", r.number)), apiOpts{body: map[string]string{"body": body}})
	if err != nil {
		return "", err
	}
	var c struct {
		HTMLURL string `json:"html_url"`
	}
	_ = json.Unmarshal(data, &c)
	return c.HTMLURL, nil
}

// evidence is what a close must carry.
type evidence struct {
	FilesChanged []string    `json:"files_changed"`
	TestsRun     []string    `json:"tests_run"`
	FinalStatus  string      `json:"final_status"`
	Criteria     []criterion `json:"acceptance_criteria"`
	Reason       string      `json:"reason"`
	DryRun       bool        `json:"dry_run"`
}

type criterion struct {
	Criterion string `json:"criterion"`
	Met       bool   `json:"met"`
	Evidence  string `json:"evidence,omitempty"`
}

// check refuses a close whose evidence is missing or admits a criterion is
// not met: a completed issue needs the files, tests, final status and
// every acceptance criterion met; a wont_do issue or a pull request
// needs at least the final status.
func (e *evidence) check(pr bool) error {
	if strings.TrimSpace(e.FinalStatus) == "" {
		return tools.InvalidInput("github: closing needs `final_status`: one line on the final state")
	}
	if pr || e.Reason == "wont_do" {
		return nil
	}
	// An empty list, or one of blank entries, is no evidence: a completed
	// issue names at least one changed file and one test or check run.
	var missing []string
	if !anyText(e.FilesChanged) {
		missing = append(missing, "files_changed")
	}
	if !anyText(e.TestsRun) {
		missing = append(missing, "tests_run")
	}
	if len(e.Criteria) == 0 {
		missing = append(missing, "acceptance_criteria")
	}
	if len(missing) > 0 {
		return tools.InvalidInput("github: close_issue (completed) needs evidence: %s (use reason=wont_do for an issue that will not be done)", strings.Join(missing, ", "))
	}
	for _, c := range e.Criteria {
		if strings.TrimSpace(c.Criterion) == "" {
			return tools.InvalidInput("github: every acceptance_criteria entry needs `criterion`")
		}
		if !c.Met {
			return tools.InvalidInput("github: not closing: acceptance criterion %q is not met", c.Criterion)
		}
	}
	return nil
}

// anyText reports whether list holds an entry that is not blank.
func anyText(list []string) bool {
	for _, s := range list {
		if strings.TrimSpace(s) != "" {
			return true
		}
	}
	return false
}

func (e *evidence) markdown(pr bool) string {
	var b strings.Builder
	what := "issue"
	if pr {
		what = "pull request"
	}
	fmt.Fprintf(&b, "Closing this %s.\n\n**Final status:** %s\n", what, strings.TrimSpace(e.FinalStatus))
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n**%s:**\n", title)
		for _, it := range items {
			fmt.Fprintf(&b, "- %s\n", strings.TrimSpace(it))
		}
	}
	list("Files changed", e.FilesChanged)
	list("Tests run", e.TestsRun)
	if len(e.Criteria) > 0 {
		b.WriteString("\n**Acceptance criteria:**\n")
		for _, c := range e.Criteria {
			mark := " "
			if c.Met {
				mark = "x"
			}
			fmt.Fprintf(&b, "- [%s] %s", mark, strings.TrimSpace(c.Criterion))
			if c.Evidence != "" {
				fmt.Fprintf(&b, " — %s", strings.TrimSpace(c.Evidence))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func (t *Tool) close(ctx context.Context, g *gh, r ref, pr bool, d *tools.Decoded[contract]) (tools.Result, error) {
	in := &d.In
	e := evidence{FilesChanged: in.FilesChanged, TestsRun: in.TestsRun, FinalStatus: in.FinalStatus, Reason: in.Reason, DryRun: in.DryRun}
	if len(in.AcceptanceCriteria) > 0 {
		// decode validated the criteria against the schema already
		if err := json.Unmarshal(in.AcceptanceCriteria, &e.Criteria); err != nil {
			return tools.Result{}, tools.InvalidInput("github: %v", err)
		}
	}
	if e.Reason == "" {
		e.Reason = "completed"
	}
	if pr && d.Has("reason") {
		return tools.Result{}, tools.InvalidInput("github: `reason` applies to close_issue only")
	}
	if err := e.check(pr); err != nil {
		return tools.Result{}, err
	}
	comment := e.markdown(pr)
	kind, path := "issue", r.path(fmt.Sprintf("/issues/%d", r.number))
	if pr {
		kind, path = "pull request", r.path(fmt.Sprintf("/pulls/%d", r.number))
	}
	state, err := currentState(ctx, g, r, path)
	if err != nil {
		return tools.Result{}, err
	}
	if state == "closed" {
		return tools.Result{}, tools.ExecutionFailed("github: %s %s is already closed; nothing was posted", kind, r.label())
	}
	if e.DryRun {
		return jsonResult(map[string]any{"dry_run": true, "target": r.label(), "kind": kind, "current_state": state,
			"would_comment": comment, "would_close_with": closeBody(pr, e.Reason)}, map[string]any{"dry_run": true})
	}
	url, err := postComment(ctx, g, r, comment)
	if err != nil {
		return tools.Result{}, err
	}
	if _, err := g.api(ctx, r, "PATCH", path, apiOpts{body: closeBody(pr, e.Reason)}); err != nil {
		res := tools.Failed(fmt.Sprintf("github: the evidence comment was posted (%s) but closing %s %s failed, so it is "+
			"still open: %v", url, kind, r.label(), err))
		res.Metadata = map[string]any{"comment_url": url, "closed": false}
		return res, nil
	}
	return jsonResult(map[string]any{"closed": true, "target": r.label(), "kind": kind, "comment_url": url},
		map[string]any{"closed": true, "comment_url": url})
}

// closeBody is the PATCH that closes; wont_do is GitHub's not-planned
// state_reason (the schema avoids that spelling so a tool_search for
// "plan" does not load this family).
func closeBody(pr bool, reason string) map[string]string {
	if pr {
		return map[string]string{"state": "closed"}
	}
	if reason == "wont_do" {
		reason = "not_planned"
	}
	return map[string]string{"state": "closed", "state_reason": reason}
}

func currentState(ctx context.Context, g *gh, r ref, path string) (string, error) {
	data, err := g.api(ctx, r, "GET", path, apiOpts{})
	if err != nil {
		return "", err
	}
	var s struct {
		State string `json:"state"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return "", tools.ExecutionFailed("github: unreadable response for %s: %v", r.label(), err)
	}
	return s.State, nil
}

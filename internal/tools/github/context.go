package github

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

// The REST shapes read here (GitHub's v3 API).
type user struct {
	Login string `json:"login"`
}

type issueJSON struct {
	Number      int    `json:"number"`
	Title       string `json:"title"`
	State       string `json:"state"`
	StateReason string `json:"state_reason"`
	User        user   `json:"user"`
	Labels      []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Assignees []user `json:"assignees"`
	Milestone *struct {
		Title string `json:"title"`
	} `json:"milestone"`
	Body        string          `json:"body"`
	HTMLURL     string          `json:"html_url"`
	CreatedAt   string          `json:"created_at"`
	UpdatedAt   string          `json:"updated_at"`
	PullRequest json.RawMessage `json:"pull_request"`
}

type commentJSON struct {
	User      user   `json:"user"`
	CreatedAt string `json:"created_at"`
	Body      string `json:"body"`
}

// Comment is one comment of a thread.
type Comment struct {
	Author    string `json:"author"`
	CreatedAt string `json:"created_at"`
	Body      string `json:"body"`
}

// Context is what issue_context returns (and pr_context extends).
type Context struct {
	Number        int       `json:"number"`
	URL           string    `json:"url"`
	Title         string    `json:"title"`
	State         string    `json:"state"`
	StateReason   string    `json:"state_reason,omitempty"`
	Author        string    `json:"author"`
	Labels        []string  `json:"labels"`
	Assignees     []string  `json:"assignees,omitempty"`
	Milestone     string    `json:"milestone,omitempty"`
	CreatedAt     string    `json:"created_at"`
	UpdatedAt     string    `json:"updated_at"`
	IsPullRequest bool      `json:"is_pull_request"`
	Body          string    `json:"body"`
	Comments      []Comment `json:"comments"`
	CommentCount  int       `json:"comment_count"`
	Handle        any       `json:"thread_handle,omitempty"`
	Note          string    `json:"note,omitempty"`
}

func (t *Tool) issueContext(ctx context.Context, tc *tools.Context, g *gh, r ref) (tools.Result, error) {
	c, err := t.thread(ctx, g, r)
	if err != nil {
		return tools.Result{}, err
	}
	if c.IsPullRequest {
		c.Note = "This number is a pull request; pr_context also gives its files, checks and diff."
	}
	t.fitThread(tc.ResultBudget(), c)
	return jsonResult(c, map[string]any{"number": c.Number, "state": c.State, "comments": c.CommentCount})
}

// thread reads an issue (or a pull request's conversation) and its comments.
func (t *Tool) thread(ctx context.Context, g *gh, r ref) (*Context, error) {
	data, err := g.api(ctx, r, "GET", r.path(fmt.Sprintf("/issues/%d", r.number)), apiOpts{})
	if err != nil {
		return nil, err
	}
	var is issueJSON
	if err := json.Unmarshal(data, &is); err != nil {
		return nil, tools.ExecutionFailed("github: unreadable issue response: %v", err)
	}
	data, err = g.api(ctx, r, "GET", r.path(fmt.Sprintf("/issues/%d/comments?per_page=100", r.number)), apiOpts{paginate: true})
	if err != nil {
		return nil, err
	}
	var cs []commentJSON
	if err := json.Unmarshal(data, &cs); err != nil {
		return nil, tools.ExecutionFailed("github: unreadable comments response: %v", err)
	}
	c := &Context{Number: is.Number, URL: is.HTMLURL, Title: is.Title, State: is.State, StateReason: is.StateReason,
		Author: is.User.Login, Labels: []string{}, CreatedAt: is.CreatedAt, UpdatedAt: is.UpdatedAt,
		IsPullRequest: len(is.PullRequest) > 0 && string(is.PullRequest) != "null", Body: is.Body,
		Comments: []Comment{}, CommentCount: len(cs)}
	for _, l := range is.Labels {
		c.Labels = append(c.Labels, l.Name)
	}
	for _, a := range is.Assignees {
		c.Assignees = append(c.Assignees, a.Login)
	}
	if is.Milestone != nil {
		c.Milestone = is.Milestone.Title
	}
	for _, x := range cs {
		c.Comments = append(c.Comments, Comment{Author: x.User.Login, CreatedAt: x.CreatedAt, Body: x.Body})
	}
	return c, nil
}

// Thread sizing: a thread over its share of the result budget goes behind a
// handle whole, and the inline copy keeps the body's head and the newest
// comments that fit.
const (
	bodyKeep    = 4000
	commentKeep = 1500
)

func (t *Tool) fitThread(budget int, c *Context) {
	limit := budget / 2
	if size(c) <= limit {
		return
	}
	full := renderThread(c)
	if t.opts.Handles != nil {
		c.Handle = t.opts.Handles.Put("github", "thread", "issue_thread", full)
	}
	c.Body = cut(c.Body, bodyKeep)
	all := c.Comments
	c.Comments = nil
	kept := 0
	for i := len(all) - 1; i >= 0; i-- {
		cm := all[i]
		cm.Body = cut(cm.Body, commentKeep)
		c.Comments = append([]Comment{cm}, c.Comments...)
		if size(c) > limit {
			c.Comments = c.Comments[1:]
			break
		}
		kept++
	}
	if c.Comments == nil {
		c.Comments = []Comment{}
	}
	c.Note = strings.TrimSpace(fmt.Sprintf("%s The thread is long: the body is cut to %d characters and %d of %d comments "+
		"(the newest) are shown, each cut to %d characters. %s", c.Note, bodyKeep, kept, c.CommentCount, commentKeep, readHint(c.Handle)))
}

func readHint(h any) string {
	if hh, ok := h.(handles.Handle); ok {
		return fmt.Sprintf("Read everything with handle_read {\"session_id\":%q}.", hh.SessionID)
	}
	return ""
}

func renderThread(c *Context) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s (#%d, %s)\n\n@%s at %s:\n\n%s\n", c.Title, c.Number, c.State, c.Author, c.CreatedAt, c.Body)
	for _, cm := range c.Comments {
		fmt.Fprintf(&b, "\n---\n@%s at %s:\n\n%s\n", cm.Author, cm.CreatedAt, cm.Body)
	}
	return b.String()
}

func size(v any) int {
	b, _ := json.Marshal(v)
	return len([]rune(string(b)))
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + fmt.Sprintf("\n[… %d more characters]", len(r)-n)
	}
	return s
}

func jsonResult(v any, meta map[string]any) (tools.Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("github: %v", err)
	}
	res := tools.OK(string(b))
	res.Metadata = meta
	return res, nil
}

package github

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

type pullJSON struct {
	Merged       bool   `json:"merged"`
	Draft        bool   `json:"draft"`
	Additions    int    `json:"additions"`
	Deletions    int    `json:"deletions"`
	ChangedFiles int    `json:"changed_files"`
	Mergeable    string `json:"mergeable_state"`
	Head         struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
	} `json:"base"`
}

// File is one changed file of a pull request.
type File struct {
	Filename  string `json:"filename"`
	Status    string `json:"status"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Previous  string `json:"previous_filename,omitempty"`
}

// Checks summarises check runs and commit statuses on the head commit.
type Checks struct {
	State   string   `json:"state"` // success, failure, pending, none
	Total   int      `json:"total"`
	Passing int      `json:"passing"`
	Failing []string `json:"failing"`
	Pending []string `json:"pending"`
}

// PR is what pr_context returns.
type PR struct {
	*Context
	Head         string `json:"head"`
	HeadSHA      string `json:"head_sha"`
	Base         string `json:"base"`
	Merged       bool   `json:"merged"`
	Draft        bool   `json:"draft"`
	Mergeable    string `json:"mergeable_state,omitempty"`
	Additions    int    `json:"additions"`
	Deletions    int    `json:"deletions"`
	ChangedFiles int    `json:"changed_files"`
	Files        []File `json:"files"`
	Checks       Checks `json:"checks"`
	Diff         string `json:"diff"`
	DiffHandle   any    `json:"diff_handle,omitempty"`
}

const diffKeep = 8000

func (t *Tool) prContext(ctx context.Context, tc *tools.Context, g *gh, r ref) (tools.Result, error) {
	data, err := g.api(ctx, r, "GET", r.path(fmt.Sprintf("/pulls/%d", r.number)), apiOpts{})
	if err != nil {
		return tools.Result{}, err
	}
	var pj pullJSON
	if err := json.Unmarshal(data, &pj); err != nil {
		return tools.Result{}, tools.ExecutionFailed("github: unreadable pull request response: %v", err)
	}
	c, err := t.thread(ctx, g, r)
	if err != nil {
		return tools.Result{}, err
	}
	pr := &PR{Context: c, Head: pj.Head.Ref, HeadSHA: pj.Head.SHA, Base: pj.Base.Ref, Merged: pj.Merged, Draft: pj.Draft,
		Mergeable: pj.Mergeable, Additions: pj.Additions, Deletions: pj.Deletions, ChangedFiles: pj.ChangedFiles}
	if pr.Files, err = files(ctx, g, r); err != nil {
		return tools.Result{}, err
	}
	if pr.Checks, err = checks(ctx, g, r, pj.Head.SHA); err != nil {
		return tools.Result{}, err
	}
	diff, err := g.api(ctx, r, "GET", r.path(fmt.Sprintf("/pulls/%d", r.number)), apiOpts{accept: "application/vnd.github.diff"})
	if err != nil {
		return tools.Result{}, err
	}
	pr.Diff = string(diff)
	budget := tc.ResultBudget()
	keep := min(diffKeep, budget/4)
	if r := []rune(pr.Diff); len(r) > keep {
		if t.opts.Handles != nil {
			pr.DiffHandle = t.opts.Handles.Put("github", "diff", "diff", pr.Diff)
		}
		pr.Diff = string(r[:keep])
		pr.Note = strings.TrimSpace(fmt.Sprintf("%s The diff is %d characters; the first %d are shown. %s", pr.Note, len(r), keep,
			strings.Replace(readHint(pr.DiffHandle), "everything", "the whole diff", 1)))
	}
	t.fitThread(budget-size(pr)+size(pr.Context), pr.Context)
	return jsonResult(pr, map[string]any{"number": pr.Number, "state": pr.State, "files": len(pr.Files), "checks": pr.Checks.State})
}

func files(ctx context.Context, g *gh, r ref) ([]File, error) {
	data, err := g.api(ctx, r, "GET", r.path(fmt.Sprintf("/pulls/%d/files?per_page=100", r.number)), apiOpts{paginate: true})
	if err != nil {
		return nil, err
	}
	var fs []struct {
		Filename         string `json:"filename"`
		Status           string `json:"status"`
		Additions        int    `json:"additions"`
		Deletions        int    `json:"deletions"`
		PreviousFilename string `json:"previous_filename"`
	}
	if err := json.Unmarshal(data, &fs); err != nil {
		return nil, tools.ExecutionFailed("github: unreadable files response: %v", err)
	}
	out := []File{}
	for _, f := range fs {
		out = append(out, File{Filename: f.Filename, Status: f.Status, Additions: f.Additions, Deletions: f.Deletions, Previous: f.PreviousFilename})
	}
	return out, nil
}

// checks reads the head commit's check runs and combined status.
func checks(ctx context.Context, g *gh, r ref, sha string) (Checks, error) {
	c := Checks{Failing: []string{}, Pending: []string{}}
	if sha == "" {
		c.State = "none"
		return c, nil
	}
	data, err := g.api(ctx, r, "GET", r.path("/commits/"+sha+"/check-runs?per_page=100"), apiOpts{})
	if err != nil {
		return c, err
	}
	var runs struct {
		CheckRuns []struct {
			Name       string `json:"name"`
			Status     string `json:"status"`
			Conclusion string `json:"conclusion"`
		} `json:"check_runs"`
	}
	if err := json.Unmarshal(data, &runs); err != nil {
		return c, tools.ExecutionFailed("github: unreadable check-runs response: %v", err)
	}
	for _, run := range runs.CheckRuns {
		c.Total++
		switch {
		case run.Status != "completed":
			c.Pending = append(c.Pending, run.Name)
		case run.Conclusion == "success" || run.Conclusion == "neutral" || run.Conclusion == "skipped":
			c.Passing++
		default:
			c.Failing = append(c.Failing, run.Name+" ("+run.Conclusion+")")
		}
	}
	data, err = g.api(ctx, r, "GET", r.path("/commits/"+sha+"/status"), apiOpts{})
	if err != nil {
		return c, err
	}
	var st struct {
		Statuses []struct {
			Context string `json:"context"`
			State   string `json:"state"`
		} `json:"statuses"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return c, tools.ExecutionFailed("github: unreadable status response: %v", err)
	}
	for _, s := range st.Statuses {
		c.Total++
		switch s.State {
		case "success":
			c.Passing++
		case "pending":
			c.Pending = append(c.Pending, s.Context)
		default:
			c.Failing = append(c.Failing, s.Context+" ("+s.State+")")
		}
	}
	switch {
	case c.Total == 0:
		c.State = "none"
	case len(c.Failing) > 0:
		c.State = "failure"
	case len(c.Pending) > 0:
		c.State = "pending"
	default:
		c.State = "success"
	}
	return c, nil
}

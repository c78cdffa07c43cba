package rlm

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/shellpolicy"
)

// MaxBatch is the most children one sub_query_batch runs (the contract's).
const MaxBatch = 16

// Querier makes one tool-less one-shot model request with the session's
// provider client and returns the answer and what it cost.
type Querier func(ctx context.Context, system, user string) (string, provider.Usage, error)

const childSystem = "You are a focused helper answering one question about a piece of text for an analysis " +
	"running in a Python session. Answer directly and concisely; no preamble."

// Exact batch refusals, put in every slot (the contract's wording).
const depModeRefusal = "batch requires dependency_mode='independent'; use sub_query_sequence or sequential sub_query calls for dependent work"

func batchTooLarge(n int) string { return fmt.Sprintf("batch too large: %d > %d", n, MaxBatch) }

// serve answers one request the kernel made during an eval.
func (t *Tool) serve(ctx context.Context, s *session, f frame) (any, provider.Usage, error) {
	var total provider.Usage
	if t.opts.Query == nil {
		return nil, total, fmt.Errorf("child model queries are not available in this session")
	}
	timeout := time.Duration(max(s.cfg.SubQueryTimeout, 1)) * time.Second
	var mu sync.Mutex
	// ask is one child; safe for concurrent use.
	ask := func(ctx context.Context, user string) (string, error) {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		text, u, err := t.opts.Query(cctx, childSystem, user)
		mu.Lock()
		total.Add(&u)
		mu.Unlock()
		if err != nil && ctx.Err() == nil && cctx.Err() == context.DeadlineExceeded {
			return "", fmt.Errorf("child query timed out after %s (sub_query_timeout_secs)", timeout)
		}
		return text, err
	}
	switch f.Op {
	case "sub_query":
		text, err := ask(ctx, joinPrompt(f.Prompt, deref(f.Text)))
		return text, total, err // total is read after ask returned
	case "sub_query_batch":
		out := batch(ctx, f.Prompt, f.Slices, f.DepMode, ask) // before total is read
		return out, total, nil
	case "sub_query_map":
		out := make([]string, 0, len(f.Slices))
		for i := 0; i < len(f.Slices); i += MaxBatch {
			out = append(out, batch(ctx, f.Prompt, f.Slices[i:min(i+MaxBatch, len(f.Slices))], "independent", ask)...)
		}
		return out, total, nil
	case "sub_query_sequence":
		out := make([]string, 0, len(f.Slices))
		prev := ""
		for i, sl := range f.Slices {
			user := joinPrompt(f.Prompt, sl)
			if i > 0 {
				user = joinPrompt(f.Prompt, "Previous answer:\n"+prev+"\n\nNext part:\n"+sl)
			}
			text, err := ask(ctx, user)
			if err != nil {
				text = "error: " + err.Error()
			}
			out = append(out, text)
			prev = text
		}
		return out, total, nil
	case "sub_rlm":
		text, u, err := t.subRLM(ctx, s, f.Prompt, deref(f.Text))
		total.Add(&u)
		return text, total, err
	}
	return nil, total, fmt.Errorf("unknown request %q", f.Op)
}

// batch runs one child per slice concurrently; answers (or "error: …")
// come back in slot order.
func batch(ctx context.Context, prompt string, slices []string, mode string, ask func(context.Context, string) (string, error)) []string {
	out := make([]string, len(slices))
	switch {
	case len(slices) == 0:
		return []string{}
	case len(slices) > MaxBatch:
		for i := range out {
			out[i] = batchTooLarge(len(slices))
		}
		return out
	case mode != "" && mode != "independent" && mode != "parallel_safe" && mode != "map_reduce":
		for i := range out {
			out[i] = depModeRefusal
		}
		return out
	}
	var wg sync.WaitGroup
	for i, sl := range slices {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, err := ask(ctx, joinPrompt(prompt, sl))
			if err != nil {
				text = "error: " + err.Error()
			}
			out[i] = text
		}()
	}
	wg.Wait()
	return out
}

func joinPrompt(prompt, text string) string {
	if strings.TrimSpace(text) == "" {
		return prompt
	}
	return prompt + "\n\n<text>\n" + text + "\n</text>"
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

const subRLMSystem = "You are analysing a text in a Python session. The variable `content` holds it (a str); the " +
	"helpers sub_query(prompt, text) and sub_query_batch(prompt, slices) ask another model. Each reply of yours " +
	"must be exactly one ```python fenced block; its printed output comes back to you. When you have the " +
	"answer, call FINAL(answer) in your code."

// maxSubRLMSteps bounds a child session's code/observe loop.
const maxSubRLMSteps = 6

// subRLM runs a child rlm session over text: the model writes code, sees
// its output, and ends with FINAL; depth is capped by sub_rlm_max_depth.
func (t *Tool) subRLM(ctx context.Context, parent *session, prompt, text string) (string, provider.Usage, error) {
	var total provider.Usage
	if parent.depth+1 > parent.cfg.SubRLMMaxDepth {
		return "", total, fmt.Errorf("sub_rlm depth cap reached: depth %d > sub_rlm_max_depth %d", parent.depth+1, parent.cfg.SubRLMMaxDepth)
	}
	child, err := t.newSession(fmt.Sprintf("%s/sub%d", parent.name, parent.depth+1), parent.depth+1)
	if err != nil {
		return "", total, err
	}
	defer child.close()
	child.cfg = parent.cfg
	if child.src, err = child.bind("content", "sub_rlm", []byte(text)); err != nil {
		return "", total, err
	}
	transcript := prompt
	for step := 0; step < maxSubRLMSteps; step++ {
		answer, u, err := t.opts.Query(ctx, subRLMSystem, transcript)
		total.Add(&u)
		if err != nil {
			return "", total, err
		}
		code := pythonBlock(answer)
		if code == "" {
			return strings.TrimSpace(answer), total, nil // it answered in prose
		}
		// The child's code is judged as an eval's is; what would need a
		// person, or is hard-blocked, is not run.
		if v := t.codeVerdict(code); v.Class >= shellpolicy.Explicit {
			transcript += "\n\n```python\n" + code + "\n```\nOutput:\n" + childRefusal(v)
			continue
		}
		out, err := child.eval(ctx, t, code, t.evalTimeout())
		total.Add(&out.usage)
		if err != nil {
			return "", total, err
		}
		if out.final != nil {
			return out.final.Text, total, nil
		}
		obs := preview(out.stdout+out.stderr, 4000)
		if out.err != nil {
			obs += "\n" + out.err.Type + ": " + out.err.Message
		}
		transcript += "\n\n```python\n" + code + "\n```\nOutput:\n" + obs
	}
	return "", total, fmt.Errorf("sub_rlm gave no FINAL within %d steps", maxSubRLMSteps)
}

func pythonBlock(s string) string {
	i := strings.Index(s, "```python")
	if i < 0 {
		return ""
	}
	rest := s[i+len("```python"):]
	j := strings.Index(rest, "```")
	if j < 0 {
		return strings.TrimSpace(rest)
	}
	return strings.TrimSpace(rest[:j])
}

package rlm

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

func (t *Tool) sessionObjects() (tools.Result, error) {
	var objects []map[string]any
	if t.opts.Transcript != nil {
		objects = append(objects, map[string]any{"session_object": "transcript", "length": utf8.RuneCountInString(t.opts.Transcript()),
			"what": "this conversation so far"})
	}
	if t.opts.Handles != nil {
		for _, h := range t.opts.Handles.List() {
			objects = append(objects, map[string]any{"session_object": h.SessionID, "name": h.Name, "length": h.Length,
				"preview": h.ReprPreview})
		}
	}
	if objects == nil {
		objects = []map[string]any{}
	}
	t.mu.Lock()
	open := make([]string, 0, len(t.sessions))
	for n := range t.sessions {
		open = append(open, n)
	}
	t.mu.Unlock()
	return jsonResult(map[string]any{"objects": objects, "open_sessions": open,
		"note": "Open one with {\"action\":\"open\",\"session_object\":\"<session_object>\"}; sub-agent transcripts " +
			"(agent:<id>) open the same way."}, nil), nil
}

// sourceText reads the one source an open names other than a file
// (checkOpen made sure there is exactly one).
func (t *Tool) sourceText(ctx context.Context, d *tools.Decoded[contract], fetch func(context.Context) (string, error)) (kind, ref, text string, err error) {
	switch {
	case d.Has("content"):
		return "content", "(inline)", d.In.Content, nil
	case d.Has("url"):
		if fetch == nil {
			return "", "", "", tools.NotAvailable("rlm: opening a url needs the Web tool, which is off in this session")
		}
		text, err := fetch(ctx)
		return "url", d.In.URL, text, err
	}
	text, err = t.sessionObject(d.In.SessionObject)
	return "session_object", d.In.SessionObject, text, err
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// readFile checks raw against the workspace boundary and reads it through
// the confined reader (internal/tools/confine): the secret guard on its
// canonical path, then an open beneath the root through no symbolic link,
// so a name swapped for a link after the check reads nothing outside.
func (t *Tool) readFile(tc *tools.Context, raw string) ([]byte, error) {
	path, err := tc.ResolvePath(raw)
	if err != nil {
		return nil, err
	}
	data, fi, err := confine.ReadFile(tc.Roots(), path, 0)
	var secret *confine.SecretError
	switch {
	case errors.As(err, &secret):
		return nil, tools.PermissionDenied("rlm: %s is a secret (%s); it is not opened", raw, secret.Reason)
	case errors.Is(err, confine.ErrNotRegular) && fi != nil && fi.IsDir():
		return nil, tools.InvalidInput("rlm: %s is a directory; open a file", raw)
	case err != nil:
		return nil, tools.ExecutionFailed("rlm: cannot open %s: %v", raw, unwrapPath(err))
	}
	return data, nil
}

// unwrapPath drops the *fs.PathError around err: the message names raw.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (t *Tool) sessionObject(ref string) (string, error) {
	if ref == "transcript" {
		if t.opts.Transcript == nil {
			return "", tools.NotAvailable("rlm: the transcript is not available here")
		}
		return t.opts.Transcript(), nil
	}
	for _, src := range t.opts.Sources {
		text, ok, err := src.Text(ref, "")
		if err != nil {
			return "", tools.ExecutionFailed("rlm: %v", err)
		}
		if ok {
			return text, nil
		}
	}
	return "", tools.InvalidInput("rlm: no session object %q; session_objects lists what can be opened", ref)
}

// openSource reads what an open names: the file, or the one other source
// (sourceText). head is the text the preview is taken from.
func (t *Tool) openSource(ctx context.Context, tc *tools.Context, d *tools.Decoded[contract],
	fetch func(context.Context) (string, error)) (kind, ref, head string, data []byte, err error) {
	if d.Has("file_path") {
		if data, err = t.readFile(tc, d.In.FilePath); err != nil {
			return "", "", "", nil, err
		}
		return "file_path", d.In.FilePath, string(data[:min(len(data), 1024)]), data, nil
	}
	kind, ref, text, err := t.sourceText(ctx, d, fetch)
	return kind, ref, text, []byte(text), err
}

func (t *Tool) open(ctx context.Context, tc *tools.Context, name string, d *tools.Decoded[contract],
	fetch func(context.Context) (string, error)) (tools.Result, error) {
	kind, ref, head, data, err := t.openSource(ctx, tc, d, fetch)
	if err != nil {
		return tools.Result{}, err
	}
	s, err := t.get(name, true)
	if err != nil {
		return tools.Result{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Staged in the scratch directory: the kernel never opens the
	// workspace file by name, and a restart binds the same bytes again.
	src, err := s.bind(kind, ref, data)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("%v", err)
	}
	s.src = src
	restarted, err := s.ensure(t)
	if err == nil && restarted == "" {
		err = s.rebind()
	}
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("rlm: %v", err)
	}
	body := map[string]any{"name": name, "length": src.length, "preview": preview(strings.ToValidUTF8(head, "\uFFFD"), 200), "sha256": src.sha256}
	return jsonResult(body, map[string]any{"name": name, "source": src.kind, "length": src.length, "sandbox": t.opts.SandboxLabel}), nil
}

func (t *Tool) eval(ctx context.Context, name string, in *contract) (tools.Result, error) {
	timeout := t.evalTimeout()
	if in.TimeoutMS > 0 {
		timeout = min(time.Duration(in.TimeoutMS)*time.Millisecond, maxEvalTimeout)
	}
	s, err := t.get(name, false)
	if err != nil {
		return tools.Result{}, err
	}
	out, err := s.eval(ctx, t, in.Code, timeout)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("%v", err)
	}
	body := map[string]any{"name": name, "status": out.status, "duration_ms": out.duration.Milliseconds()}
	if out.status == "timeout" {
		body["note"] = fmt.Sprintf("The eval hit its %s time limit and was interrupted; the session and its variables are kept.", timeout)
	}
	full := s.cfg.OutputFeedback != "metadata"
	t.output(body, "stdout", out.stdout, full, name)
	t.output(body, "stderr", out.stderr, full, name)
	if out.err != nil {
		body["error"] = map[string]any{"type": out.err.Type, "message": preview(out.err.Message, 500),
			"traceback": tail(out.err.Traceback, 2000)}
	}
	if out.final != nil {
		body["final"] = t.handle(name, "final", out.final.Type, out.final.Text)
	}
	if out.queries > 0 {
		body["child_queries"] = out.queries
	}
	if out.restarted != "" {
		body["restarted"] = out.restarted
	}
	res := jsonResult(body, map[string]any{"name": name, "status": out.status, "child_queries": out.queries,
		"sandbox": t.opts.SandboxLabel})
	res.Success = out.status == "ok"
	res.ChildUsage = out.usage
	return res, nil
}

// output puts a stream inline when short (and output_feedback is full),
// else behind a handle.
func (t *Tool) output(body map[string]any, key, text string, full bool, name string) {
	if text == "" {
		return
	}
	if full && utf8.RuneCountInString(text) <= outputInline {
		body[key] = text
		return
	}
	body[key+"_handle"] = t.handle(name, key, "str", text)
	body[key+"_preview"] = preview(text, 200)
}

func (t *Tool) handle(name, part, typ, text string) any {
	if t.opts.Handles == nil {
		return map[string]any{"text": preview(text, outputInline), "length": utf8.RuneCountInString(text), "note": "no handle store: cut"}
	}
	return t.opts.Handles.Put("rlm", name+"."+part, typ, text)
}

func tail(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return "…" + string(r[len(r)-n:])
	}
	return s
}

func (t *Tool) configure(name string, d *tools.Decoded[contract]) (tools.Result, error) {
	s, err := t.get(name, false)
	if err != nil {
		return tools.Result{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.Has("output_feedback") {
		s.cfg.OutputFeedback = d.In.OutputFeedback
	}
	if d.Has("sub_query_timeout_secs") {
		s.cfg.SubQueryTimeout = d.In.SubQueryTimeoutSecs
	}
	if d.Has("sub_rlm_max_depth") {
		s.cfg.SubRLMMaxDepth = d.In.SubRLMMaxDepth
	}
	if d.Has("share_session") {
		s.cfg.ShareSession = d.In.ShareSession
	}
	return jsonResult(map[string]any{"name": name, "config": s.cfg}, nil), nil
}

func (t *Tool) close(name string) (tools.Result, error) {
	s, err := t.get(name, false)
	if err != nil {
		return tools.Result{}, err
	}
	t.mu.Lock()
	delete(t.sessions, name)
	t.mu.Unlock()
	s.close()
	return jsonResult(map[string]any{"name": name, "closed": true, "evals": s.evals, "child_queries": s.queries,
		"input_tokens": s.usage.InputTokens, "output_tokens": s.usage.OutputTokens}, nil), nil
}

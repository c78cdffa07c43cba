package transcript

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// Tool cell bounds.
const (
	summaryChars    = 72
	shellCmdLines   = 6
	shellOKLines    = 6
	shellHeadLines  = 10
	shellTailLines  = 6
	shellHardLimit  = 20
	diffLines       = 14
	genericChars    = 300
	genericLines    = 6
	gitPreviewLines = 8
	liveLines       = 5 // of a running command's output
)

// args decodes a call's input loosely; a malformed input reads as empty.
type args map[string]any

func decodeArgs(in json.RawMessage) args {
	var m args
	_ = json.Unmarshal(in, &m)
	return m
}

func (a args) str(k string) string {
	s, _ := a[k].(string)
	return s
}

func (a args) action(def string) string {
	if s := a.str("action"); s != "" {
		return s
	}
	return def
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// Summary is the one-line argument summary after a tool's name
// (CONTRACT.md §14.3), at most 72 characters.
func Summary(name string, in json.RawMessage) string {
	a := decodeArgs(in)
	var s string
	switch {
	case name == "Bash":
		s = bashSummary(a)
	case name == "File":
		s = fileSummary(a)
	case name == "Git":
		s = strings.TrimSpace(a.action("status") + " " + firstNonEmpty(a.str("path"), a.str("rev")))
	case name == "Run":
		s = strings.TrimSpace(a.action("tests") + " " + firstNonEmpty(a.str("selector"), a.str("filter"), a.str("name")))
	case name == "agent":
		s = strings.TrimSpace(a.action("start") + " " + firstLine(firstNonEmpty(a.str("prompt"), a.str("agent_id"))))
	case name == "tasks":
		s = strings.TrimSpace(a.action("list") + " " + firstLine(firstNonEmpty(a.str("prompt"), a.str("command"), a.str("task_id"))))
	case name == "work_update":
		if todos, ok := a["todos"].([]any); ok {
			s = fmt.Sprintf("%d item(s)", len(todos))
		}
	case name == "remember":
		s = strings.TrimSpace(a.action("append") + " " + firstLine(a.str("note")))
	case name == "tool_search":
		s = firstLine(a.str("query"))
	default:
		s = compactJSON(in)
	}
	return termtext.Truncate(termtext.OneLine(termtext.Sanitize(s)), summaryChars, "…")
}

func bashSummary(a args) string {
	switch act := a.action("run"); act {
	case "run":
		return firstLine(a.str("command"))
	default:
		return strings.TrimSpace(act + " " + a.str("task_id"))
	}
}

func fileSummary(a args) string {
	act := a.action("read")
	switch act {
	case "search_content":
		return act + " " + strconvQuote(a.str("pattern"))
	case "search_name":
		return act + " " + strconvQuote(a.str("query"))
	case "patch":
		if p := a.str("path"); p != "" {
			return act + " " + p
		}
		return act + " " + patchTarget(a.str("patch"))
	}
	return strings.TrimSpace(act + " " + a.str("path"))
}

// patchTarget is the first `+++ b/<path>` of a unified diff.
func patchTarget(p string) string {
	for _, l := range strings.Split(p, "\n") {
		if strings.HasPrefix(l, "+++ ") {
			return strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
		}
	}
	return ""
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func compactJSON(in json.RawMessage) string {
	var v any
	if json.Unmarshal(in, &v) != nil {
		return string(in)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// renderTool draws the header row and the kind-specific body.
func (e *Env) renderTool(c *Cell, w int) []string {
	t := c.Tool
	glyph := e.Theme.Accent.Render(e.Spinner())
	switch {
	case t.Failed():
		glyph = e.Theme.Error.Render(GlyphFailed)
	case t.Done:
		glyph = e.Theme.Success.Render(GlyphDone)
	}
	a := decodeArgs(t.Input)
	summary := Summary(t.Name, t.Input)
	hint := ""
	switch {
	case t.AwaitingApproval:
		glyph = e.Theme.Warning.Render(GlyphAttention)
		hint = "  awaiting approval"
	case t.Queued && !t.Done:
		glyph = e.Theme.Dim.Render(GlyphQueued)
		hint = "  queued behind the card"
	case !t.Done && t.Name == "Bash" && a.action("run") == "run":
		hint = "  Ctrl+B → /jobs"
	case t.Done && !t.Failed() && t.Name == "File":
		if n := resultCount(a.action("read"), t.Outcome.Content); n != "" {
			hint = "  · " + n
		}
	}
	head := glyph + " " + e.Theme.Bold.Render(t.Name) + " " + summary
	head = termtext.Truncate(head, w-termtext.Width(hint), "…")
	if hint != "" {
		head += e.Theme.Dim.Render(hint)
	}
	body := e.toolBody(c, a, w-4)
	rows := make([]string, 0, len(body)+1)
	rows = append(rows, head)
	rail := "  " + e.Theme.Dim.Render("│") + " "
	for _, b := range body {
		rows = append(rows, rail+b)
	}
	return rows
}

func (e *Env) toolBody(c *Cell, a args, w int) []string {
	t := c.Tool
	if !t.Done {
		if t.Name == "Bash" && a.action("run") == "run" {
			return append(e.shellCommand(a, w), e.dimLines(liveTail(t.Live, w))...)
		}
		return nil
	}
	if m := MutationOf(t.Outcome.Metadata); m != nil && !t.Failed() {
		return e.mutationBody(m, w)
	}
	switch {
	case t.Failed():
		return e.failureBody(t, a, w)
	case t.Name == "Bash" && a.action("run") == "run" && t.Outcome.Metadata["backgrounded"] == true:
		// The start receipt's first line names the job; the rest is for the model.
		first, _, _ := strings.Cut(strings.TrimSpace(t.Outcome.Content), "\n")
		return append(e.shellCommand(a, w), e.Theme.Dim.Render(termtext.Truncate(first+" · /jobs", w, "…")))
	case t.Name == "Bash" && a.action("run") == "run":
		rows := append(e.shellCommand(a, w), e.dimLines(previewTail(dropEmptySections(t.Outcome.Content), shellOKLines, w))...)
		if note := droppedNote(t.Outcome.Metadata); note != "" {
			rows = append(rows, e.Theme.Warning.UnsetBold().Render(termtext.Truncate("… "+note, w, "…")))
		}
		return rows
	case t.Name == "Bash":
		return e.dimLines(previewTail(t.Outcome.Content, shellOKLines, w))
	case t.Name == "File":
		return nil // read-only exploration stays one line
	case t.Name == "Git":
		return e.gitBody(t.Outcome.Content, a, w)
	}
	return e.dimLines(genericPreview(t.Outcome.Content, w))
}

func (e *Env) shellCommand(a args, w int) []string {
	lines := strings.Split(strings.TrimSpace(termtext.ExpandTabs(termtext.Sanitize(a.str("command")))), "\n")
	more := 0
	if len(lines) > shellCmdLines {
		more = len(lines) - shellCmdLines
		lines = lines[:shellCmdLines]
	}
	out := make([]string, 0, len(lines)+1)
	for i, l := range lines {
		p := "$ "
		if i > 0 {
			p = "  "
		}
		out = append(out, e.Theme.Accent.Render(termtext.Truncate(p+l, w, "…")))
	}
	if more > 0 {
		out = append(out, e.Theme.Dim.Render(fmt.Sprintf("  … %d more command lines", more)))
	}
	return out
}

// failureBody shows a failed call: for a shell run the command and head 10
// + tail 6 of the output (hard limit 20 rows); otherwise the error text.
func (e *Env) failureBody(t *ToolCall, a args, w int) []string {
	errStyle := e.Theme.Error.UnsetBold()
	if t.Name != "Bash" || a.action("run") != "run" || t.Outcome.IsError {
		// A refusal or an invalid call: the reason, with the model-facing
		// detail (validation JSON, hints) behind Alt+V.
		line, more := failureLine(t.Name, t.Outcome.Content)
		out := []string{errStyle.Render(termtext.Truncate(line, w, "…"))}
		if more {
			out = append(out, e.Theme.Dim.Render("Alt+V shows the full error"))
		}
		return out
	}
	out := e.shellCommand(a, w)
	for _, l := range headTail(wrapLines(dropEmptySections(strings.Trim(t.Outcome.Content, "\n")), w), shellHeadLines, shellTailLines, shellHardLimit) {
		out = append(out, errStyle.Render(l))
	}
	if note := droppedNote(t.Outcome.Metadata); note != "" {
		out = append(out, e.Theme.Warning.UnsetBold().Render(termtext.Truncate("… "+note, w, "…")))
	}
	return out
}

func (e *Env) gitBody(content string, a args, w int) []string {
	if act := a.action("status"); act == "diff" || act == "show" {
		lines := splitOutput(content)
		changed := changedLines(lines)
		if len(changed) == 0 {
			changed = lines // a show of a commit with no diff: its header
		}
		rows := headTail(truncLines(changed, w), gitPreviewLines, 0, gitPreviewLines+1)
		return e.colorDiff(rows)
	}
	rows := headTail(truncLines(splitOutput(content), w), gitPreviewLines, 0, gitPreviewLines+1)
	return e.dimLines(rows)
}

func (e *Env) dimLines(rows []string) []string {
	for i, r := range rows {
		rows[i] = e.Theme.Dim.Render(r)
	}
	return rows
}

// liveTail is the running command's last liveLines lines, each cut to w.
func liveTail(live string, w int) []string {
	lines := splitOutput(live)
	if len(lines) > liveLines {
		lines = lines[len(lines)-liveLines:]
	}
	return truncLines(lines, w)
}

// previewTail keeps the last n lines, with a marker for what it dropped.
func previewTail(content string, n, w int) []string {
	lines := splitOutput(content)
	var out []string
	if len(lines) > n {
		out = append(out, fmt.Sprintf("… %d earlier lines", len(lines)-n))
		lines = lines[len(lines)-n:]
	}
	for _, l := range lines {
		out = append(out, termtext.Truncate(l, w, "…"))
	}
	return out
}

// headTail keeps head and tail rows with an elision marker between,
// never more than limit rows.
func headTail(lines []string, head, tail, limit int) []string {
	if len(lines) <= limit {
		return lines
	}
	out := append(append([]string(nil), lines[:head]...), fmt.Sprintf("… %d lines omitted", len(lines)-head-tail))
	return append(out, lines[len(lines)-tail:]...)
}

func truncLines(lines []string, w int) []string {
	for i, l := range lines {
		lines[i] = termtext.Truncate(l, w, "…")
	}
	return lines
}

func genericPreview(content string, w int) []string {
	s := strings.TrimSpace(content)
	cut := false
	if r := []rune(s); len(r) > genericChars {
		s, cut = string(r[:genericChars]), true
	}
	lines := splitOutput(s)
	if len(lines) > genericLines {
		lines, cut = lines[:genericLines], true
	}
	for i, l := range lines {
		lines[i] = termtext.Truncate(l, w, "…")
	}
	if cut {
		lines = append(lines, "… (Alt+V for the full output)")
	}
	return lines
}

func splitOutput(s string) []string {
	s = strings.Trim(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

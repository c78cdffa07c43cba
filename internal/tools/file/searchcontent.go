package file

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

const (
	searchTimeout      = 30 * time.Second
	maxSearchFileBytes = 10 << 20
	defaultMaxResults  = 100
	maxContextLines    = 1000
	// maxShownLine bounds each line a search result shows, so one match in a
	// minified file cannot flood the model.
	maxShownLine = 2000
)

// defaultContentExcludes apply when the call gives no `exclude`.
var defaultContentExcludes = globSet{"node_modules", "node_modules/*", ".git", ".git/*", "target", "target/*",
	"dist", "dist/*", "build", "build/*", "__pycache__", "__pycache__/*", ".venv", ".venv/*", "venv", "venv/*",
	"*.min.js", "*.min.css"}

type contentReq struct {
	pattern, path    string
	include, exclude globSet
	context          int
	maxResults       int
	caseInsensitive  bool
	literal          bool
}

func parseSearchContent(a tools.Args) (contentReq, error) {
	var r contentReq
	var err error
	if r.pattern, err = a.RequireString("pattern"); err != nil {
		return r, err
	}
	if r.path, err = optPath(a); err != nil {
		return r, err
	}
	if r.include, _, err = parseGlobs(a, "include"); err != nil {
		return r, err
	}
	var hasExclude bool
	if r.exclude, hasExclude, err = parseGlobs(a, "exclude"); err != nil {
		return r, err
	}
	if !hasExclude {
		r.exclude = defaultContentExcludes
	}
	if r.context, _, err = uintOr(a, "context_lines", 2); err != nil {
		return r, err
	}
	r.context = min(r.context, maxContextLines)
	if r.maxResults, _, err = uintOr(a, "max_results", defaultMaxResults); err != nil {
		return r, err
	}
	r.maxResults = max(r.maxResults, 1)
	if r.caseInsensitive, _, err = a.Bool("case_insensitive"); err != nil {
		return r, err
	}
	if r.literal, _, err = a.Bool("literal"); err != nil {
		return r, err
	}
	return r, nil
}

// contentMatch is one result. The context fields are []string, or a single
// string when context_lines is 1 (tools.md §4.2).
type contentMatch struct {
	File          string `json:"file"`
	LineNumber    int    `json:"line_number"`
	Line          string `json:"line"`
	ContextBefore any    `json:"context_before"`
	ContextAfter  any    `json:"context_after"`
}

type contentResult struct {
	Matches       []contentMatch `json:"matches"`
	TotalMatches  int            `json:"total_matches"`
	FilesSearched int            `json:"files_searched"`
	Truncated     bool           `json:"truncated"`
}

// grepRun is the shared state of one search_content call.
type grepRun struct {
	tc      *tools.Context
	fs      *confine.Set
	secret  func(abs string) bool
	m       *matcher
	req     contentReq
	found   atomic.Int64 // matches claimed, may pass maxResults by the one that proves truncation
	files   atomic.Int64
	trunc   atomic.Bool
	mu      sync.Mutex
	matches []contentMatch
	bufs    [][2][]byte // per worker: file buffer, lowercase scratch
}

func (t *Tool) searchContent(ctx context.Context, tc *tools.Context, r contentReq) (tools.Result, error) {
	pattern := r.pattern
	if r.literal {
		pattern = regexp.QuoteMeta(pattern)
	}
	if r.caseInsensitive {
		pattern = "(?i)" + pattern
	}
	m, err := newMatcher(pattern)
	if err != nil {
		return tools.Result{}, tools.InvalidInput("Invalid regex pattern: %v", err)
	}
	abs, err := tc.ResolvePath(r.path)
	if err != nil {
		return tools.Result{}, err
	}
	if err := t.refuseSecret("search_content", abs); err != nil {
		return tools.Result{}, err
	}
	b := openBoundary(tc)
	defer b.Close()
	fi, err := b.Stat(abs)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("Failed to search %s: %v", abs, unwrapPath(err))
	}
	workers := walkWorkers()
	g := &grepRun{tc: tc, fs: b, secret: t.Secret, m: m, req: r, bufs: make([][2][]byte, workers)}
	ctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	if !fi.IsDir() {
		g.searchFile(0, abs)
	} else {
		spec := walkSpec{workers: workers, fs: b, secret: t.Secret, base: abs, ign: ignoreFor(abs, tc.Workspace),
			exclude: r.exclude, include: r.include}
		err = walkTree(ctx, spec, func(w int, f walkFile) bool { return g.searchFile(w, f.abs) })
		if err != nil {
			return tools.Result{}, walkError(err, "search")
		}
	}
	sort.Slice(g.matches, func(i, j int) bool {
		a, b := g.matches[i], g.matches[j]
		return a.File < b.File || (a.File == b.File && a.LineNumber < b.LineNumber)
	})
	res := contentResult{Matches: g.matches, TotalMatches: len(g.matches), FilesSearched: int(g.files.Load()),
		Truncated: g.trunc.Load()}
	if res.Matches == nil {
		res.Matches = []contentMatch{}
	}
	return tools.OK(jsonText(res)), nil
}

// walkError maps a walk's context error onto the tool's error kinds.
func walkError(err error, what string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return tools.Timeout(int(searchTimeout.Seconds()))
	}
	return tools.Cancelled(what + " cancelled before completion")
}

// searchFile searches one file on worker w and reports whether the walk
// should go on. Files over 10 MiB, unreadable, binary (NUL bytes) or not
// UTF-8 are skipped silently.
func (g *grepRun) searchFile(w int, abs string) bool {
	if g.trunc.Load() {
		return false
	}
	if g.secret(abs) {
		return true // a secret's content is never read, let alone matched
	}
	buf, ok := readSmall(g.fs, abs, g.bufs[w][0])
	g.bufs[w][0] = buf[:0]
	if !ok || bytes.IndexByte(buf, 0) >= 0 || !utf8.Valid(buf) {
		return true
	}
	g.files.Add(1)
	var local []contentMatch
	rel := ""
	g.bufs[w][1] = g.m.scan(buf, g.bufs[w][1], func(start, end, number int) bool {
		if g.found.Add(1) > int64(g.req.maxResults) {
			g.trunc.Store(true)
			return false
		}
		if rel == "" {
			rel = g.tc.Rel(abs)
		}
		local = append(local, g.result(buf, rel, start, end, number))
		return true
	})
	if len(local) > 0 {
		g.mu.Lock()
		g.matches = append(g.matches, local...)
		g.mu.Unlock()
	}
	return !g.trunc.Load()
}

// result builds one match with its context lines.
func (g *grepRun) result(buf []byte, rel string, start, end, number int) contentMatch {
	c := g.req.context
	before := make([]string, 0, c)
	for s, i := start, 0; i < c && s > 0; i++ {
		e := s - 1
		s = bytes.LastIndexByte(buf[:e], '\n') + 1
		before = append(before, shownLine(buf[s:e]))
	}
	for i, j := 0, len(before)-1; i < j; i, j = i+1, j-1 {
		before[i], before[j] = before[j], before[i]
	}
	after := make([]string, 0, c)
	for pos, i := end0(buf, start), 0; i < c && pos+1 < len(buf); i++ {
		e := end0(buf, pos+1)
		after = append(after, shownLine(buf[pos+1:e]))
		pos = e
	}
	m := contentMatch{File: rel, LineNumber: number, Line: shownLine(buf[start:end]),
		ContextBefore: before, ContextAfter: after}
	if c == 1 {
		m.ContextBefore, m.ContextAfter = firstOr(before), firstOr(after)
	}
	return m
}

// end0 is the end of the line starting at start, without its line break.
func end0(buf []byte, start int) int {
	end := len(buf)
	if j := bytes.IndexByte(buf[start:], '\n'); j >= 0 {
		end = start + j
	}
	return end
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// shownLine is a line for display: '\r' dropped and at most maxShownLine
// bytes, with a note saying how long it really is.
func shownLine(line []byte) string {
	line = trimCR(line)
	if len(line) <= maxShownLine {
		return string(line)
	}
	cut := runeFloor(string(line[:maxShownLine+4]), maxShownLine)
	return string(line[:cut]) + "… [line truncated: " + itoa(len(line)) + " bytes]"
}

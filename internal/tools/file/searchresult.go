package file

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/budget"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// grepRun is the shared state of one search_content call. Workers search
// files in any order; deliver puts their hits back in walk order, so the
// shown matches are always the first ones in path order.
type grepRun struct {
	tc         *tools.Context
	fs         *confine.Set // the boundary every file is opened through
	m          *matcher
	req        contentReq
	need       int // offset + max_results: matches the shown ones end at
	refuses    func(abs string) bool
	countUntil time.Time
	files      atomic.Int64
	skips      skipCounts
	skipped    *skipLog // the skipped paths named in the result
	// boundary is the last file number whose matches can be shown; files
	// past it are only counted. It drops from MaxInt64 once complete.
	boundary        atomic.Int64
	complete        atomic.Bool // the shown matches are all known
	stoppedCounting atomic.Bool // the walk stopped before the tree was done

	mu          sync.Mutex
	pending     map[int]fileHits // searched files waiting for an earlier one
	next        int              // the next file number in walk order
	seen        int              // matches in files before next
	withMatches int
	shown       []contentMatch
	defaults    *defaultsReport
}

// fileHits is one file's matches: count of them all, the first few built.
type fileHits struct {
	count   int
	matches []contentMatch
}

// minMatchChars is less than any match's JSON takes
// (`{"file":"","line_number":1,"line":"","context_before":[],"context_after":[]}`).
const minMatchChars = 60

type skipCounts struct{ binary, tooLarge, unreadable, secret atomic.Int64 }

func newGrepRun(tc *tools.Context, fs *confine.Set, m *matcher, r contentReq, secret func(string) bool, countUntil time.Time) *grepRun {
	// No more matches are built than could ever fit the budget: a match
	// takes at least minMatchChars, and 3 more per context line each side.
	r.maxResults = min(r.maxResults, max(1, tc.ResultBudget()/(minMatchChars+6*r.context)))
	run := &grepRun{tc: tc, fs: fs, m: m, req: r, need: r.offset + r.maxResults, refuses: secret,
		countUntil: countUntil, pending: map[int]fileHits{}, skipped: newSkipLog(tc.Rel)}
	run.boundary.Store(math.MaxInt64)
	return run
}

// deliver records file seq's hits and consumes every file now in order.
func (g *grepRun) deliver(seq int, h fileHits) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending[seq] = h
	for {
		h, ok := g.pending[g.next]
		if !ok {
			return
		}
		delete(g.pending, g.next)
		g.next++
		if h.count > 0 {
			g.withMatches++
		}
		if !g.complete.Load() {
			for i, mt := range h.matches {
				if pos := g.seen + i; pos >= g.req.offset && len(g.shown) < g.req.maxResults {
					g.shown = append(g.shown, mt)
				}
			}
			if g.seen+h.count >= g.need {
				g.boundary.Store(int64(g.next - 1))
				g.complete.Store(true)
			}
		}
		g.seen += h.count
	}
}

// contentMatch is one result. The context fields are []string, or a single
// string when context_lines is 1 (CONTRACT.md §6.2).
type contentMatch struct {
	File          string `json:"file"`
	LineNumber    int    `json:"line_number"`
	Line          string `json:"line"`
	ContextBefore any    `json:"context_before"`
	ContextAfter  any    `json:"context_after"`
}

// contentSummary is everything a result says besides its matches.
type contentSummary struct {
	TotalMatches     int             `json:"total_matches"`
	TotalLowerBound  bool            `json:"total_matches_is_lower_bound,omitempty"`
	FilesSearched    int             `json:"files_searched"`
	FilesWithMatches int             `json:"files_with_matches"`
	Truncated        bool            `json:"truncated"`
	Offset           int             `json:"offset,omitempty"`
	NextOffset       int             `json:"next_offset,omitempty"`
	Skipped          *skippedFiles   `json:"files_skipped,omitempty"`
	SkippedPaths     []skippedPath   `json:"skipped_paths,omitempty"`
	SkippedMore      int             `json:"skipped_paths_not_listed,omitempty"`
	Defaults         *defaultsReport `json:"excluded_by_default,omitempty"`
	Note             string          `json:"note,omitempty"`
}

type skippedFiles struct {
	Binary     int64 `json:"binary,omitempty"`
	TooLarge   int64 `json:"over_10_mib,omitempty"`
	Unreadable int64 `json:"unreadable,omitempty"`
	Secret     int64 `json:"secret,omitempty"`
}

// contentResult is the decoded form of a result (tests read it back).
type contentResult struct {
	contentSummary
	Matches []contentMatch `json:"matches"`
}

// render is the result text within budget characters: the summary, then one
// match per line, as many of the shown matches as fit. What is left out is
// said in `note` with the call that gets it.
func (g *grepRun) render(chars int) string {
	sum := contentSummary{TotalMatches: g.seen, TotalLowerBound: g.stoppedCounting.Load(),
		FilesSearched: int(g.files.Load()), FilesWithMatches: g.withMatches, Offset: g.req.offset, Defaults: g.defaults}
	if s := (skippedFiles{g.skips.binary.Load(), g.skips.tooLarge.Load(), g.skips.unreadable.Load(), g.skips.secret.Load()}); s != (skippedFiles{}) {
		sum.Skipped = &s
	}
	sum.SkippedPaths, sum.SkippedMore = g.skipped.report()
	shown := g.shown
	text, k := budget.Prefix(len(shown), chars, func(k int) string { return g.renderK(sum, shown[:k], len(shown)) })
	if k == 0 && len(shown) > 0 {
		// One match with its context is over the budget: cut its context.
		first := shown[0]
		cut, c := budget.Prefix(g.req.context, chars, func(c int) string {
			return g.renderK(sum, []contentMatch{trimContext(first, c, g.req.context)}, len(shown))
		})
		if c > 0 || budget.Runes(cut) <= chars {
			return cut
		}
	}
	return text
}

// renderK renders the summary with the first shown matches of available.
func (g *grepRun) renderK(sum contentSummary, ms []contentMatch, available int) string {
	sum.Truncated = sum.TotalLowerBound || g.req.offset+len(ms) < sum.TotalMatches
	if sum.Truncated {
		sum.NextOffset = g.req.offset + len(ms)
	}
	sum.Note = g.note(sum, len(ms), available)
	var b bytes.Buffer
	head := marshal(sum)
	b.Write(head[:len(head)-1])
	b.WriteString(`,"matches":[`)
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n")
		b.Write(marshal(m))
	}
	b.WriteString("]}")
	return b.String()
}

// note says how to get what a result leaves out, and where the dialect
// differs from ripgrep's for this pattern.
func (g *grepRun) note(sum contentSummary, shown, available int) string {
	var parts []string
	if sum.Truncated {
		total := fmt.Sprint(sum.TotalMatches)
		if sum.TotalLowerBound {
			total = "at least " + total + " (counting stopped after " + countTime.String() + ")"
		}
		s := fmt.Sprintf("Showing matches %d-%d of %s in path order", g.req.offset+min(shown, 1), g.req.offset+shown, total)
		if shown < available {
			s += fmt.Sprintf("; %d more fit max_results but not the %d-character result budget", available-shown, g.tc.ResultBudget())
		}
		parts = append(parts, s+fmt.Sprintf(". Next: offset=%d, or narrow `path`/`include`, or context_lines=0 to fit more.", sum.NextOffset))
	}
	if d := dialectNote(g.req.pattern, g.req.literal); d != "" {
		parts = append(parts, d+".")
	}
	return strings.Join(parts, " ")
}

// trimContext keeps the c context lines nearest the match on each side.
func trimContext(m contentMatch, c, full int) contentMatch {
	if full == 1 {
		if c == 0 {
			m.ContextBefore, m.ContextAfter = "", ""
		}
		return m
	}
	if before, ok := m.ContextBefore.([]string); ok && len(before) > c {
		m.ContextBefore = before[len(before)-c:]
	}
	if after, ok := m.ContextAfter.([]string); ok && len(after) > c {
		m.ContextAfter = after[:c]
	}
	return m
}

// marshal is compact JSON without HTML escaping (paths and code keep their
// <, > and &).
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`{"error":"` + err.Error() + `"}`)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
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

// shownLine is a line for display: '\r' dropped, bytes that are not UTF-8
// shown as U+FFFD, and at most maxShownLine bytes, with a note saying how
// long it really is.
func shownLine(line []byte) string {
	line = trimCR(line)
	if len(line) <= maxShownLine {
		return strings.ToValidUTF8(string(line), "\uFFFD")
	}
	cut := runeFloor(string(line[:maxShownLine+4]), maxShownLine)
	return strings.ToValidUTF8(string(line[:cut]), "\uFFFD") + "… [line truncated: " + itoa(len(line)) + " bytes]"
}

package file

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/tools"
)

const (
	searchTimeout      = 30 * time.Second
	maxSearchFileBytes = 10 << 20
	defaultMaxResults  = 100
	maxContextLines    = 1000
	// maxShownLine bounds each line a search result shows, so one match in a
	// minified file cannot flood the model.
	maxShownLine = 2000
	// countTime bounds a search once the matches it shows are found: it goes
	// on counting the rest until the tree is done or this long after it
	// started, then labels total_matches a lower bound.
	countTime = 3 * time.Second
)

type contentReq struct {
	pattern, path    string
	include, exclude globSet
	defaults         bool // no `exclude` given: the default excludes apply
	context          int
	maxResults       int
	offset           int
	caseInsensitive  bool
	literal          bool
}

func parseSearchContent(d *tools.Decoded[input]) (contentReq, error) {
	in := &d.In
	r := contentReq{pattern: in.Pattern, path: optPath(d), caseInsensitive: in.CaseInsensitive, literal: in.Literal}
	var err error
	if r.include, err = parseGlobs(in.Include, "include"); err != nil {
		return r, err
	}
	if r.exclude, err = parseGlobs(in.Exclude, "exclude"); err != nil {
		return r, err
	}
	r.defaults = !d.Has("exclude")
	r.context, _ = countOr(d, "context_lines", in.ContextLines, 2)
	r.context = min(r.context, maxContextLines)
	r.maxResults, _ = countOr(d, "max_results", in.MaxResults, defaultMaxResults)
	r.maxResults = max(r.maxResults, 1)
	r.offset = int(in.Offset)
	return r, nil
}

// compileSearch builds the matcher for a request: the pattern read in
// search_content's dialect (dialect.go), quoted when literal, folded when
// case-insensitive. Errors name the pattern as the caller wrote it.
func compileSearch(r contentReq) (*matcher, error) {
	pattern := r.pattern
	if matchesNewline(pattern, r.literal) {
		// rg refuses it too: lines are matched one at a time, so such a
		// pattern would silently match nothing.
		return nil, tools.InvalidInput("Invalid regex pattern: the literal \"\\n\" is not allowed in a regex; " +
			"search_content matches one line at a time, so nothing was searched. Search for one line of the text.")
	}
	if r.literal {
		pattern = regexp.QuoteMeta(pattern)
	} else {
		if _, err := regexp.Compile(pattern); err != nil {
			return nil, tools.InvalidInput("Invalid regex pattern: %v", err)
		}
		pattern = rgDialect(pattern)
	}
	if r.caseInsensitive {
		pattern = "(?i)" + pattern
	}
	m, err := newMatcher(pattern)
	if err != nil {
		return nil, tools.InvalidInput("Invalid regex pattern: %v", err)
	}
	return m, nil
}

// matchesNewline reports whether the pattern names a line break, as rg
// refuses it: a newline in a literal, or \n in a regex outside a class
// that also matches other characters.
func matchesNewline(pattern string, literal bool) bool {
	if strings.Contains(pattern, "\n") || literal {
		return strings.Contains(pattern, "\n")
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false
	}
	return namesNewline(re) || piecesNameNewline(pattern)
}

// namesNewline reports whether a parsed pattern holds a literal line break or
// a class of nothing but one.
func namesNewline(n *syntax.Regexp) bool {
	switch n.Op {
	case syntax.OpLiteral:
		if slices.Contains(n.Rune, '\n') {
			return true
		}
	case syntax.OpCharClass:
		if len(n.Rune) == 2 && n.Rune[0] == '\n' && n.Rune[1] == '\n' {
			return true
		}
	}
	return slices.ContainsFunc(n.Sub, namesNewline)
}

// piecesNameNewline looks at the pattern's escapes and bracket classes one
// by one, as written: Go's parser folds an alternation of single characters
// into one class (`\n|a` becomes `[\na]`), where rg keeps the alternation
// and refuses its `\n`, and allows only a written class that matches more.
func piecesNameNewline(p string) bool {
	for i := 0; i < len(p); {
		var end int
		switch p[i] {
		case '\\':
			if strings.HasPrefix(p[i:], `\Q`) {
				if j := strings.Index(p[i+2:], `\E`); j >= 0 {
					i += 2 + j + 2
				} else {
					i = len(p)
				}
				continue
			}
			end = escapeEnd(p, i)
		case '[':
			end = classEnd(p, i)
		default:
			i++
			continue
		}
		if re, err := syntax.Parse(p[i:end], syntax.Perl); err == nil && namesNewline(re) {
			return true
		}
		i = end
	}
	return false
}

// escapeEnd is the end of the escape starting at p[i] ('\\').
func escapeEnd(p string, i int) int {
	j := i + 2
	if j > len(p) {
		return len(p)
	}
	switch c := p[i+1]; {
	case c == 'x' || c == 'p' || c == 'P':
		if j < len(p) && p[j] == '{' {
			if k := strings.IndexByte(p[j:], '}'); k >= 0 {
				return j + k + 1
			}
			return len(p)
		}
		if c == 'x' {
			return min(j+2, len(p))
		}
		return min(j+1, len(p))
	case c >= '0' && c <= '7':
		for k := 0; k < 2 && j < len(p) && p[j] >= '0' && p[j] <= '7'; k++ {
			j++
		}
	}
	return j
}

// classEnd is the end of the bracket class starting at p[i] ('['), past its
// closing ']'.
func classEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for j < len(p) {
		switch {
		case p[j] == '\\':
			j = escapeEnd(p, j)
		case strings.HasPrefix(p[j:], "[:"):
			if k := strings.Index(p[j+2:], ":]"); k >= 0 {
				j += 2 + k + 2
			} else {
				j++
			}
		case p[j] == ']':
			return j + 1
		default:
			j++
		}
	}
	return len(p)
}

func (t *Tool) searchContent(ctx context.Context, tc *tools.Context, r contentReq) (tools.Result, error) {
	m, err := compileSearch(r)
	if err != nil {
		return tools.Result{}, err
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
	start := time.Now()
	g := newGrepRun(tc, b, m, r, t.Secret, start.Add(countTime))
	ctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	if !fi.IsDir() {
		var bufs [2][]byte
		g.deliver(0, g.searchFile(&bufs, 0, abs))
	} else {
		ign := ignoreFor(abs, tc.Workspace)
		spec := walkSpec{fs: b, secret: g.secretDir, base: abs, globBase: globBase(tc, abs), ign: ign,
			exclude: r.exclude, include: r.include, skipped: g.skipped}
		if r.defaults {
			spec.defaults = newDefaultRules(contentDefaultDirs, contentDefaultFiles, ign)
		}
		if err := g.searchTree(ctx, spec); err != nil {
			return tools.Result{}, err
		}
		g.defaults = spec.defaults.report()
	}
	return tools.OK(g.render(tc.ResultBudget())), nil
}

// globBase is abs relative to the workspace, the frame globs with a '/' are
// matched in; "" for the workspace itself and for paths outside it (whose
// globs are relative to the search base).
func globBase(tc *tools.Context, abs string) string {
	rel := tc.Rel(abs)
	if rel == "." || rel == abs {
		return ""
	}
	return rel
}

// searchTree walks spec in path order on this goroutine and searches the
// files on walkWorkers() others. The walk stops when the shown matches are
// complete and the count time has passed (total_matches is then a lower
// bound), or when ctx ends: a timeout before the shown matches are complete
// is an error, one after it only ends the count.
func (g *grepRun) searchTree(ctx context.Context, spec walkSpec) error {
	jobs := make(chan seqFile, 4*walkWorkers())
	done := make(chan struct{})
	for range walkWorkers() {
		go func() {
			defer func() { done <- struct{}{} }()
			var bufs [2][]byte
			for j := range jobs {
				g.deliver(j.seq, g.searchFile(&bufs, j.seq, j.abs))
			}
		}()
	}
	seq := 0
	err := walk(ctx, spec, func(f walkFile) bool {
		if g.complete.Load() && time.Now().After(g.countUntil) {
			g.stoppedCounting.Store(true)
			return false
		}
		select {
		case jobs <- seqFile{seq: seq, abs: f.abs}:
			seq++
			return true
		case <-ctx.Done():
			return false
		}
	})
	close(jobs)
	for range walkWorkers() {
		<-done
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded) && g.complete.Load():
		g.stoppedCounting.Store(true)
		return nil
	}
	return walkError(err, "search")
}

// readStatus is what readSmall could do with a file.
type readStatus uint8

const (
	readOK readStatus = iota
	readTooLarge
	readUnreadable
)

// secretDir keeps the walk out of secret directories, counting them.
func (g *grepRun) secretDir(abs string) bool {
	if g.refuses(abs) {
		g.skips.secret.Add(1)
		return true
	}
	return false
}

type seqFile struct {
	seq int
	abs string
}

// walkError maps a walk's context error onto the tool's error kinds.
func walkError(err error, what string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return tools.Timeout(int(searchTimeout.Seconds()))
	}
	return tools.Cancelled(what + " cancelled before completion")
}

// decodeBOM is what rg searches in a file that starts with a byte-order
// mark: UTF-8 without the mark (so `^` matches the first line and the mark
// is not in the text), UTF-16 (either byte order) decoded to UTF-8.
func decodeBOM(b []byte) []byte {
	switch {
	case bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")):
		return b[3:]
	case len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE || b[0] == 0xFE && b[1] == 0xFF):
		units := make([]uint16, 0, (len(b)-2)/2)
		for i := 2; i+1 < len(b); i += 2 {
			if b[0] == 0xFF {
				units = append(units, uint16(b[i])|uint16(b[i+1])<<8)
			} else {
				units = append(units, uint16(b[i])<<8|uint16(b[i+1]))
			}
		}
		out := make([]byte, 0, len(units))
		for _, r := range utf16.Decode(units) {
			out = utf8.AppendRune(out, r)
		}
		return out
	}
	return b
}

// searchFile searches the file numbered seq in walk order and returns its
// matches: all of them counted, the first g.need built as results unless
// the file lies past the point where the shown matches were complete.
// Secret, unreadable, over-10-MiB and binary (NUL-holding) files are
// skipped and counted as such; all but the secret ones are named too.
func (g *grepRun) searchFile(bufs *[2][]byte, seq int, abs string) fileHits {
	if g.refuses(abs) {
		g.skips.secret.Add(1) // counted, never named (CONTRACT.md §6.2)
		return fileHits{}
	}
	buf, status := readSmall(g.fs, abs, bufs[0])
	bufs[0] = buf[:0]
	switch {
	case status == readTooLarge:
		g.skips.tooLarge.Add(1)
		g.skipped.add(abs, false, skipTooLarge)
		return fileHits{}
	case status != readOK:
		g.skips.unreadable.Add(1)
		g.skipped.add(abs, false, skipUnreadable)
		return fileHits{}
	}
	buf = decodeBOM(buf)
	if bytes.IndexByte(buf, 0) >= 0 {
		g.skips.binary.Add(1)
		g.skipped.add(abs, false, skipBinary)
		return fileHits{}
	}
	g.files.Add(1)
	build := int64(seq) <= g.boundary.Load()
	var h fileHits
	rel := ""
	bufs[1] = g.m.scan(buf, bufs[1], func(start, end, number int) bool {
		h.count++
		if build && len(h.matches) < g.need {
			if rel == "" {
				rel = g.tc.Rel(abs)
			}
			h.matches = append(h.matches, g.result(buf, rel, start, end, number))
		}
		return true
	})
	return h
}

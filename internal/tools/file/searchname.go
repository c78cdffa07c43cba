package file

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/budget"
)

type nameReq struct {
	query, path string
	limit       int
	extensions  []string
	exclude     globSet
	defaults    bool // no `exclude` given: the default excludes apply
}

func parseSearchName(d *tools.Decoded[input]) (nameReq, error) {
	r := nameReq{query: strings.TrimSpace(d.In.Query)}
	var err error
	if r.query == "" {
		return r, tools.InvalidInput("query cannot be empty")
	}
	r.path = optPath(d)
	r.limit, _ = countOr(d, "limit", d.In.Limit, 20)
	r.limit = clamp(r.limit, 1, 200)
	for _, e := range d.In.Extensions {
		if e = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(e), ".")); e != "" {
			r.extensions = append(r.extensions, e)
		}
	}
	if r.exclude, err = parseGlobs(d.In.Exclude, "exclude"); err != nil {
		return r, err
	}
	r.defaults = !d.Has("exclude")
	return r, nil
}

// nameMatch is one search_name result.
type nameMatch struct {
	Path  string  `json:"path"`
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

func (t *Tool) searchName(ctx context.Context, tc *tools.Context, r nameReq) (tools.Result, error) {
	abs, err := tc.ResolvePath(r.path)
	if err != nil {
		return tools.Result{}, err
	}
	if err := t.refuseSecret("search_name", abs); err != nil {
		return tools.Result{}, err
	}
	b := openBoundary(tc)
	defer b.Close()
	fi, err := b.Stat(abs)
	if err != nil {
		return tools.Result{}, tools.InvalidInput("Base path does not exist: %s", abs)
	}
	q := strings.ToLower(r.query)
	found := []nameMatch{}
	consider := func(rel, name string) {
		if !extensionOK(name, r.extensions) {
			return
		}
		if score, ok := nameScore(q, strings.ToLower(rel), strings.ToLower(name)); ok {
			found = append(found, nameMatch{Path: rel, Name: name, Score: score})
		}
	}
	var defaults *defaultsReport
	var skipped *skipLog
	if !fi.IsDir() {
		name := filepath.Base(abs)
		consider(name, name)
	} else {
		ctx, cancel := context.WithTimeout(ctx, searchTimeout)
		defer cancel()
		ign := ignoreFor(abs, tc.Workspace)
		skipped = newSkipLog(func(p string) string { return relTo(abs, p) }) // named as the matches are
		spec := walkSpec{fs: b, secret: t.Secret, base: abs, globBase: globBase(tc, abs), ign: ign, exclude: r.exclude,
			skipped: skipped}
		if r.defaults {
			spec.defaults = newDefaultRules(nameDefaultDirs, nameDefaultFiles, ign)
		}
		if err := walk(ctx, spec, func(f walkFile) bool { consider(f.rel, f.name); return true }); err != nil {
			return tools.Result{}, walkError(err, "search_name")
		}
		defaults = spec.defaults.report()
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].Score != found[j].Score {
			return found[i].Score > found[j].Score
		}
		return found[i].Path < found[j].Path
	})
	return tools.OK(renderNames(found, r.limit, nameExtras{defaults, skipped}, tc.ResultBudget())), nil
}

// nameResult is search_name's object form, used when the bare list would
// hide something: matches past `limit` or the budget, paths the default
// excludes skipped, or folders the walk could not enter.
type nameResult struct {
	Matches      []nameMatch     `json:"matches"`
	TotalMatches int             `json:"total_matches"`
	Truncated    bool            `json:"truncated"`
	SkippedPaths []skippedPath   `json:"skipped_paths,omitempty"`
	SkippedMore  int             `json:"skipped_paths_not_listed,omitempty"`
	SecretDirs   int             `json:"secret_directories_skipped,omitempty"`
	Defaults     *defaultsReport `json:"excluded_by_default,omitempty"`
	Note         string          `json:"note,omitempty"`
}

// nameExtras is what a search_name result says besides its matches.
type nameExtras struct {
	defaults *defaultsReport
	skipped  *skipLog
}

// renderNames renders the best matches within budget: the bare list of
// CONTRACT.md §6.2 when it is the whole answer, else the object form.
func renderNames(found []nameMatch, limit int, extra nameExtras, chars int) string {
	shown := found[:min(limit, len(found))]
	skipped, more := extra.skipped.report()
	secret := extra.skipped.secretDirs()
	if len(shown) == len(found) && extra.defaults == nil && skipped == nil && secret == 0 {
		if s := jsonText(shown); budget.Runes(s) <= chars {
			return s
		}
	}
	text, _ := budget.Prefix(len(shown), chars, func(k int) string {
		res := nameResult{Matches: shown[:k], TotalMatches: len(found), Truncated: k < len(found), Defaults: extra.defaults,
			SkippedPaths: skipped, SkippedMore: more, SecretDirs: secret}
		if res.Truncated {
			res.Note = fmt.Sprintf("Showing the %d best of %d matches; narrow `query`, `path` or `extensions` to see others", k, len(found))
			if k < len(shown) {
				res.Note += fmt.Sprintf(" (the %d-character result budget held %d of the %d `limit` allows)", chars, k, len(shown))
			}
		}
		return jsonText(res)
	})
	return text
}

func extensionOK(name string, exts []string) bool {
	if len(exts) == 0 {
		return true
	}
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(name), "."))
	for _, e := range exts {
		if ext != "" && e == ext {
			return true
		}
	}
	return false
}

// nameScore scores a lowercased query against a lowercased path and name
// (CONTRACT.md §6.2 search_name); ok is false when the query does not match.
func nameScore(q, path, name string) (float64, bool) {
	switch {
	case name == q:
		return 1.0, true
	case path == q:
		return 0.98, true
	case strings.HasPrefix(name, q):
		return 0.9 + lengthBonus(q, name), true
	case strings.HasPrefix(path, q):
		return 0.85 + lengthBonus(q, path), true
	case strings.Contains(name, q):
		return 0.75 + lengthBonus(q, name), true
	case strings.Contains(path, q):
		return 0.70 + lengthBonus(q, path), true
	}
	if s, ok := subsequenceScore(q, name); ok {
		return 0.6 + 0.4*s, true
	}
	if s, ok := subsequenceScore(q, path); ok {
		return 0.55 + 0.4*s, true
	}
	return 0, false
}

// lengthBonus is min(1, |q|/|target|)·0.08, lengths in runes.
func lengthBonus(q, target string) float64 {
	ql, tl := max(1, utf8.RuneCountInString(q)), max(1, utf8.RuneCountInString(target))
	return min(1, float64(ql)/float64(tl)) * 0.08
}

// subsequenceScore matches q's runes in order inside target (greedy, first
// occurrence) and scores 0.7·density + 0.3·coverage, where density is
// |q|/span of the matched positions and coverage |q|/|target|.
func subsequenceScore(q, target string) (float64, bool) {
	qr := []rune(q)
	if len(qr) == 0 {
		return 0, false
	}
	first, last, k, idx := -1, -1, 0, 0
	for _, c := range target {
		if k < len(qr) && c == qr[k] {
			if first < 0 {
				first = idx
			}
			last = idx
			k++
		}
		idx++
	}
	if k != len(qr) {
		return 0, false
	}
	span := float64(max(1, last-first+1))
	ql, tl := float64(len(qr)), float64(max(1, idx))
	density := min(1, ql/span)
	coverage := min(1, ql/tl)
	return min(1, 0.7*density+0.3*coverage), true
}

// relTo is abs relative to base, '/'-separated, as search_name names paths.
func relTo(base, abs string) string {
	if r, err := filepath.Rel(base, abs); err == nil {
		return filepath.ToSlash(r)
	}
	return abs
}

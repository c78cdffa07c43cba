//go:build ignore

// rewrite-citations points section citations of the planning documents
// (`tools.md §4.2`, `engine.md §2.7`, `tui.md §9.1`, `DECISIONS #7`, and a
// bare `§4.3` in a file that cites one of them) at docs/CONTRACT.md, using
// the table in its Appendix A.
//
//	go run scripts/rewrite-citations.go [-w] [-- FILE...]
//
// With no files it reads every Go and Markdown file git tracks, except
// docs/CONTRACT.md itself. Without -w it prints each change as
// file:line: old -> new. A bare `§x`
// takes the document of the nearest explicit citation before it in the same
// file, or the package's usual document when there is none; those are
// marked "(from context)" so a reviewer can check them.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// citation matches, in one pass: an explicit planning-document citation,
// a DECISIONS number, a citation already in-repo (`CONTRACT.md §9.1`, also
// wrapped onto the next comment line; `ARCHITECTURE.md §6`; `§2.3 of
// docs/CONTRACT.md`), or a bare §. Running it twice changes nothing.
// A citation may wrap onto the next comment line ("engine.md\n// §2.9"). An
// issue reference ("issue 11 §5") is not a document citation and is kept.
var citation = regexp.MustCompile(`(tools|engine|tui)\.md[\s/]*§ ?(\d+(?:\.\d+)*)|DECISIONS[\s/]*#(\d+)|` +
	`(?:CONTRACT|ARCHITECTURE)\.md[\s/]*§ ?\d+(?:\.\d+)*|§ ?\d+(?:\.\d+)*[\s/]+of[\s/]+(?:docs/)?(?:CONTRACT|ARCHITECTURE)\.md|` +
	`issues? \d+ ?§ ?\d+(?:\.\d+)*|§ ?(\d+(?:\.\d+)*)|\b(tools|engine|tui)\.md\b`)

// wrapGap captures what separates a document name from its section.
var wrapGap = regexp.MustCompile(`^(?:\w+\.md|DECISIONS)([\s/]*)[§#]`)

// wholeDoc is where a citation of a whole planning document points.
var wholeDoc = map[string]string{"tools": "2–§7", "engine": "8–§13", "tui": "14"}

// joiner is what may sit between two citations that share one "CONTRACT.md".
var joiner = regexp.MustCompile(`^(, | and | or | / |–|-|, and )$`)

func main() {
	write := flag.Bool("w", false, "rewrite the files in place")
	flag.Parse()
	files := flag.Args()
	if len(files) == 0 {
		out, err := exec.Command("git", "ls-files", "*.go", "*.md").Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "git ls-files:", err)
			os.Exit(1)
		}
		for _, f := range strings.Fields(string(out)) {
			if f != "docs/CONTRACT.md" && f != "scripts/rewrite-citations.go" {
				files = append(files, f)
			}
		}
	}
	status := 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			status = 1
			continue
		}
		out, changes := rewrite(path, string(src))
		for _, c := range changes {
			fmt.Println(c)
		}
		if *write && out != string(src) {
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				status = 1
			}
		}
	}
	os.Exit(status)
}

// rewrite returns src with every citation mapped, and a line per change.
func rewrite(path, src string) (string, []string) {
	doc := defaultDoc(path)
	var b strings.Builder
	var changes []string
	last, lastWasContract := 0, false
	for _, m := range citation.FindAllStringSubmatchIndex(src, -1) {
		whole := src[m[0]:m[1]]
		between := src[last:m[0]]
		b.WriteString(between)
		var sec string
		fromContext := false
		switch {
		case m[2] >= 0:
			doc = src[m[2]:m[3]]
			sec = mapSection(doc, src[m[4]:m[5]])
		case m[6] >= 0:
			n, _ := strconv.Atoi(src[m[6]:m[7]])
			sec = fmt.Sprintf("15.%d", n)
		case strings.Contains(whole, "CONTRACT.md") || strings.Contains(whole, "ARCHITECTURE.md"):
			doc = "contract" // already in-repo; a bare § after it continues it
		case strings.HasPrefix(whole, "issue"):
			// kept as is
		case m[10] >= 0:
			doc = src[m[10]:m[11]]
			sec = wholeDoc[doc]
		default:
			if doc == "contract" {
				break // already in the new form
			}
			sec, fromContext = mapSection(doc, src[m[8]:m[9]]), true
		}
		if sec == "" {
			b.WriteString(whole)
			lastWasContract = doc == "contract"
			last = m[1]
			continue
		}
		joined := lastWasContract && joiner.MatchString(between)
		gap := " " // between "CONTRACT.md" and "§"
		if g := wrapGap.FindStringSubmatch(whole); g != nil && strings.Contains(g[1], "\n") {
			gap = g[1] // a citation wrapped onto the next comment line keeps its break
		}
		repl := "CONTRACT.md" + gap + "§" + sec
		switch {
		case joined && gap != " ":
			repl = gap + "§" + sec
			trimmed := strings.TrimRight(b.String(), " ")
			b.Reset()
			b.WriteString(trimmed)
		case joined:
			repl = "§" + sec
		}
		b.WriteString(repl)
		note := ""
		if fromContext {
			note = " (from context: " + doc + ".md)"
		}
		changes = append(changes, fmt.Sprintf("%s:%d: %s -> %s%s", path, 1+strings.Count(src[:m[0]], "\n"), whole, repl, note))
		last, lastWasContract = m[1], true
	}
	b.WriteString(src[last:])
	return b.String(), changes
}

// defaultDoc is the planning document a package's bare § usually meant.
func defaultDoc(path string) string {
	switch {
	case strings.Contains(path, "internal/tui"), strings.Contains(path, "internal/mdterm"):
		return "tui"
	case strings.Contains(path, "internal/tools"), strings.Contains(path, "internal/catalog"),
		strings.Contains(path, "internal/toolset"):
		return "tools"
	}
	return "engine"
}

// mapSection applies CONTRACT.md Appendix A to one section number.
func mapSection(doc, sec string) string {
	parts := strings.Split(sec, ".")
	major, _ := strconv.Atoi(parts[0])
	rest := func(base int) string {
		if len(parts) == 1 {
			return strconv.Itoa(base)
		}
		return strconv.Itoa(base) + "." + parts[1]
	}
	switch doc {
	case "tools":
		switch major {
		case 0:
			return rest(2)
		case 1:
			return rest(3)
		case 2:
			return rest(4)
		case 3:
			return "5"
		case 4:
			return rest(6)
		case 5:
			return "7"
		case 6:
			return "9.7"
		case 7:
			return "11"
		case 8:
			return "16"
		case 9:
			return "15"
		}
	case "engine":
		switch major {
		case 1:
			switch sec {
			case "1.3":
				return "8.2"
			case "1.4":
				return "8.4"
			}
			return "8.1"
		case 2:
			switch {
			case strings.HasPrefix(sec, "2.2.1"):
				return "4.1"
			case strings.HasPrefix(sec, "2.2.2"):
				return "9.2"
			}
			return rest(9)
		case 3:
			return rest(10)
		case 4:
			if sec == "4.7" {
				return "11.4"
			}
			return rest(11)
		case 5:
			return rest(12)
		case 6:
			if sec == "6.5" {
				return "13.1"
			}
			return rest(13)
		case 7:
			return "15"
		}
	case "tui":
		switch {
		case major >= 1 && major <= 10:
			return "14." + strconv.Itoa(major)
		case major == 11:
			return "15"
		case major == 12:
			return "16"
		}
	}
	return ""
}

package shellpolicy

import (
	"regexp"
	"strings"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// Inline code can compute the name of what it calls: getattr(shutil,
// "rm"+"tree")("/") is shutil.rmtree("/"). spellOut writes the forms whose
// parts are all literal the plain way before code's checks read the text;
// the forms with a part computed at run time (getattr(m, name), exec(s),
// eval(s)) are code the classifier cannot see, which needs explicit
// approval as eval "$X" does in the shell.

var (
	getattrLit    = lazyre.New(`\bgetattr\(\s*([\w.]+)\s*,\s*['"](\w+)['"]\s*\)`)
	subscriptLit  = lazyre.New(`([\w)\]])\s*\[\s*['"](\w+)['"]\s*\]`)
	importLit     = lazyre.New(`\b(?:__import__|importlib\.import_module|require)\(\s*['"]([\w.]+)['"]\s*\)`)
	pythonDynamic = lazyre.New(`\bgetattr\(\s*[^,()]+,\s*[^\s'"]|\b(?:exec|eval|compile|__import__|import_module)\(\s*[^\s'")]`)
	nodeDynamic   = lazyre.New(`\beval\(\s*[^\s'"` + "`" + `)]|\bFunction\(|\[\s*[A-Za-z_$][\w$.]*\s*\]\s*\(`)
	rubyDynamic   = lazyre.New(`\b(?:eval|instance_eval|class_eval|send|public_send|__send__)[\s(]+[^\s'":)]`)
	perlDynamic   = lazyre.New(`\beval\s*[(\s]\s*\$`)
)

// spellOut folds concatenated string literals ("rm"+"tree", 'rm'.'dir')
// and writes getattr(m, "f"), m["f"] and __import__("m") as m.f and m.
func spellOut(lang, code string) string {
	code = foldLiterals(code, concatOp(lang))
	code = getattrLit().ReplaceAllString(code, "$1.$2")
	code = subscriptLit().ReplaceAllString(code, "$1.$2")
	return importLit().ReplaceAllString(code, "$1")
}

func concatOp(lang string) byte {
	if lang == "perl" || lang == "php" {
		return '.'
	}
	return '+'
}

// foldLiterals joins string literals separated only by op (or, in
// Python, by nothing: "rm" "tree") into one literal.
func foldLiterals(code string, op byte) string {
	if !strings.ContainsAny(code, "'\"") {
		return code
	}
	var b strings.Builder
	for i := 0; i < len(code); {
		q := code[i]
		if q != '\'' && q != '"' {
			b.WriteByte(code[i])
			i++
			continue
		}
		text, end := literalAt(code, i)
		folded := false
		for {
			j := skipSpace(code, end)
			if j < len(code) && code[j] == op {
				j = skipSpace(code, j+1)
			}
			if j >= len(code) || code[j] != '\'' && code[j] != '"' {
				break
			}
			more, next := literalAt(code, j)
			if code[j] != q {
				more = strings.ReplaceAll(more, string(q), `\`+string(q))
			}
			text, end, folded = text+more, next, true
		}
		if !folded {
			b.WriteString(code[i:end])
		} else {
			b.WriteByte(q)
			b.WriteString(text)
			b.WriteByte(q)
		}
		i = end
	}
	return b.String()
}

// literalAt reads the literal opening at code[i]; end is past its quote.
func literalAt(code string, i int) (text string, end int) {
	q := code[i]
	var b strings.Builder
	j := i + 1
	for ; j < len(code) && code[j] != q; j++ {
		if code[j] == '\\' && j+1 < len(code) {
			b.WriteByte(code[j])
			j++
		}
		b.WriteByte(code[j])
	}
	return b.String(), min(j+1, len(code))
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// dynamicPattern matches the computed calls of a language, or is nil.
func dynamicPattern(lang string) *regexp.Regexp {
	switch lang {
	case "python":
		return pythonDynamic()
	case "node", "deno", "bun":
		return nodeDynamic()
	case "ruby":
		return rubyDynamic()
	case "perl":
		return perlDynamic()
	}
	return nil
}

// dynamicCode flags inline code that computes what it calls or runs.
func (c *classifier) dynamicCode(lang, code, what string) {
	if re := dynamicPattern(lang); re != nil && re.MatchString(code) {
		c.flag(Explicit, "inline "+what+" code computes the function or code it runs (getattr, exec, eval …), so "+
			"what runs cannot be seen")
	}
}

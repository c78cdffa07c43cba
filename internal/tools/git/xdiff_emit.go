package git

import (
	"strconv"
	"strings"
)

// funcLineMax is the size of xdiff's function-name buffer.
const funcLineMax = 80

// hunk is a run of changes emitted together with its context.
type hunk struct{ first, last int } // indexes into the edit script

// groupHunks joins changes whose unchanged gap is at most 2*ctx lines, as
// xdiff does when it emits unified context.
func groupHunks(script []change, ctx int) []hunk {
	var out []hunk
	for i := 0; i < len(script); {
		j := i
		for j+1 < len(script) && script[j+1].i1-(script[j].i1+script[j].chg1) <= 2*ctx {
			j++
		}
		out = append(out, hunk{i, j})
		i = j + 1
	}
	return out
}

// unifiedDiff renders the hunks of the diff from a to b with ctx lines of
// context, headed "@@ -a,b +c,d @@" plus git's default function context:
// the nearest line above the hunk in the old file that starts with a
// letter, '_' or '$'.
func unifiedDiff(a, b []string, ctx int) string {
	script := diffLines(a, b)
	var out strings.Builder
	funcLine, funcPrev := "", -1
	for _, h := range groupHunks(script, ctx) {
		first, last := script[h.first], script[h.last]
		s1, s2 := max(first.i1-ctx, 0), max(first.i2-ctx, 0)
		lctx := min(ctx, len(a)-(last.i1+last.chg1), len(b)-(last.i2+last.chg2))
		e1, e2 := last.i1+last.chg1+lctx, last.i2+last.chg2+lctx
		for l := s1 - 1; l > funcPrev && l >= 0; l-- {
			if f, ok := defaultFuncName(a[l]); ok {
				funcLine = f
				break
			}
		}
		funcPrev = s1 - 1
		out.WriteString(hunkHeader(s1, e1-s1, s2, e2-s2, funcLine))
		for ; s2 < first.i2; s2++ {
			emitLine(&out, ' ', b[s2])
		}
		for k := h.first; k <= h.last; k++ {
			c := script[k]
			if k > h.first {
				prev := script[k-1]
				for i := prev.i2 + prev.chg2; i < c.i2; i++ {
					emitLine(&out, ' ', b[i])
				}
			}
			for i := c.i1; i < c.i1+c.chg1; i++ {
				emitLine(&out, '-', a[i])
			}
			for i := c.i2; i < c.i2+c.chg2; i++ {
				emitLine(&out, '+', b[i])
			}
		}
		for i := last.i2 + last.chg2; i < e2; i++ {
			emitLine(&out, ' ', b[i])
		}
	}
	return out.String()
}

func hunkHeader(s1, c1, s2, c2 int, fn string) string {
	rng := func(s, c int) string {
		if c > 0 {
			s++
		}
		if c == 1 {
			return strconv.Itoa(s)
		}
		return strconv.Itoa(s) + "," + strconv.Itoa(c)
	}
	h := "@@ -" + rng(s1, c1) + " +" + rng(s2, c2) + " @@"
	if fn != "" {
		h += " " + fn
	}
	return h + "\n"
}

func emitLine(out *strings.Builder, prefix byte, line string) {
	out.WriteByte(prefix)
	out.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		out.WriteString("\n\\ No newline at end of file\n")
	}
}

// defaultFuncName is xdiff's default function-line rule.
func defaultFuncName(line string) (string, bool) {
	if line == "" {
		return "", false
	}
	c := line[0]
	if !isAlpha(c) && c != '_' && c != '$' {
		return "", false
	}
	if len(line) > funcLineMax {
		line = line[:funcLineMax]
	}
	return strings.TrimRight(line, " \t\n\r\v\f"), true
}

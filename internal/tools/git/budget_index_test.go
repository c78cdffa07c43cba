package git

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The one-scan header index of a cut diff (lineMatches, fileNames) finds
// exactly what the regular expressions find in the text and in both halves
// of every cut, so the truncation note says the same as before it was made
// fast (issue 32 item 2).
func TestDiffHeaderIndexAgreesWithRegexp(t *testing.T) {
	texts := []string{
		"",
		"diff --git a/x b/x\n",
		"diff --git a/a b/c b/d\nindex 1..2\n--- a/a\n+++ b/d\n@@ -1 +1 @@\n-diff --git a/no b/no\n+x diff --git a/no b/no\n" +
			"diff --cc merged\ndiff --combined m2\ndiff --git a/sp ace/f.go b/sp ace/f.go\n@@ -1 +1 @@\n diff --git a/ctx b/ctx",
		strings.Repeat("diff --git a/f b/f\n@@ -1 +1 @@\n-a\n+b\n", 5) + "diff --git a/last b/last",
		"xdiff --git a/x b/x\n\ndiff --gitt a/x b/\ndiff --git a/\n",
	}
	for _, text := range texts {
		for _, c := range []struct {
			lit string
			re  *regexp.Regexp
		}{{"diff --", diffFileStart()}, {"diff --git a/", diffFileName()}} {
			want := c.re.FindAllStringSubmatchIndex(text, -1)
			if got := lineMatches(text, c.lit, c.re); !slices.EqualFunc(got, want, slices.Equal[[]int]) {
				t.Errorf("lineMatches(%q, %q) = %v, regexp finds %v", text, c.lit, got, want)
			}
		}
		index := &fileNames{text: text}
		for cut := range len(text) + 1 {
			before, after := index.split(text[:cut], text[cut:])
			if wb, wa := matchNames(text[:cut]), matchNames(text[cut:]); !slices.Equal(before, wb) || !slices.Equal(after, wa) {
				t.Errorf("cut %d of %q: index gives %q | %q, regexp %q | %q", cut, text, before, after, wb, wa)
			}
		}
	}
}

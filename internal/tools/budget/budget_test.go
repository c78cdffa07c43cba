package budget

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestPrefixFindsTheLargestFittingCount(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 5, 16, 17, 100, 5000} {
		for _, budget := range []int{0, 7, 50, 333, 100000} {
			renders := 0
			render := func(k int) string { renders++; return strings.Repeat("x", 3*k+5) }
			s, k := Prefix(n, budget, render)
			want := 0
			for want < n && 3*(want+1)+5 <= budget {
				want++
			}
			if k != want || s != render(k) {
				t.Errorf("n=%d budget=%d: got k=%d, want %d", n, budget, k, want)
			}
			if renders > 40 {
				t.Errorf("n=%d budget=%d: %d renderings", n, budget, renders)
			}
		}
	}
}

func TestLineMarksTheCut(t *testing.T) {
	t.Parallel()
	if got := Line("short", 10); got != "short" {
		t.Fatalf("Line = %q", got)
	}
	got := Line(strings.Repeat("é", 30), 10)
	if !strings.HasPrefix(got, strings.Repeat("é", 10)+"… [line truncated: 30 chars]") {
		t.Fatalf("Line = %q", got)
	}
}

func TestTextKeepsHeadAndTailWithinBudget(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "line %04d ünïcode\n", i)
	}
	s := b.String()
	out := Text(s, 1000)
	if n := Runes(out); n > 1000 {
		t.Fatalf("Text is %d chars", n)
	}
	if !strings.HasPrefix(out, "line 0000") || !strings.HasSuffix(out, "line 1999 ünïcode\n") || !strings.Contains(out, "characters omitted]") {
		t.Fatalf("Text = %q", out)
	}
}

func TestContentTextKeepsTheContractNote(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("abc\n", 30000)
	out := Content("Bash", s, 48000)
	if n := Runes(out); n > 48000 || n < 40000 {
		t.Fatalf("Content is %d chars", n)
	}
	if !strings.HasPrefix(out, "[Bash output compacted to protect context]\n") ||
		!strings.Contains(out, "(Original: 120000 chars, omitted: ") {
		t.Fatalf("Content = %.200q … %q", out, out[len(out)-100:])
	}
	if Content("Bash", "small", 10) != "small" {
		t.Fatal("content that fits must be unchanged")
	}
}

// TestContentJSONStaysValid cuts JSON of every shape to several budgets and
// parses the result.
func TestContentJSONStaysValid(t *testing.T) {
	t.Parallel()
	matches := make([]map[string]any, 3000)
	for i := range matches {
		matches[i] = map[string]any{"file": fmt.Sprintf("dir/f%d.go", i), "line_number": i, "line": "func Ĥandler() {}  \"quoted\" \t<tag>",
			"context_before": []string{"a", "b"}}
	}
	cases := map[string]any{
		"object":      map[string]any{"matches": matches, "total_matches": 3000, "truncated": false},
		"array":       matches,
		"long string": map[string]any{"content": strings.Repeat("données\n", 20000), "path": "x"},
		"nested":      []any{map[string]any{"a": []any{strings.Repeat("z", 90000)}}, 1, true, nil},
		"many keys":   manyKeys(4000),
	}
	for name, v := range cases {
		raw, _ := json.MarshalIndent(v, "", "  ")
		for _, budget := range []int{500, 4000, 48000} {
			out := Content("File", string(raw), budget)
			if n := Runes(out); n > budget {
				t.Errorf("%s/%d: %d chars", name, budget, n)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Errorf("%s/%d: not valid JSON: %v\n%.300s", name, budget, err, out)
				continue
			}
			tr, ok := got["truncation"].(map[string]any)
			if !ok || tr["original_chars"] != float64(Runes(string(raw))) || len(tr["cuts"].([]any)) == 0 {
				t.Errorf("%s/%d: receipt %v", name, budget, got["truncation"])
			}
		}
	}
}

func manyKeys(n int) map[string]any {
	m := map[string]any{}
	for i := range n {
		m[fmt.Sprintf("key%05d", i)] = i
	}
	return m
}

func TestJSONKeepsOrderAndMostItems(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"z":1,"items":[`)
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"n":%d}`, i)
	}
	b.WriteString(`],"a":"end"}`)
	out, ok := JSON(b.String(), 2000, "cut")
	if !ok {
		t.Fatal("not cut")
	}
	if !strings.HasPrefix(out, `{"truncation":{"note":"cut","original_chars":`) || !strings.Contains(out, `},"z":1,"items":[{"n":0},{"n":1},`) ||
		!strings.HasSuffix(out, `],"a":"end"}`) {
		t.Fatalf("JSON = %s", out)
	}
	if !strings.Contains(out, `"$.items: kept `) || Runes(out) < 1700 {
		t.Fatalf("JSON kept too little: %d chars: %s", Runes(out), out)
	}
	if _, ok := JSON("not json", 3, ""); ok {
		t.Fatal("text taken for JSON")
	}
}

func TestOwnSaysHowToGetTheRest(t *testing.T) {
	t.Parallel()
	text := Own(strings.Repeat("line\n", 5000), 1000, "re-run with a narrower filter")
	if Runes(text) > 1000 || !strings.HasSuffix(text, "; re-run with a narrower filter]") {
		t.Fatalf("text: %d chars, %q", Runes(text), text[len(text)-80:])
	}
	raw, _ := json.Marshal(map[string]any{"stdout": strings.Repeat("x", 5000), "passed": 3})
	out := Own(string(raw), 1000, "re-run with a narrower filter")
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || Runes(out) > 1000 || v["passed"] != 3.0 ||
		!strings.HasSuffix(v["truncation"].(map[string]any)["note"].(string), "re-run with a narrower filter") {
		t.Fatalf("json: %v %s", err, out)
	}
}

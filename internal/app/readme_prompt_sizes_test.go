package app

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/posture"
)

// readmeSizeRange is a "3.2–3.8 KB" cell of README.md's size table, in bytes.
var readmeSizeRange = regexp.MustCompile(`^([0-9.]+)–([0-9.]+) KB$`)

// README.md "What the model is told": the table's sizes of codewhale's first request (system prompt, plus tools,
// whole request; Plan with the read-only sub-agent, Act and Operate with memory on) are what the compositions measure,
// to 0.1 KB.
func TestREADMEFirstRequestSizesAreMeasured(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ranges := map[bool][3][2]float64{} // plan → three [lo, hi] in bytes
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 6 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "codewhale, ") {
			continue
		}
		label := strings.TrimSpace(cells[1])
		plan := strings.HasPrefix(label, "codewhale, Plan")
		if !plan && !strings.HasPrefix(label, "codewhale, Act and Operate") {
			continue
		}
		var r [3][2]float64
		for i := range 3 {
			m := readmeSizeRange.FindStringSubmatch(strings.TrimSpace(cells[2+i]))
			if m == nil {
				t.Fatalf("README.md row %q: cell %q is no range", label, cells[2+i])
			}
			lo, _ := strconv.ParseFloat(m[1], 64)
			hi, _ := strconv.ParseFloat(m[2], 64)
			r[i] = [2]float64{lo*1000 - 100, hi*1000 + 100}
		}
		ranges[plan] = r
	}
	if len(ranges) != 2 {
		t.Fatalf("found %d of README.md's two codewhale size rows; the parser is stale", len(ranges))
	}
	for _, c := range compositions {
		c.memory = true
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			system, tools, body := firstRequest(t, c)
			r := ranges[c.mode == posture.Plan || c.child == "scout"]
			for i, n := range []int{len(system), len(system) + len(tools), body} {
				if f := float64(n); f < r[i][0] || f > r[i][1] {
					t.Errorf("%s: %s is %d bytes, outside README.md's %.1f–%.1f KB", c.name,
						[]string{"the system prompt", "system prompt + tools", "the whole first request"}[i], n,
						(r[i][0]+100)/1000, (r[i][1]-100)/1000)
				}
			}
		})
	}
}

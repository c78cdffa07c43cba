// testreport reads `go test -json` on stdin and prints what a person needs
// from a long run: each package's result line, the output of every failed
// test, and at the end how many tests were skipped and which, with the
// first line of each reason. It exits 1 when a test or package failed.
//
//	go test -json ./... | go run ./scripts/testreport
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action, Package, Test, Output string
	Elapsed                       float64
}

func main() {
	output := map[string][]string{} // package/test -> its output lines
	var skips, fails []string
	failed := false
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Println(sc.Text()) // a build error or other plain line
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			output[key] = append(output[key], e.Output)
			if e.Test == "" && (strings.HasPrefix(e.Output, "ok ") || strings.HasPrefix(e.Output, "FAIL") ||
				strings.HasPrefix(e.Output, "?") || strings.HasPrefix(e.Output, "---")) {
				fmt.Print(e.Output)
			}
		case "skip":
			if e.Test != "" {
				skips = append(skips, fmt.Sprintf("%s %s: %s", e.Package, e.Test, reason(output[key])))
			}
		case "fail":
			failed = true
			if e.Test != "" {
				fails = append(fails, key)
				fmt.Print(strings.Join(output[key], ""))
			} else if len(output[key]) > 0 && !strings.Contains(strings.Join(output[key], ""), "--- FAIL") {
				fmt.Print(strings.Join(output[key], "")) // a build failure or a crash outside a test
			}
		}
		if e.Action == "pass" || e.Action == "skip" {
			delete(output, key)
		}
	}
	sort.Strings(skips)
	fmt.Printf("\n%d test(s) skipped:\n", len(skips))
	for _, s := range skips {
		fmt.Println("  " + s)
	}
	if failed {
		fmt.Printf("\nFAILED: %s\n", strings.Join(fails, ", "))
		os.Exit(1)
	}
}

// reason is the first line a skipped test logged (its Skip message).
func reason(lines []string) string {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		if i := strings.Index(t, ": "); i > 0 && strings.Contains(t[:i], ".go:") {
			t = t[i+2:]
		}
		return t
	}
	return "(no reason given)"
}

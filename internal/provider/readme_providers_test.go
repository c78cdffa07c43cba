package provider

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/readme"
)

var readmeSpan = regexp.MustCompile("`([^`\n]+)`")

// README.md "Providers: OpenRouter, local models, your gateway": the provider table is the built-in preset table row
// for row — id, base URL, key variable ("none needed" exactly for the local servers) and default model ("the
// server's first listed model" exactly where the preset has none) — and deepseek is the default.
func TestREADMEProviderTableIsThePresets(t *testing.T) {
	t.Parallel()
	section := readme.Section(t, "Providers: OpenRouter, local models, your gateway")
	var ids []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) != 6 {
			t.Fatalf("README.md provider row %q: want 4 cells", line)
		}
		span := func(cell string) string {
			if m := readmeSpan.FindStringSubmatch(cell); m != nil {
				return m[1]
			}
			return ""
		}
		id := span(cells[1])
		if id == "--provider" {
			continue // the header
		}
		ids = append(ids, id)
		p, ok := LookupPreset(id)
		if !ok {
			t.Errorf("README.md lists --provider %s, which has no preset", id)
			continue
		}
		if strings.Contains(cells[1], "(default)") != (id == "deepseek") {
			t.Errorf("README.md marks the default provider wrongly in %q", line)
		}
		if got := span(cells[2]); got != p.BaseURL {
			t.Errorf("%s: README.md base URL %q, preset %q", id, got, p.BaseURL)
		}
		if key := span(cells[3]); key == "" || !slices.Contains(p.KeyEnv, key) {
			t.Errorf("%s: README.md key variable %q, preset %v", id, key, p.KeyEnv)
		}
		if strings.Contains(cells[3], "none needed") != p.Local {
			t.Errorf("%s: README.md says %q, preset local=%v", id, strings.TrimSpace(cells[3]), p.Local)
		}
		if p.Model == "" {
			if !strings.Contains(cells[4], "the server's first listed model") {
				t.Errorf("%s: README.md default model %q, preset has none (the server's first)", id, cells[4])
			}
		} else if got := span(cells[4]); got != p.Model {
			t.Errorf("%s: README.md default model %q, preset %q", id, got, p.Model)
		}
	}
	var want []string
	for _, p := range Presets() {
		want = append(want, p.ID)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("README.md's provider table lists %v, the presets are %v", ids, want)
	}
}

// README.md "When the provider misbehaves": at most [retry] max_retries retries (3, so 4 attempts), at most 2 for a
// stall, a Retry-After waited up to 60 s, every wait ±10 % around a base of at least 10 ms, first byte within 45 s, no silence over 120 s, a
// whole request within 30 min. (The config keys' defaults: config's TestDefaultsAndKeySources.)
func TestREADMERetryDefaults(t *testing.T) {
	t.Parallel()
	if DefaultRetry.MaxRetries != 3 || MaxStallRetries != 2 || DefaultRetry.MaxRetryAfter != 60*time.Second || minDelay != 10*time.Millisecond {
		t.Errorf("retry defaults %+v, stall retries %d, floor %v", DefaultRetry, MaxStallRetries, minDelay)
	}
	if DefaultOpenTimeout != 45*time.Second || DefaultIdleTimeout != 120*time.Second || DefaultRequestTimeout != 30*time.Minute {
		t.Errorf("deadlines %v %v %v", DefaultOpenTimeout, DefaultIdleTimeout, DefaultRequestTimeout)
	}
	for attempt := range 6 {
		if d := DefaultRetry.Delay(attempt); d < 900*time.Millisecond || d > 66*time.Second {
			t.Errorf("attempt %d waits %v, outside 1 s × 2^n (≤ 60 s) ± 10 %%", attempt, d)
		}
		if d := (RetryPolicy{ExponentialBase: 2}).Delay(attempt); d < minDelay*9/10 || d > minDelay*11/10 {
			t.Errorf("attempt %d with no initial delay waits %v, want the 10 ms floor ± 10 %%", attempt, d)
		}
	}
}

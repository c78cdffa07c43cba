package main

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Start-up is measured in docs/PERFORMANCE.md against a hello-world binary;
// the time itself is too noisy on a shared machine to assert, but what the
// package initialisers allocate is exact. Every byte allocated before main
// is a page the kernel must fault in on every start, so this guards what
// start-up is allowed: dependencies as released (goldmark's regular
// expressions, x/net/html's entities, jsonschema-go's tables and
// santhosh-tekuri/jsonschema v5's five draft meta-schemas, about 1 MB, are
// built in their inits), but not chroma's lexers or styles packages (12–15
// ms and 19 ms of init; lexers are built from third_party/chromalexers on
// the first highlighted block).
// README.md "Development": chroma's lexers package is not built at start-up.
func TestStartupInitBudget(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "--version")
	cmd.Env = []string{"GODEBUG=inittrace=1", "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	const (
		totalBudget = 2432 << 10 // bytes allocated by every init together (2,235 KiB when written)
		lazyBudget  = 24 << 10   // any one package made lazy
	)
	lazy := []string{"github.com/codewhale/codewhale/third_party/"}
	never := []string{"github.com/alecthomas/chroma/v2/lexers", "github.com/alecthomas/chroma/v2/styles"}
	total := 0
	for _, l := range strings.Split(string(out), "\n") {
		// init github.com/yuin/goldmark/util @1.2 ms, 0.04 ms clock, 82144 bytes, 9 allocs
		f := strings.Fields(l)
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("unreadable inittrace line %q", l)
		}
		total += n
		for _, p := range lazy {
			if strings.HasPrefix(f[1], p) && n > lazyBudget {
				t.Errorf("%s allocates %d bytes at start (budget %d): what was made lazy runs in init again", f[1], n, lazyBudget)
			}
		}
		for _, p := range never {
			if strings.HasPrefix(f[1], p) {
				t.Errorf("%s is initialised at start (%d bytes): it must not be linked", f[1], n)
			}
		}
	}
	if total == 0 {
		t.Fatalf("no inittrace lines in the output:\n%s", out)
	}
	if total > totalBudget {
		t.Errorf("package initialisers allocate %d bytes at start, over the %d budget (docs/PERFORMANCE.md)", total, totalBudget)
	}
	if !strings.Contains(string(out), "codewhale version ") {
		t.Errorf("--version printed %q", out)
	}
}

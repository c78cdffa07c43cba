package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/readme"
	"go.yaml.in/yaml/v3"
)

// README.md "Install": the Go it names is go.mod's `go` line, and the release's checksum file is
// codewhale_<version>_checksums.txt, as `sha256sum -c` is told to read it.
func TestREADMEInstallGoVersionAndChecksums(t *testing.T) {
	t.Parallel()
	root := e2e.ModuleRoot(t)
	out, err := exec.Command("go", "mod", "edit", "-json", filepath.Join(root, "go.mod")).Output()
	if err != nil {
		t.Fatal(err)
	}
	var mod struct{ Go string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Go == "" {
		t.Fatalf("go.mod's go line: %q (%v)", mod.Go, err)
	}
	section := readme.Section(t, "Install")
	if !strings.Contains(section, "With Go "+mod.Go+" or later") {
		t.Errorf("README.md's Install section does not say \"With Go %s or later\" (go.mod's go line)", mod.Go)
	}
	if qs := readme.Section(t, "Quick start"); !strings.Contains(qs, "With Go "+mod.Go+" or later installed") {
		t.Errorf("README.md's Quick start does not say \"With Go %s or later installed\" (go.mod's go line)", mod.Go)
	}
	raw, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ProjectName string `yaml:"project_name"`
		Checksum    struct {
			NameTemplate string `yaml:"name_template"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	name := strings.NewReplacer("{{ .ProjectName }}", c.ProjectName, "{{ .Version }}", "<version>").Replace(c.Checksum.NameTemplate)
	if !strings.Contains(section, "`"+name+"`") || !strings.Contains(section, "sha256sum -c --ignore-missing "+name) {
		t.Errorf("the release's checksum file is %q, which README.md's Install section does not name", name)
	}
}

// makeTargets are the Makefile's rules: target → prerequisites and recipe.
func makeTargets(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(e2e.ModuleRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	target := ""
	for _, line := range strings.Split(strings.ReplaceAll(string(raw), "\\\n", " "), "\n") {
		if m := regexp.MustCompile(`^([a-z][a-z-]*):([^=].*|)$`).FindStringSubmatch(line); m != nil {
			target = m[1]
			rules[target] = m[2]
			continue
		}
		if strings.HasPrefix(line, "\t") && target != "" {
			rules[target] += "\n" + line
		} else if !strings.HasPrefix(line, "#") {
			target = ""
		}
	}
	return rules
}

// README.md "Quick start": make run builds bin/codewhale and starts it; make check is gofmt, go vet, staticcheck and
// go test -short through the report that lists the skips; make test adds the uncached unit run, race, fuzz and
// cross (the other OSes) and installs the npm MCP servers; .ci/run installs the end-to-end tests' packages, sets
// CODEWHALE_REQUIRE_E2E=1 and calls make test.
// README.md "Install": make build writes bin/codewhale with the `git describe` version.
// README.md "Development": make build is static (CGO_ENABLED=0), make bench runs the benchmarks and, with
// hyperfine, scripts/bench-startup.sh, make lint runs staticcheck, and make test runs scripts/third_party.sh verify.
func TestREADMEMakeTargets(t *testing.T) {
	t.Parallel()
	rules := makeTargets(t)
	raw, err := os.ReadFile(filepath.Join(e2e.ModuleRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	mk := string(raw)
	want := map[string][]string{
		"run":         {"build", "./$(BIN)"},
		"build":       {"CGO_ENABLED=0", "-o $(BIN)", "$(LDFLAGS)"},
		"check":       {"fmt-check", "vet", "lint", "test -short", "scripts/testreport"},
		"unit":        {"-count=1", "scripts/testreport"},
		"test":        {"fmt-check", "vet", "lint", "third-party", "mcp-servers", "unit", "race", "fuzz", "cross"},
		"bench":       {"-bench", "hyperfine", "scripts/bench-startup.sh"},
		"lint":        {"staticcheck"},
		"fmt-check":   {"gofmt -l"},
		"vet":         {"vet"},
		"third-party": {"scripts/third_party.sh verify"},
		"mcp-servers": {"scripts/install-mcp-servers.sh"},
	}
	for target, parts := range want {
		rule, ok := rules[target]
		if !ok {
			t.Errorf("the Makefile has no %s target", target)
			continue
		}
		for _, p := range parts {
			if !strings.Contains(rule, p) {
				t.Errorf("make %s does not do %q:\n%s", target, p, rule)
			}
		}
	}
	for _, v := range []string{"BIN       := bin/codewhale", "-X main.version=$(VERSION)", "git describe"} {
		if !strings.Contains(mk, v) {
			t.Errorf("the Makefile lacks %q", v)
		}
	}
	for _, s := range []string{"scripts/install-mcp-servers.sh", "scripts/bench-startup.sh", "scripts/differential.sh", "scripts/third_party.sh"} {
		if _, err := os.Stat(filepath.Join(e2e.ModuleRoot(t), s)); err != nil {
			t.Errorf("README.md names %s: %v", s, err)
		}
	}
	ci, err := os.ReadFile(filepath.Join(e2e.ModuleRoot(t), ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "export CODEWHALE_REQUIRE_E2E=1") || !strings.Contains(string(ci), "make test") {
		t.Errorf(".ci/run does not set CODEWHALE_REQUIRE_E2E=1 and run make test")
	}
	for _, dep := range []string{"tmux:tmux", "git:git", "ripgrep:rg", "poppler-utils:pdftotext", "python3-pytest", "cargo:cargo", "bubblewrap:bwrap"} {
		if !strings.Contains(string(ci), dep) {
			t.Errorf(".ci/run does not install %s, which README.md's Quick start says the end-to-end tests need", dep)
		}
	}
}

// README.md "Quick start": the test report (make check, make unit) ends with the count of skipped tests and their
// names, each with its reason.
func TestREADMETestReportListsSkips(t *testing.T) {
	t.Parallel()
	in := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: tmux is not installed\n"}
{"Action":"skip","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}
{"Action":"pass","Package":"p"}
`
	cmd := exec.Command("go", "run", "./scripts/testreport")
	cmd.Dir, cmd.Stdin = e2e.ModuleRoot(t), strings.NewReader(in)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("testreport: %v\n%s", err, out)
	}
	if !strings.HasSuffix(string(out), "\n1 test(s) skipped:\n  p TestA: tmux is not installed\n") || !strings.Contains(string(out), "ok  \tp") {
		t.Errorf("testreport printed:\n%s", out)
	}
}

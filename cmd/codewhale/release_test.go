package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// goreleaserConfig is the part of .goreleaser.yaml the release relies on.
type goreleaserConfig struct {
	Version int `yaml:"version"`
	Builds  []struct {
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
}

// The release archives the README's Install section names: linux, darwin
// and windows on amd64 and arm64, static, versioned with -X, with a
// checksum file. `goreleaser check` validates the file as goreleaser reads
// it when make release-check has installed it into .cache/bin.
// README.md "Install": linux, darwin, windows × amd64, arm64; tar.gz, zip on Windows.
func TestGoreleaserConfigShape(t *testing.T) {
	t.Parallel()
	root := e2e.ModuleRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c goreleaserConfig
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if c.Version != 2 || len(c.Builds) != 1 || len(c.Archives) != 1 {
		t.Fatalf("want version 2 with one build and one archive, got %+v", c)
	}
	b := c.Builds[0]
	if _, err := os.Stat(filepath.Join(root, b.Main, "main.go")); err != nil || b.Binary != "codewhale" {
		t.Errorf("build main %q binary %q: want ./cmd/codewhale and codewhale (%v)", b.Main, b.Binary, err)
	}
	for _, want := range [][2]any{{b.Goos, []string{"linux", "darwin", "windows"}}, {b.Goarch, []string{"amd64", "arm64"}}} {
		got, w := want[0].([]string), want[1].([]string)
		slices.Sort(got)
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("targets %v, want %v", got, w)
		}
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") || !strings.Contains(strings.Join(b.Ldflags, " "), "-X main.version={{.Version}}") {
		t.Errorf("build env %v ldflags %v: want CGO_ENABLED=0 and -X main.version={{.Version}}", b.Env, b.Ldflags)
	}
	a := c.Archives[0]
	if !slices.Equal(a.Formats, []string{"tar.gz"}) || len(a.FormatOverrides) != 1 || a.FormatOverrides[0].Goos != "windows" ||
		!slices.Equal(a.FormatOverrides[0].Formats, []string{"zip"}) {
		t.Errorf("archives %+v: want tar.gz, zip on windows", a)
	}
	if c.Checksum.Algorithm != "sha256" || c.Checksum.NameTemplate == "" {
		t.Errorf("checksum %+v: want a sha256 checksum file", c.Checksum)
	}
	bin := filepath.Join(root, ".cache", "bin", "goreleaser")
	if _, err := os.Stat(bin); err != nil {
		e2e.Missing(t, "goreleaser is not in .cache/bin (make release-check installs it): the shape is checked, goreleaser check is not")
	}
	cmd := exec.Command(bin, "check", "--config", filepath.Join(root, ".goreleaser.yaml"))
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("goreleaser check: %v\n%s", err, out)
	}
}

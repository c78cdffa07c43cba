package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/tools/agent"
)

// README.md "Configuration": the annotated config.toml shows the defaults: loaded as the user config it resolves to
// what no config file does, bar reasoning_effort (the example sets high; unset it is auto) and [subagents], whose
// 64 and 1024 are the sub-agent manager's defaults for an unset 0.
func TestREADMEConfigurationExampleIsTheDefaults(t *testing.T) {
	t.Parallel()
	var example string
	for _, b := range readmeTOML(t) {
		if strings.HasPrefix(b, `model = "deepseek-v4-pro"`) && strings.Contains(b, "[session_retention]") {
			example = b
		}
	}
	if example == "" {
		t.Fatal("README.md's Configuration section has no config.toml example starting with model = ...")
	}
	home := t.TempDir()
	withFile, err := loadWith(t, home, example, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(home, "config.toml")); err != nil {
		t.Fatal(err)
	}
	bare, err := loadProject(t, home, "")
	if err != nil {
		t.Fatal(err)
	}
	if withFile.ReasoningEffort != "high" || bare.ReasoningEffort != "" || settingValue(bare, "reasoning_effort") != "auto" {
		t.Errorf("reasoning_effort: example %q, unset %q (shown as %q)", withFile.ReasoningEffort, bare.ReasoningEffort,
			settingValue(bare, "reasoning_effort"))
	}
	if withFile.MaxSubagents != agent.DefaultMaxSubagents || withFile.MaxAdmitted != agent.MaxSubagentAdmission ||
		bare.MaxSubagents != 0 || bare.MaxAdmitted != 0 {
		t.Errorf("[subagents]: example %d/%d, unset %d/%d", withFile.MaxSubagents, withFile.MaxAdmitted, bare.MaxSubagents, bare.MaxAdmitted)
	}
	got, want := authority(withFile), authority(bare)
	got.ReasoningEffort, got.MaxSubagents, got.MaxAdmitted = want.ReasoningEffort, want.MaxSubagents, want.MaxAdmitted
	got.BaseSource = want.BaseSource // the example names the default base_url; only its source differs
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range gv.NumField() {
		f := gv.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		g, w := gv.Field(i), wv.Field(i)
		if g.Kind() == reflect.Slice && g.Len() == 0 && w.Len() == 0 {
			continue
		}
		if !reflect.DeepEqual(g.Interface(), w.Interface()) {
			t.Errorf("%s: the README's example gives %s, the default is %s", f.Name, fmt.Sprintf("%+v", g.Interface()),
				fmt.Sprintf("%+v", w.Interface()))
		}
	}
}

// settingValue is the value /settings shows for key.
func settingValue(c *Config, key string) string {
	for _, s := range c.Settings() {
		if s.Key == key {
			return s.Value
		}
	}
	return "?"
}

// README.md "Configuration": CODEWHALE_REQUEST_TIMEOUT_SECS (fractional seconds), CODEWHALE_MAX_OUTPUT_TOKENS and
// DEEPSEEK_HTTP_HEADERS=name=value,… are read from the environment.
func TestREADMEConfigurationEnvironment(t *testing.T) {
	t.Parallel()
	e := map[string]string{"CODEWHALE_HOME": t.TempDir(), "CODEWHALE_REQUEST_TIMEOUT_SECS": "90.5",
		"CODEWHALE_MAX_OUTPUT_TOKENS": "4096", "DEEPSEEK_HTTP_HEADERS": "X-One=1,X-Two=two"}
	c, err := Load(Flags{Workspace: t.TempDir()}, func(k string) string { return e[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.RequestTimeout != 90500*time.Millisecond {
		t.Errorf("request timeout %v, want 90.5s", c.RequestTimeout)
	}
	if c.MaxOutputTokens != 4096 {
		t.Errorf("max output tokens %d", c.MaxOutputTokens)
	}
	if c.Headers["X-One"] != "1" || c.Headers["X-Two"] != "two" {
		t.Errorf("headers %v", c.Headers)
	}
}

package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// README.md "Slash commands": /config --save writes a key to config.toml, keeping its comments
func TestSetKeyKeepsCommentsAndTables(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.toml")
	orig := "# my settings\nmodel = \"deepseek-v4-pro\" # fast enough\n\n[retry]\nmax_retries = 2\n"
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetKey(path, "model", "deepseek-v4-flash"); err != nil {
		t.Fatal(err)
	}
	if err := SetKey(path, "allow_shell", "false"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "# my settings\nmodel = \"deepseek-v4-flash\"\n\nallow_shell = false\n[retry]\nmax_retries = 2\n"
	if string(got) != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range [][2]string{{"approval_policy", "yolo"}, {"max_steps", "many"}, {"api_key", "sk-x"}, {"allow_shell", "maybe"}} {
		if err := SetKey(path, bad[0], bad[1]); err == nil {
			t.Errorf("%s = %s was written", bad[0], bad[1])
		}
	}
	after, _ := os.ReadFile(path)
	if string(after) != want || strings.Contains(string(after), "yolo") {
		t.Errorf("a refused value changed the file:\n%s", after)
	}
	fresh := filepath.Join(t.TempDir(), "new", "config.toml")
	if err := SetKey(fresh, "default_mode", "plan"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(fresh); string(b) != "default_mode = \"plan\"\n" {
		t.Errorf("new file = %q", b)
	}
}

// README.md "Web and GitHub": [notifications] defaults to when = "auto", method = "bel" and refuses other values.
func TestNotificationsConfig(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		"": "auto bel",
		"[notifications]\nwhen = \"always\"\nmethod = \"osc777\"\n": "always osc777",
		"[notifications]\nwhen = \"sometimes\"\n":                   "error",
		"[notifications]\nmethod = \"toast\"\n":                     "error",
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(Flags{}, func(k string) string { return map[string]string{"CODEWHALE_HOME": home}[k] })
		got := "error"
		if err == nil {
			got = c.NotifyWhen + " " + c.NotifyMethod
		}
		if got != want {
			t.Errorf("%q: %s (%v), want %s", body, got, err, want)
		}
	}
}

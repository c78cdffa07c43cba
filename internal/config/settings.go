package config

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/codewhale/codewhale/internal/atomicfile"
	"github.com/codewhale/codewhale/internal/posture"
)

// Setting is one effective setting as /settings and /config show it.
type Setting struct {
	Key   string
	Value string
	// InFile is the value written in the user config file ("" = not set
	// there, a default or another source applies).
	InFile string
}

// Settings lists the settings a person can change with /config, with the
// value in force and the one in the file.
func (c *Config) Settings() []Setting {
	f := c.File
	boolStr := func(b *bool) string {
		if b == nil {
			return ""
		}
		return strconv.FormatBool(*b)
	}
	intStr := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	return []Setting{
		{"model", c.Model, f.Model},
		{"reasoning_effort", orDefault(c.ReasoningEffort, "auto"), f.ReasoningEffort},
		{"default_mode", c.Mode.String(), f.DefaultMode},
		{"approval_policy", c.Posture.String(), f.ApprovalPolicy},
		{"sandbox_mode", orDefault(string(c.Sandbox.Mode), "workspace-write"), f.SandboxMode},
		{"allow_shell", strconv.FormatBool(c.AllowShell), boolStr(f.AllowShell)},
		{"max_steps", strconv.Itoa(c.MaxSteps), intStr(f.MaxSteps)},
		{"auto_compact", orDefault(boolStr(f.AutoCompact), "true"), boolStr(f.AutoCompact)},
		{"base_url", c.BaseURL + " (" + c.BaseSource + ")", f.BaseURL},
		{"mcp_config_path", c.MCPConfigPath, f.MCPConfigPath},
	}
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// Editable reports whether /config may write key, and how its value is
// written: strings quoted, booleans and integers bare.
func Editable(key string) (kind string, ok bool) {
	switch key {
	case "model", "reasoning_effort", "default_mode", "approval_policy", "sandbox_mode":
		return "string", true
	case "allow_shell", "auto_compact":
		return "bool", true
	case "max_steps":
		return "int", true
	}
	return "", false
}

// EditableKeys lists the keys /config writes, sorted.
func EditableKeys() []string {
	keys := []string{"model", "reasoning_effort", "default_mode", "approval_policy", "sandbox_mode", "allow_shell",
		"auto_compact", "max_steps"}
	sort.Strings(keys)
	return keys
}

// SetKey writes one top-level key of the config file at path, keeping
// every other line (comments included): an existing `key = …` line above
// the first table is replaced, else the key is added there. The result
// must parse, or nothing is written. go-toml has no comment-preserving
// writer, hence the line edit.
func SetKey(path, key, value string) error {
	kind, ok := Editable(key)
	if !ok {
		return fmt.Errorf("config: %s cannot be set from the TUI; edit %s", key, path)
	}
	lit, err := literal(kind, value)
	if err != nil {
		return fmt.Errorf("config: %s: %w", key, err)
	}
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("config: %s: %w", path, err)
	}
	data := setLine(string(old), key, key+" = "+lit)
	f, err := ParseFile(path, []byte(data))
	if err != nil {
		return err
	}
	if _, err := (&Config{Path: path, File: *f}).posture(Flags{}, func(string) string { return "" }); err != nil {
		return fmt.Errorf("config: %s: %w", key, err)
	}
	if key == "default_mode" {
		if _, err := posture.ParseMode(value); err != nil {
			return fmt.Errorf("config: default_mode: %w", err)
		}
	}
	if err := atomicfile.Write(path, []byte(data), 0o600, true); err != nil {
		return fmt.Errorf("config: writing %s: %w", path, err)
	}
	return nil
}

func literal(kind, v string) (string, error) {
	switch kind {
	case "bool":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return "", fmt.Errorf("%q is not true or false", v)
		}
		return strconv.FormatBool(b), nil
	case "int":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return "", fmt.Errorf("%q is not a whole number", v)
		}
		return strconv.Itoa(n), nil
	}
	return strconv.Quote(v), nil
}

var tableHeader = regexp.MustCompile(`^\s*\[`)

// setLine replaces or adds `key = …` among the top-level lines of a TOML
// document.
func setLine(doc, key, line string) string {
	lines := strings.Split(doc, "\n")
	assign := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*=`)
	firstTable := len(lines)
	for i, l := range lines {
		if tableHeader.MatchString(l) {
			firstTable = i
			break
		}
		if assign.MatchString(l) {
			lines[i] = line
			return strings.Join(lines, "\n")
		}
	}
	out := append(append(append([]string(nil), lines[:firstTable]...), line), lines[firstTable:]...)
	s := strings.Join(out, "\n")
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return strings.TrimLeft(s, "\n")
}

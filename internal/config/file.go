// Package config loads ~/.codewhale/config.toml, the project overlay and the
// environment, and resolves the effective settings with the precedence CLI
// flag > environment > project overlay > user config > defaults
// (CONTRACT.md §12.3).
package config

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/codewhale/codewhale/internal/textdist"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// File is the shape of config.toml. Pointer fields distinguish "unset" from
// a zero value.
type File struct {
	Provider               string                     `toml:"provider"`
	BaseURL                string                     `toml:"base_url"`
	APIKey                 string                     `toml:"api_key"`
	Model                  string                     `toml:"model"`
	DefaultTextModel       string                     `toml:"default_text_model"`
	ReasoningEffort        string                     `toml:"reasoning_effort"`
	AllowShell             *bool                      `toml:"allow_shell"`
	MaxSteps               int                        `toml:"max_steps"`
	ApprovalPolicy         string                     `toml:"approval_policy"`
	SandboxMode            string                     `toml:"sandbox_mode"`
	TrustedPaths           []string                   `toml:"trusted_paths"`
	StrictToolMode         bool                       `toml:"strict_tool_mode"`
	MCPConfigPath          string                     `toml:"mcp_config_path"`
	StreamChunkTimeoutSecs float64                    `toml:"stream_chunk_timeout_secs"`
	StreamOpenTimeoutSecs  float64                    `toml:"stream_open_timeout_secs"`
	RequestTimeoutSecs     float64                    `toml:"request_timeout_secs"`
	MemoryPath             string                     `toml:"memory_path"`
	NotesPath              string                     `toml:"notes_path"`
	MaxSubagents           int                        `toml:"max_subagents"`
	DefaultMode            string                     `toml:"default_mode"`
	TestCommand            string                     `toml:"test_command"`
	SessionRetention       *Retention                 `toml:"session_retention"`
	AutoCompact            *bool                      `toml:"auto_compact"`
	AutoCompactPercent     int                        `toml:"auto_compact_threshold_percent"`
	Retry                  *Retry                     `toml:"retry"`
	Memory                 *Memory                    `toml:"memory"`
	Features               *Features                  `toml:"features"`
	Tools                  *Tools                     `toml:"tools"`
	Subagents              *Subagents                 `toml:"subagents"`
	Agents                 *Agents                    `toml:"agents"`
	Providers              map[string]ProviderTable   `toml:"providers"`
	Pricing                map[string]Price           `toml:"pricing"`
	Models                 map[string]ModelTableEntry `toml:"models"`
	Network                *Network                   `toml:"network"`
	Sandbox                *SandboxTable              `toml:"sandbox"`
	Shell                  *Shell                     `toml:"shell"`
	Search                 *Search                    `toml:"search"`
	GitHub                 *GitHub                    `toml:"github"`
	Notifications          *Notifications             `toml:"notifications"`
	Hooks                  []Hook                     `toml:"hooks"`
	LSP                    *LSPTable                  `toml:"lsp"`
}

// Hook is one [[hooks]] entry; internal/hooks validates and runs them.
type Hook struct {
	Name      string `toml:"name"`
	Event     string `toml:"event"`
	Matcher   string `toml:"matcher"`
	Command   string `toml:"command"`
	TimeoutMS int    `toml:"timeout_ms"`
}

// Notifications is the [notifications] table: when the TUI tells the
// terminal that a turn ended or an approval waits, and how.
type Notifications struct {
	When   string `toml:"when"`   // off | auto (only while the terminal is unfocused; default) | always
	Method string `toml:"method"` // bel (default) | osc9 | osc777
}

// Retry is the [retry] table.
type Retry struct {
	Enabled         *bool    `toml:"enabled"`
	MaxRetries      *int     `toml:"max_retries"`
	InitialDelay    *float64 `toml:"initial_delay"`
	MaxDelay        *float64 `toml:"max_delay"`
	ExponentialBase *float64 `toml:"exponential_base"`
	MaxRetryAfter   *float64 `toml:"max_retry_after"`
}

// Memory is the [memory] table.
type Memory struct {
	Enabled *bool `toml:"enabled"`
}

// Features is the [features] table.
type Features struct {
	ApplyPatch *bool `toml:"apply_patch"`
	WebSearch  *bool `toml:"web_search"`
	Subagents  *bool `toml:"subagents"`
}

// Tools is the [tools] table.
type Tools struct {
	AlwaysLoad []string `toml:"always_load"`
}

// Subagents is the [subagents] table.
type Subagents struct {
	MaxConcurrent int `toml:"max_concurrent"`
	MaxAdmitted   int `toml:"max_admitted"`
}

// Agents is the [agents] table: sub-agent types (CONTRACT.md §6.5).
type Agents struct {
	// DefaultModel is the model of a sub-agent whose call and definition
	// name none (default: the session's model).
	DefaultModel string `toml:"default_model"`
}

// ProviderTable is one [providers.<name>] table.
type ProviderTable struct {
	APIKey               string            `toml:"api_key"`
	APIKeyEnv            string            `toml:"api_key_env"`
	BaseURL              string            `toml:"base_url"`
	Model                string            `toml:"model"`
	ContextWindow        int               `toml:"context_window"`
	PathSuffix           string            `toml:"path_suffix"`
	ReasoningStreamStyle string            `toml:"reasoning_stream_style"`
	Headers              map[string]string `toml:"headers"`
}

// Retention is the opt-in session pruning policy.
type Retention struct {
	MaxSessions int `toml:"max_sessions"`
	MaxAgeDays  int `toml:"max_age_days"`
}

// Price is a per-model price table entry in USD per million tokens.
type Price struct {
	Input        float64 `toml:"input"`
	CachedInput  float64 `toml:"cached_input"`
	Output       float64 `toml:"output"`
	ContextLimit int     `toml:"context_window"`
}

// ParseFile decodes a config file. Errors name the file and line; an unknown
// key suggests the closest known one.
func ParseFile(path string, data []byte) (*File, error) {
	var f File
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&f)
	if err == nil {
		if err := f.foldProviderIDs(path); err != nil {
			return nil, err
		}
		return &f, nil
	}
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		var lines []string
		for _, de := range strict.Errors {
			row, _ := de.Position()
			key := strings.Join(de.Key(), ".")
			msg := fmt.Sprintf("config: %s line %d: unknown key %q", path, row, key)
			if s := closestKey(de.Key()); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			lines = append(lines, msg)
		}
		return nil, errors.New(strings.Join(lines, "\n"))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return nil, fmt.Errorf("config: %s line %d, column %d: %s", path, row, col, de.Error())
	}
	return nil, fmt.Errorf("config: %s: %w", path, err)
}

// foldProviderIDs keys the [providers.<id>] tables by the lower-case id a
// route looks them up by (--provider and `provider =` are folded to lower
// case, CONTRACT.md §10.2); two tables differing only in case are an error.
func (f *File) foldProviderIDs(path string) error {
	if len(f.Providers) == 0 {
		return nil
	}
	folded := make(map[string]ProviderTable, len(f.Providers))
	written := map[string]string{}
	for _, id := range slices.Sorted(maps.Keys(f.Providers)) {
		k := strings.ToLower(id)
		if prev, dup := written[k]; dup {
			return fmt.Errorf("config: %s: [providers.%s] and [providers.%s] name one provider (provider ids are not case-sensitive); merge them", path, prev, id)
		}
		written[k] = id
		folded[k] = f.Providers[id]
	}
	f.Providers = folded
	return nil
}

// readFile loads path; a missing file is not an error (nil, nil).
func readFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %s: %w", path, err)
	}
	return ParseFile(path, data)
}

// readProjectFile loads the workspace's overlay through the confined
// reader (internal/tools/confine): the model can write the workspace, so the
// file is read only where it resolves inside it, through no link swapped in
// after that check. A missing file is not an error (nil, nil).
func readProjectFile(workspace, path string) (*File, error) {
	data, _, err := confine.ReadBeneath(workspace, path, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case errors.Is(err, confine.ErrEscape):
		return nil, fmt.Errorf("config: %s resolves to %s, outside the workspace; a project config is read only from "+
			"inside it (move it, or start with --no-project-config)", path, confine.Resolve(path))
	case err != nil:
		return nil, fmt.Errorf("config: %s: %w", path, err)
	}
	return ParseFile(path, data)
}

// closestKey suggests the known key closest to the last part (a prefix of
// it, or within edit distance 2).
func closestKey(key []string) string {
	if len(key) == 0 {
		return ""
	}
	table := ""
	if len(key) > 1 {
		table = key[0]
	}
	if s := textdist.Suggest(key[len(key)-1], knownKeys()[table], 2, 1); len(s) > 0 {
		return s[0]
	}
	return ""
}

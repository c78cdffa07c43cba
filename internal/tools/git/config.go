package git

import (
	"strings"

	"github.com/go-git/go-git/v5/config"
	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// configValue looks key up in the repository config, then the user's
// global config, then the system one (git's precedence for the settings the
// renderers need).
func (rp *repo) configValue(section, key string) (string, bool) {
	if rp.configs == nil {
		if c, err := rp.git.Storer.Config(); err == nil && c.Raw != nil {
			rp.configs = append(rp.configs, c.Raw)
		}
		for _, scope := range []config.Scope{config.GlobalScope, config.SystemScope} {
			if c, err := config.LoadConfig(scope); err == nil && c.Raw != nil {
				rp.configs = append(rp.configs, c.Raw)
			}
		}
		if rp.configs == nil {
			rp.configs = []*format.Config{}
		}
	}
	for _, raw := range rp.configs {
		if !raw.HasSection(section) {
			continue
		}
		if s := raw.Section(section); s.HasOption(key) {
			return s.Option(key), true
		}
	}
	return "", false
}

// configBool reads a boolean setting with git's spellings.
func (rp *repo) configBool(section, key string, def bool) bool {
	v, ok := rp.configValue(section, key)
	if !ok {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "true", "yes", "on", "1":
		return true
	case "false", "no", "off", "0":
		return false
	}
	return def
}

// hasIncludes reports whether any configuration file includes others,
// which this reader does not follow.
func (rp *repo) hasIncludes() bool {
	rp.configValue("core", "bare") // loads the configs
	for _, raw := range rp.configs {
		if raw.HasSection("include") || raw.HasSection("includeif") || raw.HasSection("includeIf") {
			return true
		}
	}
	return false
}

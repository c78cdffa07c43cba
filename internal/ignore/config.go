package ignore

import (
	"os"
	"path/filepath"
	"strings"

	format "github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/codewhale/codewhale/internal/gitrepo"
)

// excludePath is the info/exclude file of the repository whose worktree top
// is dir: in the common directory, so a linked worktree shares its main
// checkout's.
func excludePath(dir string) string {
	_, common, err := gitrepo.Dirs(dir)
	if err != nil {
		return ""
	}
	return filepath.Join(common, "info", "exclude")
}

// GlobalExcludesFile is the global excludes file for a tree at root, as git
// finds it: core.excludesFile from the system, global and repository config
// (the last one set wins), else $XDG_CONFIG_HOME/git/ignore (default
// ~/.config/git/ignore). "" when there is none to look for.
func GlobalExcludesFile(root string) string {
	if v, ok := configValue(configFiles(root), "core", "excludesfile"); ok {
		if v == "" {
			return ""
		}
		return expandHome(v)
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", "ignore")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config", "git", "ignore")
	}
	return ""
}

// configFiles lists the config files git reads for a repository at root,
// lowest precedence first: system, global (XDG, then ~/.gitconfig, or
// GIT_CONFIG_GLOBAL alone), then the repository's own.
func configFiles(root string) []string {
	var files []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		files = append(files, "/etc/gitconfig")
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		home, _ := os.UserHomeDir()
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	if _, common, err := gitrepo.Dirs(root); err == nil {
		files = append(files, filepath.Join(common, "config"))
	}
	return files
}

// configValue is the last value of section.key across files.
func configValue(files []string, section, key string) (string, bool) {
	val, found := "", false
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		cfg := format.New()
		err = format.NewDecoder(f).Decode(cfg)
		f.Close()
		if err != nil || !cfg.HasSection(section) {
			continue
		}
		if opts := cfg.Section(section).Options; opts.Has(key) {
			val, found = opts.Get(key), true
		}
	}
	return val, found
}

func expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

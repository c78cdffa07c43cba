package attach

import (
	"net/url"
	"os"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/shell"

	"github.com/codewhale/codewhale/internal/images"
)

// windowsPath is a drive or UNC path, which Windows terminals paste with
// backslashes that are separators, not escapes.
var windowsPath = regexp.MustCompile(`^"?([A-Za-z]:[\\/]|\\\\)`)

// droppedPaths reads a paste as the image files a terminal pastes when
// files are dropped on it: one per line or several on a line, each as
// the terminal quotes it — a file:// URI (percent-encoded), '…' or "…"
// quoting, backslash-escaped spaces (macOS terminals), a bare path, or a
// Windows path in double quotes. It returns nil unless every word is a
// path with an image extension.
func droppedPaths(payload string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(payload), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		words, ok := pathWords(line)
		if !ok {
			return nil
		}
		out = append(out, words...)
	}
	for _, p := range out {
		if !images.IsImageName(p) {
			return nil
		}
	}
	return out
}

// pathWords splits one pasted line into paths.
func pathWords(line string) ([]string, bool) {
	if windowsPath.MatchString(line) {
		return []string{strings.Trim(line, `"`)}, true
	}
	if strings.HasPrefix(line, "file://") {
		var out []string
		for _, f := range strings.Fields(line) {
			u, err := url.Parse(f)
			if err != nil || u.Scheme != "file" || u.Path == "" {
				return nil, false
			}
			out = append(out, u.Path)
		}
		return out, true
	}
	if images.IsImageName(line) && !strings.ContainsAny(line, `'"\`) &&
		(!strings.Contains(line, " ") || strings.HasPrefix(line, "/") || strings.HasPrefix(line, "~/") || strings.HasPrefix(line, "./")) {
		return []string{line}, true // a bare path, spaces and all
	}
	// Quoted or escaped: word splitting and quote removal as a shell does
	// them, with no variable, command or glob expansion (a command
	// substitution is an error, never run).
	home, _ := os.UserHomeDir()
	words, err := shell.Fields(line, func(name string) string {
		if name == "HOME" {
			return home
		}
		return ""
	})
	if err != nil || len(words) == 0 {
		return nil, false
	}
	return words, true
}

// unquotePath is a path typed after /attach, with the quoting a person or
// a drop adds removed; anything else is taken as typed.
func unquotePath(arg string) string {
	if ps := droppedPaths(arg); len(ps) == 1 {
		return ps[0]
	}
	return arg
}

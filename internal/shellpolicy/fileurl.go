package shellpolicy

import (
	"net/url"
	"path"
	"strings"
)

// A file: URL is a path by another name: curl file://$HOME/.ssh/id_rsa
// reads the key as cat does. Any argument of any command (and any string
// in inline code) that is a file: URL is checked as the path it names,
// after curl's percent-decoding and {a,b} / [x-y] globbing; one outside
// the workspace needs explicit approval even when it is no secret.

// fileURLPath is the local path a file: URL names (file:///p,
// file://localhost/p, FILE:/p; any host is read as the local one).
func fileURLPath(s string) (string, bool) {
	if len(s) < 5 || !strings.EqualFold(s[:5], "file:") {
		return "", false
	}
	rest := s[5:]
	if strings.HasPrefix(rest, "//") {
		_, p, _ := strings.Cut(rest[2:], "/")
		rest = "/" + p
	}
	if d, err := url.PathUnescape(rest); err == nil {
		rest = d
	}
	return rest, true
}

// fileURL checks the paths a file: URL argument names.
func (c *classifier) fileURL(p, arg string) {
	alts := braces(p)
	if i := strings.IndexAny(p, "?#"); i > 0 {
		alts = append(alts, p[:i])
	}
	for _, alt := range alts {
		c.pathArg(value{s: alt, known: true, glob: strings.ContainsAny(alt, "[*?")}, false)
		abs := c.absPath(alt)
		if ws := c.env.Workspace; ws == "" || !within(abs, ws) {
			c.flag(Explicit, "reads a local file outside the workspace through a file: URL ("+short(arg)+")")
		}
	}
}

// maxConfigDepth bounds curl config files that name further config files.
const maxConfigDepth = 4

// curl reads the config files curl would (-K FILE, -K -, and .curlrc in a
// CURL_HOME, XDG_CONFIG_HOME or HOME the command sets): every value in
// them is checked as the same argument on the command line would be.
func (c *classifier) curl(args []value, stdin *source) {
	for i, a := range args {
		switch {
		case (a.s == "-K" || a.s == "--config") && i+1 < len(args):
			c.curlConfig(args[i+1], stdin, 0)
		case strings.HasPrefix(a.s, "--config="):
			f := a
			f.s = strings.TrimPrefix(a.s, "--config=")
			c.curlConfig(f, stdin, 0)
		case len(a.s) > 2 && a.s[0] == '-' && a.s[1] != '-' && strings.Contains(a.s, "K"):
			// -K in a bundle of short options: the rest of it, or the next argument
			if rest := a.s[strings.IndexByte(a.s, 'K')+1:]; rest != "" {
				f := a
				f.s = rest
				c.curlConfig(f, stdin, 0)
			} else if i+1 < len(args) {
				c.curlConfig(args[i+1], stdin, 0)
			}
		}
	}
	for _, name := range []string{"CURL_HOME", "XDG_CONFIG_HOME", "HOME"} {
		v, ok := c.prefix[name]
		if s, set := c.vars[name]; !ok && set {
			v, ok = lit(s), true
		}
		if !ok {
			continue
		}
		if !v.known {
			c.flag(Explicit, "curl reads its .curlrc from a directory the classifier cannot see ("+name+"="+v.text()+")")
			continue
		}
		rc := c.absPath(path.Join(v.s, ".curlrc"))
		if _, ok := c.files[rc]; ok || fileExists(rc) {
			c.curlConfig(lit(rc), stdin, 0)
		}
	}
}

// curlConfig checks one curl config file.
func (c *classifier) curlConfig(f value, stdin *source, depth int) {
	text, ok := "", false
	switch {
	case !f.known:
	case stdinPath(f.s):
		if stdin != nil && stdin.visible {
			text, ok = stdin.text, true
		}
	default:
		abs := c.absPath(f.s)
		switch w, seen := c.files[abs]; {
		case seen:
			text, ok = w.text, w.visible
		case c.mayHaveChanged(abs): // an earlier program may have written it
		default:
			if b, read := readSmall(abs); read {
				text, ok = string(b), true
			}
		}
		c.pathArg(f, false)
	}
	if !ok {
		c.flag(Explicit, "curl reads options from a file the classifier cannot see (-K "+f.text()+")")
		return
	}
	for _, line := range strings.Split(text, "\n") {
		name, val, ok := curlConfigLine(line)
		if !ok {
			continue
		}
		if name == "K" || name == "config" {
			if depth < maxConfigDepth {
				c.curlConfig(lit(val), nil, depth+1)
			} else {
				c.flag(Explicit, "curl config files name each other deeper than the classifier follows")
			}
			continue
		}
		c.pathArg(lit(val), name == "o" || name == "output" || name == "D" || name == "dump-header")
	}
}

// curlConfigLine splits one line of a curl config file (`url = "…"`,
// `--output file`, `-o file`) into the option's name and its value.
func curlConfigLine(line string) (name, val string, ok bool) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return "", "", false
	}
	i := strings.IndexAny(line, " \t=:")
	if i < 0 {
		return strings.TrimLeft(line, "-"), "", true
	}
	name, val = strings.TrimLeft(line[:i], "-"), strings.TrimLeft(line[i:], " \t=:")
	if strings.HasPrefix(val, `"`) {
		var b strings.Builder
		for j := 1; j < len(val) && val[j] != '"'; j++ {
			if val[j] == '\\' && j+1 < len(val) {
				j++
			}
			b.WriteByte(val[j])
		}
		return name, b.String(), true
	}
	if k := strings.IndexAny(val, " \t"); k >= 0 {
		val = val[:k]
	}
	return name, val, true
}

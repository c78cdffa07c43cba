package shellpolicy

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// source is what a command prints (or a redirection feeds), as far as the
// script shows it.
type source struct {
	text     string
	visible  bool     // text is exactly what flows
	download bool     // it comes from the network (curl, wget, …)
	file     bool     // it is a file's content (< path, cat path)
	path     string   // that file, when it is known
	operands []string // paths the producer names (find DIR, echo A B), for xargs
	numeric  bool     // whatever it is, it is a number (wc -l, nproc, $((…)))
}

// written is what this command line put in a file before a later part of
// it reads or runs the file.
type written struct {
	text     string
	visible  bool   // text is the whole content
	download bool   // the content came from the network
	from     string // the file on disk it is a copy of, or ""
}

// source is the file's content as something a later command reads.
func (w written) source() source {
	return source{text: w.text, visible: w.visible, download: w.download, file: w.from != "", path: w.from}
}

// wrote records content written to the file at abs (appending adds to what
// the script wrote before; to a file it did not write, it is unknown).
func (c *classifier) wrote(abs string, content source, appends bool) {
	abs = c.resolveLinks(abs) // ln -s a b; echo … > b writes a
	prev, ok := c.files[abs]
	switch {
	case appends && (!ok && fileExists(abs) || ok && !prev.visible):
		c.files = set(c.files, abs, written{download: content.download || prev.download})
	case appends && content.visible:
		c.files = set(c.files, abs, written{text: prev.text + content.text, visible: true, download: prev.download || content.download})
	case content.visible:
		c.files = set(c.files, abs, written{text: content.text, visible: true, download: content.download})
	case content.file && content.path != "":
		c.files = set(c.files, abs, written{from: content.path})
	default:
		c.files = set(c.files, abs, written{download: content.download})
	}
}

// redirection is what a statement's redirections mean for the
// classifier: what feeds its stdin, and the file its stdout goes to.
type redirection struct {
	in      *source
	out     string // absolute path of a literal stdout target, or ""
	appends bool
}

// redirects classifies a statement's redirections.
func (c *classifier) redirects(rs []*syntax.Redirect) redirection {
	var red redirection
	for _, r := range rs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			v := c.hdocBody(r)
			red.in = &source{text: v.s, visible: v.known, download: v.download}
		case syntax.WordHdoc:
			v := c.word(r.Word)
			red.in = &source{text: v.s + "\n", visible: v.known, download: v.download}
		case syntax.RdrIn:
			v := c.word(r.Word)
			c.pathArg(v, false)
			red.in = &source{file: true, path: c.absPath(v.s)}
			if v.proc != nil {
				red.in = v.proc
			} else if w, ok := c.files[c.absPath(v.s)]; ok && v.known {
				in := w.source()
				red.in = &in
			}
		case syntax.DplIn, syntax.DplOut:
			if v := c.word(r.Word); v.s != "-" && !isDigits(v.s) {
				c.writeTarget(v) // >&file is &>file
			}
		default: // >, >>, >|, &>, &>>, <>
			v := c.word(r.Word)
			c.writeTarget(v)
			if (r.N == nil || r.N.Value == "1") && r.Op != syntax.RdrInOut && v.known {
				red.out = c.absPath(v.s)
				red.appends = r.Op == syntax.AppOut || r.Op == syntax.AppAll
			} else if !strings.HasPrefix(v.s, "/dev/") {
				// 2>f, 3>f (exec 3>f; echo … >&3), <>f: what reaches the
				// file is not what the statement prints, so it is unseen.
				c.changed(v)
			}
		}
	}
	return red
}

// hdocBody is a here-document's text as the command reads it: as written
// when the delimiter is quoted (<<'EOF'), else expanded with the rules of
// double quotes, where a backslash escapes only $, `, \ and a newline.
func (c *classifier) hdocBody(r *syntax.Redirect) value {
	if r.Hdoc == nil {
		return value{known: true, literal: true}
	}
	if r.Word != nil && (r.Word.Lit() == "" || strings.Contains(r.Word.Lit(), `\`)) { // quoted: no expansion at all
		var b strings.Builder
		for _, p := range r.Hdoc.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			} else {
				return c.word(r.Hdoc) // not what a quoted body parses to; judge it as a word
			}
		}
		return value{s: b.String(), known: true, literal: true, w: r.Hdoc}
	}
	v := value{known: true, literal: true, w: r.Hdoc}
	var b expansion
	for _, p := range r.Hdoc.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(hdocUnescape(l.Value))
			continue
		}
		c.parts(&b, []syntax.WordPart{p}, true, &v)
	}
	v.s = b.String()
	return v
}

// hdocUnescape removes the backslashes an unquoted here-document removes:
// before $, `, \ and a newline (which it joins), never before a quote.
func hdocUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\\\n", s[i+1]) >= 0 {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// writeTarget classifies a file a redirection writes.
func (c *classifier) writeTarget(v value) {
	switch s := v.s; {
	case s == "/dev/null" || s == "/dev/stdout" || s == "/dev/stderr" || s == "/dev/tty" || strings.HasPrefix(s, "/dev/fd/"):
		return
	case blockDevice(s):
		c.flag(Blocked, "redirects output onto a disk device ("+s+")")
	}
	c.atLeast(Ordinary)
	c.pathArg(v, true)
}

// emits is what a simple command prints, for the stage after it, a
// command substitution or xargs.
func (c *classifier) emits(args []value, stdin *source) source {
	args = unwrapQuiet(args)
	if len(args) == 0 {
		return source{}
	}
	name, rest := path.Base(args[0].s), args[1:]
	passthrough := func() source {
		if stdin == nil {
			return source{}
		}
		return *stdin
	}
	switch name {
	case "echo":
		return echo(rest)
	case "printf":
		return printf(rest)
	case "cat", "tee":
		if ops := operandsOf(rest); name == "cat" && len(ops) > 0 {
			return c.cat(ops, stdin)
		}
		return passthrough()
	case "base64", "base32", "xxd":
		return decode(name, rest, stdin)
	case "rev":
		if in := passthrough(); in.visible && len(operandsOf(rest)) == 0 {
			return source{text: revLines(in.text), visible: true, download: in.download}
		}
	case "pwd":
		return source{text: c.cwd + "\n", visible: c.cwd != ""}
	case "wc", "nproc", "seq", "id", "date":
		return source{numeric: numericOutput(name, rest)}
	case "curl", "wget", "fetch", "nc", "ncat", "socat", "http", "https", "aria2c", "lynx", "links", "w3m":
		return source{download: true}
	case "find", "ls":
		return source{operands: c.findStarts(name, rest)}
	}
	return source{}
}

// numericOutput reports a command that prints only a number (so a value
// taken from it cannot hold code for an arithmetic subscript).
func numericOutput(name string, args []value) bool {
	switch name {
	case "wc":
		return len(operands(args)) == 0 // wc FILE prints the file's name too
	case "nproc":
		return true
	case "seq":
		return !has(args, "-f", "--format", "-s", "--separator")
	case "id":
		return len(args) == 1 && (args[0].s == "-u" || args[0].s == "-g")
	case "date":
		return len(args) == 1 && args[0].s == "+%s"
	}
	return false
}

// findStarts are the paths find starts from (operands before the first
// expression) or the operands of ls.
func (c *classifier) findStarts(name string, args []value) []string {
	var out []string
	for _, a := range args {
		if name == "find" && (strings.HasPrefix(a.s, "-") || a.s == "(" || a.s == "!") {
			break
		}
		if !strings.HasPrefix(a.s, "-") {
			out = append(out, a.s)
		}
	}
	if len(out) == 0 && name == "find" {
		out = append(out, ".")
	}
	return out
}

func echo(args []value) source {
	newline, escapes := true, false
	for len(args) > 0 && len(args[0].s) > 1 && strings.Trim(args[0].s, "-neE") == "" && args[0].s[0] == '-' &&
		!strings.Contains(args[0].s[1:], "-") {
		for _, f := range args[0].s[1:] {
			switch f {
			case 'n':
				newline = false
			case 'e', 'E':
				escapes = f == 'e' // the last one wins, as in bash
			}
		}
		args = args[1:]
	}
	out := source{visible: true}
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.s
		out.visible = out.visible && a.known && !a.glob
		out.download = out.download || a.download
	}
	out.text = strings.Join(parts, " ")
	if escapes {
		var stop bool
		if out.text, stop = decodeEscapes(out.text, escEcho); stop {
			newline = false // \c: nothing more, not even the newline
		}
	} else if dashEscapes(out.text) {
		// dash's echo (sh on Debian and Ubuntu) decodes escapes without -e,
		// bash's does not: which one prints this cannot be told.
		out.visible = false
	}
	if newline {
		out.text += "\n"
	}
	out.operands = strings.Fields(out.text)
	return out
}

// dashEscapes reports text holding an escape dash's echo decodes: \b \c
// \f \n \r \t \v \\ and \0NNN (not bash's \x, \u or \e).
func dashEscapes(text string) bool {
	for i := strings.IndexByte(text, '\\'); i >= 0 && i+1 < len(text); {
		if strings.IndexByte("bcfnrtv\\0", text[i+1]) >= 0 {
			return true
		}
		j := strings.IndexByte(text[i+1:], '\\')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// cat is the concatenation of its operands: "-" and /dev/stdin are what
// the pipe feeds it, a file this command line wrote is what it wrote, one
// file on disk is that file. Several are one text when each part can be
// read; otherwise what flows is unseen.
func (c *classifier) cat(ops []string, stdin *source) source {
	part := func(op string) source {
		if op == "/dev/null" {
			return source{visible: true}
		}
		if op == "-" || op == "/dev/stdin" {
			if stdin == nil {
				return source{}
			}
			return *stdin
		}
		abs := c.resolveLinks(c.absPath(op))
		if w, ok := c.files[abs]; ok {
			return w.source()
		}
		if c.mayHaveChanged(abs) {
			return source{}
		}
		return source{file: true, path: abs}
	}
	if len(ops) == 1 {
		return part(ops[0]) // what it prints is the content, never the names
	}
	out := source{visible: true}
	var b strings.Builder
	for _, op := range ops {
		p := part(op)
		out.download = out.download || p.download
		switch {
		case p.visible:
			b.WriteString(p.text)
		case p.file && p.path != "":
			text, read := readSmall(p.path)
			if !read {
				out.visible = false
			}
			b.Write(text)
		default:
			out.visible = false
		}
	}
	if out.visible {
		out.text = b.String()
	}
	return out
}

// printf follows bash's printf far enough to know what it prints: -v NAME
// prints nothing (the variable gets the text), "--" ends the options, %s
// and %b take the arguments in order, the format is used again while
// arguments remain (printf '%s\n' a b prints two lines), and escapes are
// decoded in the format and in %b's arguments, never in %s's. Anything more
// elaborate is not followed: the output is then not visible.
func printf(args []value) source {
	if len(args) > 0 && args[0].known {
		switch a := args[0].s; {
		case a == "-v" && len(args) > 1 || strings.HasPrefix(a, "-v") && len(a) > 2:
			return source{visible: true} // the output goes to the variable
		case a == "--":
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return source{}
	}
	out := source{visible: true}
	for _, a := range args {
		out.visible = out.visible && a.known && !a.glob
		out.download = out.download || a.download
	}
	format, rest := args[0].s, args[1:]
	var b, lit strings.Builder
	flush := func() {
		text, _ := decodeEscapes(lit.String(), escFormat)
		b.WriteString(text)
		lit.Reset()
	}
	stopped := false
	for pass := 0; !stopped && (pass == 0 || len(rest) > 0); pass++ {
		took := false
		for i := 0; i < len(format) && !stopped; i++ {
			if format[i] == '%' && i+1 < len(format) {
				switch format[i+1] {
				case 's', 'b':
					flush()
					if len(rest) > 0 {
						if format[i+1] == 'b' {
							var text string
							text, stopped = decodeEscapes(rest[0].s, escBArg) // \c ends all output
							b.WriteString(text)
						} else {
							b.WriteString(rest[0].s)
						}
						rest, took = rest[1:], true
					}
					i++
					continue
				case '%':
					lit.WriteByte('%')
					i++
					continue
				}
				out.visible = false
			}
			lit.WriteByte(format[i])
		}
		if !stopped {
			flush()
		}
		if !took || len(b.String()) > maxScan {
			break // a format without %s prints once; a huge output is not followed
		}
	}
	out.text = b.String()
	out.operands = strings.Fields(out.text)
	return out
}

// decode follows base64 -d, base32 -d and xxd -r -p of visible input.
func decode(name string, args []value, stdin *source) source {
	decoding, plain := false, false
	for _, a := range args {
		switch a.s {
		case "-d", "--decode", "-D", "-r", "--revert":
			decoding = true
		case "-p", "-ps", "--plain", "-i", "--ignore-garbage":
			plain = true
		default:
			if !strings.HasPrefix(a.s, "-") {
				return source{} // decodes a file
			}
		}
	}
	if stdin == nil || !decoding {
		return source{}
	}
	text := stdin.text
	if !stdin.visible {
		b, ok := readSmall(stdin.path)
		if !ok || !stdin.file {
			return source{download: stdin.download}
		}
		text = string(b)
	}
	in := strings.Join(strings.Fields(text), "")
	var out []byte
	var err error
	switch {
	case name == "base64":
		out, err = base64.StdEncoding.DecodeString(in)
		if err != nil {
			out, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(in, "="))
		}
		if err != nil {
			out, err = base64.URLEncoding.DecodeString(in)
		}
	case name == "base32":
		out, err = base32.StdEncoding.DecodeString(in)
	case name == "xxd" && plain:
		out, err = hex.DecodeString(in)
	default:
		return source{}
	}
	if err != nil {
		return source{download: stdin.download}
	}
	return source{text: string(out), visible: true, download: stdin.download}
}

func revLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		r := []rune(l)
		for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
			r[a], r[b] = r[b], r[a]
		}
		lines[i] = string(r)
	}
	return strings.Join(lines, "\n")
}

// readSmall reads a regular file of at most maxScan bytes.
func readSmall(p string) ([]byte, bool) {
	if p == "" || !path.IsAbs(p) {
		return nil, false
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxScan {
		return nil, false
	}
	b, err := os.ReadFile(p)
	return b, err == nil
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func blockDevice(p string) bool {
	for _, prefix := range []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk",
		"/dev/rdisk", "/dev/mapper/", "/dev/md", "/dev/dm-", "/dev/loop", "/dev/mem", "/dev/kmem", "/dev/port"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

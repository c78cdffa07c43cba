package shellpolicy

import (
	"path"
	"strconv"
	"strings"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// parallelSpec is GNU parallel's grammar (parallel(1); Getopt::Long with
// bundling and require_order, so options stop at the command and long
// options may be abbreviated).
func parallelSpec() wrapperSpec {
	return wrapperSpec{valued: []string{"-j", "--jobs", "-P", "-a", "--arg-file", "--arg-sep", "--argsep",
		"--arg-file-sep", "--argfilesep", "-C", "--colsep", "-d", "--delimiter", "-E", "-I", "--extensionreplace",
		"--er", "-U", "--basenamereplace", "--bnr", "--dirnamereplace", "--dnr", "--seqreplace", "--slotreplace",
		"-n", "--max-args", "-N", "--max-replace-args", "-L", "-s", "--max-chars", "--joblog", "--results", "--res",
		"--tmpdir", "--workdir", "--wd", "-S", "--sshlogin", "--sshloginfile", "--slf", "--return", "--transferfile",
		"--tf", "--trc", "--basefile", "--bf", "--load", "--memfree", "--memsuspend", "--nice", "--timeout",
		"--tagstring", "--ctagstring", "--retries", "--delay", "--sshdelay", "--header", "--block", "--recstart",
		"--recend", "--profile", "-J", "--halt", "--semaphorename", "--id", "--semaphoretimeout", "--st", "--template",
		"--tmpl", "--group-by", "--env", "--rpl", "--sqlmaster", "--sqlworker", "--sqlandworker", "--termseq",
		"--filter"},
		scripts: []string{"--ssh", "--compress-program", "--decompress-program", "--limit"},
		runs:    runsTemplate}
}

// maxJobs bounds the job command lines built from parallel's inputs.
const maxJobs = 256

// unknownInput stands for an input the classifier cannot see: a word whose
// value is unknown wherever it lands in a job's command line.
const unknownInput = `"$__codewhale_unknown_input"`

// parallelJob is GNU parallel's job line: the template with each input in
// place of its replacement string (shell-quoted, as parallel quotes it), or
// appended; without a template the inputs themselves are the command.
type parallelJob struct {
	template []string
	replace  string // -I's replacement string, else {}
	quote    bool   // -q: the template's words are quoted too
}

var replacement = lazyre.New(`\{(\d*)(\.|/|//|/\.)?\}`)

func (p parallelJob) line(inputs []string, known []bool) string {
	words := append([]string(nil), p.template...)
	if p.quote {
		for i, w := range words {
			words[i] = shellQuote(w)
		}
	}
	arg := func(i int) string {
		if i >= len(inputs) || !known[i] {
			return unknownInput
		}
		return shellQuote(inputs[i])
	}
	if len(words) == 0 {
		out := make([]string, len(inputs))
		for i, in := range inputs {
			out[i] = in
			if !known[i] {
				out[i] = unknownInput
			}
		}
		return strings.Join(out, " ")
	}
	t := strings.Join(words, " ")
	if p.replace != "" && p.replace != "{}" {
		t = strings.ReplaceAll(t, p.replace, "{}")
	}
	if !replacement().MatchString(t) {
		for i := range inputs {
			t += " " + arg(i)
		}
		return t
	}
	return replacement().ReplaceAllStringFunc(t, func(m string) string {
		sub := replacement().FindStringSubmatch(m)
		i := 0
		if n, err := strconv.Atoi(sub[1]); err == nil {
			i = n - 1
		}
		if i < 0 || i >= len(inputs) || !known[i] {
			return unknownInput
		}
		return shellQuote(derive(inputs[i], sub[2]))
	})
}

// derive is {.} {/} {//} {/.} of an input.
func derive(s, op string) string {
	switch op {
	case ".":
		return strings.TrimSuffix(s, path.Ext(s))
	case "/":
		return path.Base(s)
	case "//":
		return path.Dir(s)
	case "/.":
		b := path.Base(s)
		return strings.TrimSuffix(b, path.Ext(b))
	}
	return s
}

// parallelArgs splits parallel's operands into the template and the
// input sources (::: values, :::: files).
func parallelArgs(w wrapped) (job parallelJob, lists [][]value, files []value) {
	sep, fileSep := ":::", "::::"
	for i, o := range w.opts {
		switch {
		case takesValue(o.s, "--arg-sep", "--argsep") && i+1 < len(w.opts):
			sep = w.opts[i+1].s
		case takesValue(o.s, "--arg-file-sep", "--argfilesep") && i+1 < len(w.opts):
			fileSep = w.opts[i+1].s
		case o.s == "-I" && i+1 < len(w.opts):
			job.replace = w.opts[i+1].s
		case strings.HasPrefix(o.s, "-I") && len(o.s) > 2:
			job.replace = o.s[2:]
		case o.s == "-q" || takesValue(o.s, "--quote"):
			job.quote = true
		}
	}
	args, mode := w.inner, 0 // 0 template, 1 values, 2 files
	for _, a := range args {
		switch a.s {
		case sep, sep + "+":
			mode = 1
			lists = append(lists, nil)
		case fileSep, fileSep + "+":
			mode = 2
		default:
			switch mode {
			case 0:
				job.template = append(job.template, a.s)
			case 1:
				lists[len(lists)-1] = append(lists[len(lists)-1], a)
			default:
				files = append(files, a)
			}
		}
	}
	return job, lists, files
}

// parallel classifies GNU parallel: every job line it would run from the
// inputs the command line shows, and the template against unknown inputs
// from a file or a pipe the classifier cannot see.
func (c *classifier) parallel(w wrapped, stdin *source) {
	c.atLeast(Ordinary)
	job, lists, files := parallelArgs(w)
	for _, t := range job.template {
		if strings.Contains(t, "{=") {
			c.code("perl", t, "parallel {= … =}")
		}
	}
	fromArgFile := has(w.opts, "-a", "--arg-file")
	if len(lists) == 0 && len(files) == 0 && !fromArgFile && !has(w.opts, "--pipe", "--pipepart", "--pipe-part") {
		if len(job.template) == 0 {
			if stdin != nil {
				c.runCode("sh", *stdin, "parallel") // each input line is a command
			}
			return
		}
		if stdin != nil && stdin.visible && !stdin.download {
			lists = append(lists, linesOf(stdin.text))
		} else {
			lists = append(lists, []value{{s: "…"}})
		}
	}
	if len(files) > 0 || fromArgFile {
		lists = append(lists, []value{{s: "…"}})
	}
	if len(lists) == 0 {
		lists = [][]value{nil}
	}
	combos, ok := combinations(lists)
	if !ok {
		c.flag(Explicit, "parallel has more inputs than the classifier checks one by one")
	}
	for _, combo := range combos {
		inputs, known := make([]string, len(combo)), make([]bool, len(combo))
		unseen := false
		for i, v := range combo {
			inputs[i], known[i] = v.s, v.known
			unseen = unseen || !v.known
		}
		if len(job.template) == 0 && unseen {
			c.flag(Explicit, "parallel runs commands from an input the classifier cannot see")
			return
		}
		c.nested(job.line(inputs, known), "parallel")
	}
}

func linesOf(text string) []value {
	var out []value
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		out = append(out, lit(l))
	}
	return out
}

// combinations pairs every input with the first input of each other list
// (so each value is judged in its place in a job line) rather than the
// full product parallel runs: what a job does depends on each input, not on
// which others share its line. ok is false past maxJobs.
func combinations(lists [][]value) (out [][]value, ok bool) {
	var lead []value
	for _, l := range lists {
		if len(l) > 0 {
			lead = append(lead, l[0])
		}
	}
	out = [][]value{lead}
	pos := 0
	for _, l := range lists {
		if len(l) == 0 {
			continue
		}
		for _, v := range l[1:] {
			if len(out) == maxJobs {
				return out, false
			}
			combo := append([]value(nil), lead...)
			combo[pos] = v
			out = append(out, combo)
		}
		pos++
	}
	return out, true
}

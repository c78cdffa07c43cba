package shellpolicy

import "strings"

// has reports whether any argument is one of flags, spelled any way the
// flag could be: exactly, with =value, as a prefix of a longer long option,
// or (for one-letter flags) inside a bundle such as -rf. Arguments after
// "--" are operands.
func has(args []value, flags ...string) bool {
	for _, v := range args {
		a := v.s
		if a == "--" {
			return false
		}
		for _, f := range flags {
			switch {
			case strings.HasPrefix(a, f) && (len(a) == len(f) || a[len(f)] == '='): // f, f=VALUE
				return true
			case strings.HasPrefix(f, "--") && (strings.HasPrefix(a, f) || abbreviates(a, f)):
				return true
			case len(f) == 2 && f[0] == '-' && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], f[1]) >= 0:
				return true
			}
		}
	}
	return false
}

// abbreviates reports a long option a (--name or --name=value) that names
// the long flag f by a prefix: GNU getopt_long (rm, chmod, sort, xargs …)
// and git's parse-options (push, clean, reset, gc, grep …) accept any
// unique prefix, so `rm --recur --forc /` is `rm -rf /`. A prefix another
// flag shares is refused by the program as ambiguous, so counting it costs
// only a stricter verdict. A flag with a value (--prune=now) matches only
// that value.
func abbreviates(a, f string) bool {
	name, val, withVal := strings.Cut(a, "=")
	fname, fval, fWithVal := strings.Cut(f, "=")
	if len(name) < 3 || !strings.HasPrefix(name, "--") || !strings.HasPrefix(fname, name) {
		return false
	}
	return !fWithVal || withVal && val == fval
}

// operands are the arguments that are not flags ("-" is one; everything
// after "--" is). Operands that stand together (the usual case) are a
// part of args, capped so that an append copies; nothing writes to them.
func operands(args []value) []value {
	first, last, n := -1, -1, 0
	flags := true
	for i, a := range args {
		if !operand(a.s, &flags) {
			continue
		}
		if first < 0 {
			first = i
		}
		last, n = i, n+1
	}
	switch {
	case n == 0:
		return nil
	case last-first+1 == n:
		return args[first : last+1 : last+1]
	}
	out := make([]value, 0, n)
	flags = true
	for _, a := range args {
		if operand(a.s, &flags) {
			out = append(out, a)
		}
	}
	return out
}

// operand reports whether a is an operand; flags is whether options may
// still follow, and a "--" ends them.
func operand(a string, flags *bool) bool {
	switch {
	case *flags && a == "--":
		*flags = false
		return false
	case *flags && strings.HasPrefix(a, "-") && a != "-":
		return false
	}
	return true
}

func operandsOf(args []value) []string {
	var out []string
	for _, o := range operands(args) {
		out = append(out, o.s)
	}
	return out
}

// valued reports whether flag a is one of names (which take a value).
func valued(a string, names ...string) bool {
	for _, n := range names {
		if a == n {
			return true
		}
	}
	return false
}

// takesValue reports an option a that is one of names, which take their
// value as the next argument, or a long one's abbreviation (--arg-f FILE).
func takesValue(a string, names ...string) bool {
	for _, n := range names {
		if a == n || !strings.Contains(a, "=") && strings.HasPrefix(n, "--") && abbreviates(a, n) {
			return true
		}
	}
	return false
}

func lit(s string) value { return value{s: s, known: true, literal: true} }

func stdinPath(s string) bool {
	return s == "-" || s == "/dev/stdin" || s == "/dev/fd/0" || s == "/proc/self/fd/0"
}

// optionValue is the value of the option word a: val, what follows its =,
// when attached, else the next argument (i moves past it); ok is false when
// no argument follows.
func optionValue(args []value, i *int, a value, val string, attached bool) (v value, ok bool) {
	if attached {
		a.s = val
		return a, true
	}
	if *i+1 >= len(args) {
		return value{}, false
	}
	*i++
	return args[*i], true
}

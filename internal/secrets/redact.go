package secrets

import (
	"regexp"
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// minKeyLen is the shortest configured key Redact replaces literally: a
// shorter "key" is a test placeholder, and replacing it would shred ordinary
// text.
const minKeyLen = 8

// Marker returns the text that stands in for a redacted secret of kind.
func Marker(kind string) string { return "[REDACTED:" + kind + "]" }

// Redact returns text with every secret replaced by a marker
// ("[REDACTED:api-key]"): the keys Options.Keys returns, wherever they
// appear, and text shaped like a credential — sk-… API keys, GitHub tokens
// (ghp_…, gho_…, github_pat_…), AWS access key ids and
// aws_secret_access_key values, PEM private-key blocks (to the end of the
// text when the block is cut off), the value of an `Authorization: Bearer`
// header, Slack tokens and Google API keys. The patterns aim at precision: a
// false positive changes what the model sees of a file. Text without any
// secret is returned unchanged.
func (p *Policy) Redact(text string) string {
	if text == "" {
		return text
	}
	if p.opts.Keys != nil {
		for _, k := range p.opts.Keys() {
			k = strings.TrimSpace(k)
			if len(k) >= minKeyLen && strings.Contains(text, k) {
				text = strings.ReplaceAll(text, k, Marker("api-key"))
			}
		}
	}
	spans := findSecrets(text)
	if len(spans) == 0 {
		return text
	}
	return replaceSpans(text, spans)
}

// span is one secret found in a text: text[start:end] becomes Marker(kind).
type span struct {
	start, end int
	kind       string
}

// A shape is one credential format. Finding shapes is two-stage, because
// running a dozen regular expressions over every tool result costs
// milliseconds while the common case holds no secret at all: a scan for a
// few rare anchor bytes ('-', '_', 'A', 'x', 'z') proposes where a shape's
// keyword starts, and only there is the shape's regular expression (anchored
// with \A) run, over a bounded window.
type shape struct {
	kind string
	re   func() *regexp.Regexp
	// window bounds the text the expression sees from the keyword on; 0
	// means to the end of the text (a PEM block may be long).
	window int
	// group is the capture group that holds the secret value; 0 replaces
	// the whole match (group 1 keeps a header name such as Authorization).
	group int
	// check vetoes a match that only looks like a secret.
	check func(text string, start, end int) bool
}

var (
	shapePEM = shape{kind: "private-key", re: lazyre.New(
		`\A-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`)}
	shapeSK = shape{kind: "api-key", re: lazyre.New(`\Ask-[A-Za-z0-9_-]{20,}`), window: 512,
		check: func(t string, s, e int) bool { return wordStart(t, s) && strings.ContainsAny(t[s:e], "0123456789") }}
	shapeGH = shape{kind: "github-token", re: lazyre.New(`\Agh[pousr]_[A-Za-z0-9]{30,}`), window: 512,
		check: func(t string, s, _ int) bool { return wordStart(t, s) }}
	shapePAT = shape{kind: "github-token", re: lazyre.New(`\Agithub_pat_[A-Za-z0-9_]{22,}`), window: 512,
		check: func(t string, s, _ int) bool { return wordStart(t, s) }}
	shapeAWSSecret = shape{kind: "aws-secret-access-key", group: 1, window: 256,
		re: lazyre.New(`\A(?i:aws_secret_access_key)["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})`)}
	shapeAWSID = shape{kind: "aws-access-key-id", re: lazyre.New(`\A(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}`), window: 20,
		check: func(t string, s, e int) bool { return wordStart(t, s) && (e == len(t) || !isWord(t[e])) }}
	shapeGoogle = shape{kind: "google-api-key", re: lazyre.New(`\AAIza[0-9A-Za-z_-]{35}`), window: 64,
		check: func(t string, s, _ int) bool { return wordStart(t, s) }}
	shapeSlack = shape{kind: "slack-token", re: lazyre.New(`\Axox[abposr]-[A-Za-z0-9-]{10,}`), window: 512,
		check: func(t string, s, _ int) bool { return wordStart(t, s) }}
	shapeBearer = shape{kind: "bearer-token", group: 1, window: 4096,
		re: lazyre.New(`\A(?i:authorization)["']?\s*[:=]\s*["']?(?i:bearer)\s+([A-Za-z0-9._~+/=-]{8,})`)}
)

// candidate is a place where a shape's keyword may start.
type candidate struct {
	at int
	sh *shape
}

// findSecrets returns the secrets in text, in order and not overlapping.
func findSecrets(text string) []span {
	var cands []candidate
	eachByte(text, '-', func(i int) {
		if strings.HasPrefix(text[i:], "-----BEGIN ") && (i == 0 || text[i-1] != '-') {
			cands = append(cands, candidate{i, &shapePEM})
		}
		if i >= 2 && text[i-2:i] == "sk" {
			cands = append(cands, candidate{i - 2, &shapeSK})
		}
	})
	eachByte(text, '_', func(i int) {
		switch {
		case i >= 3 && text[i-3:i-1] == "gh" && strings.IndexByte("pousr", text[i-1]) >= 0:
			cands = append(cands, candidate{i - 3, &shapeGH})
		case i >= 6 && strings.HasPrefix(text[i-6:], "github_pat_"):
			cands = append(cands, candidate{i - 6, &shapePAT})
		case i >= 3 && strings.EqualFold(text[i-3:i], "aws") && hasPrefixFold(text[i:], "_secret_access_key"):
			cands = append(cands, candidate{i - 3, &shapeAWSSecret})
		}
	})
	eachByte(text, 'A', func(i int) {
		switch {
		case strings.HasPrefix(text[i:], "AIza"):
			cands = append(cands, candidate{i, &shapeGoogle})
		case len(text)-i >= 20 && awsIDPrefix(text[i:i+4]):
			cands = append(cands, candidate{i, &shapeAWSID})
		}
	})
	eachByte(text, 'x', func(i int) {
		if strings.HasPrefix(text[i:], "xox") {
			cands = append(cands, candidate{i, &shapeSlack})
		}
	})
	for _, z := range []byte{'z', 'Z'} {
		eachByte(text, z, func(i int) {
			if i >= 7 && hasPrefixFold(text[i-7:], "authorization") {
				cands = append(cands, candidate{i - 7, &shapeBearer})
			}
		})
	}
	return matchCandidates(text, cands)
}

// matchCandidates runs each candidate's expression at its place.
func matchCandidates(text string, cands []candidate) []span {
	if len(cands) == 0 {
		return nil
	}
	slices.SortFunc(cands, func(a, b candidate) int { return a.at - b.at })
	var out []span
	covered := 0
	for _, c := range cands {
		if c.at < covered {
			continue
		}
		win := text[c.at:]
		if c.sh.window > 0 && len(win) > c.sh.window {
			win = win[:c.sh.window]
		}
		m := c.sh.re().FindStringSubmatchIndex(win)
		if m == nil {
			continue
		}
		start, end := c.at+m[2*c.sh.group], c.at+m[2*c.sh.group+1]
		if c.sh.check != nil && !c.sh.check(text, start, end) {
			continue
		}
		out = append(out, span{start, end, c.sh.kind})
		covered = c.at + m[1]
	}
	return out
}

func replaceSpans(text string, spans []span) string {
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, s := range spans {
		b.WriteString(text[last:s.start])
		b.WriteString(Marker(s.kind))
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// eachByte calls f with every index of c in text.
func eachByte(text string, c byte, f func(int)) {
	for off := 0; ; {
		i := strings.IndexByte(text[off:], c)
		if i < 0 {
			return
		}
		f(off + i)
		off += i + 1
	}
}

func awsIDPrefix(s string) bool {
	switch s {
	case "AKIA", "ASIA", "ABIA", "ACCA":
		return true
	}
	return false
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// wordStart reports whether a token starting at i is not the tail of a
// longer word (task-…, mask_…).
func wordStart(text string, i int) bool { return i == 0 || !isWord(text[i-1]) }

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

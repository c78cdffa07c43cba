package budget

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON cuts the JSON text raw to budget characters and reports whether raw
// was JSON it could cut. The result is compact, valid JSON: arrays keep a
// prefix of their items, long strings keep a head with a marker, the largest
// members of an object are cut first, and a "truncation" member (first in
// the top-level object, which wraps a top-level array as "value") says what
// was cut, where, and why (note). Key order is preserved.
func JSON(raw string, budget int, note string) (string, bool) {
	if !isJSON(raw) {
		return "", false
	}
	total := Runes(raw)
	reserve := 160 + Runes(note)
	for try := 0; try < 4; try++ {
		root, err := parse(raw)
		if err != nil {
			return "", false
		}
		c := &cutter{}
		c.shrink(root, max(budget-reserve, 2), "$")
		out := withReceipt(root, c.receipt(note, total))
		n := Runes(out)
		if n <= budget {
			return out, true
		}
		reserve += n - budget + 32
	}
	return "", false
}

// node is one JSON value in an order-preserving tree. size caches the
// characters its compact encoding takes.
type node struct {
	kind byte   // 'o' object, 'a' array, 's' string, 'l' literal (number, true, false, null)
	str  string // a string's value or a literal's text
	keys []string
	kids []*node
	size int
}

func parse(raw string) (*node, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	n, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return n, nil
}

func parseValue(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &node{}
	switch v := tok.(type) {
	case json.Delim:
		n.kind = 'a'
		if v == '{' {
			n.kind = 'o'
		}
		for dec.More() {
			if n.kind == 'o' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			kid, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, kid)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.str = 's', v
	case json.Number:
		n.kind, n.str = 'l', v.String()
	case bool:
		n.kind, n.str = 'l', strconv.FormatBool(v)
	default:
		n.kind, n.str = 'l', "null"
	}
	n.measure()
	return n, nil
}

// measure recomputes n.size from its parts (the kids' sizes are current).
func (n *node) measure() {
	switch n.kind {
	case 's':
		n.size = quotedLen(n.str)
	case 'l':
		n.size = len(n.str)
	default:
		n.size = 2 + max(len(n.kids)-1, 0)
		for i, k := range n.kids {
			n.size += k.size
			if n.kind == 'o' {
				n.size += quotedLen(n.keys[i]) + 1
			}
		}
	}
}

func (n *node) encode(b *bytes.Buffer) {
	switch n.kind {
	case 's':
		appendQuoted(b, n.str)
	case 'l':
		b.WriteString(n.str)
	default:
		open, end := byte('['), byte(']')
		if n.kind == 'o' {
			open, end = '{', '}'
		}
		b.WriteByte(open)
		for i, k := range n.kids {
			if i > 0 {
				b.WriteByte(',')
			}
			if n.kind == 'o' {
				appendQuoted(b, n.keys[i])
				b.WriteByte(':')
			}
			k.encode(b)
		}
		b.WriteByte(end)
	}
}

// appendQuoted writes s as a JSON string the way encoding/json does with
// HTML escaping off.
func appendQuoted(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == '\u2028' || r == '\u2029':
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)) + h)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// quotedLen is the characters appendQuoted writes for s.
func quotedLen(s string) int {
	n := 2
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
			n += 2
		case r < 0x20 || r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n++
		}
	}
	return n
}

// maxCutsListed bounds the receipt's list of cuts.
const maxCutsListed = 8

// cutter shrinks a tree and records where.
type cutter struct {
	cuts  []string
	extra int // cuts made but not listed
}

func (c *cutter) record(s string) {
	if len(c.cuts) < maxCutsListed {
		c.cuts = append(c.cuts, s)
	} else {
		c.extra++
	}
}

// shrink cuts n to at most b characters where it can and updates n.size.
func (c *cutter) shrink(n *node, b int, path string) {
	if n.size <= b {
		return
	}
	switch n.kind {
	case 's':
		c.shrinkString(n, b, path)
	case 'a':
		c.shrinkArray(n, b, path)
	case 'o':
		c.shrinkObject(n, b, path)
	}
}

func (c *cutter) shrinkString(n *node, b int, path string) {
	total := utf8.RuneCountInString(n.str)
	mark := func(kept int) string {
		return "… [cut: " + strconv.Itoa(kept) + " of " + strconv.Itoa(total) + " chars kept]"
	}
	lo, hi := 0, total // keeping lo runes fits (or lo is 0)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if quotedLen(cutRunes(n.str, mid)+mark(mid)) <= b {
			lo = mid
		} else {
			hi = mid
		}
	}
	n.str = cutRunes(n.str, lo) + mark(lo)
	n.measure()
	c.record(path + ": string of " + strconv.Itoa(total) + " chars cut to " + strconv.Itoa(lo))
}

func (c *cutter) shrinkArray(n *node, b int, path string) {
	size, k := 2, 0
	for k < len(n.kids) && size+n.kids[k].size+min(k, 1) <= b {
		size += n.kids[k].size + min(k, 1)
		k++
	}
	if k == 0 && len(n.kids) > 0 {
		c.shrink(n.kids[0], b-2, path+"[0]")
		k = 1
	}
	if k < len(n.kids) {
		c.record(path + ": kept " + strconv.Itoa(k) + " of " + strconv.Itoa(len(n.kids)) + " items")
	}
	n.kids = n.kids[:k]
	n.measure()
}

// shrinkObject cuts the largest members first, each to what the others
// leave, and drops trailing members only when every member is as small as
// it gets.
func (c *cutter) shrinkObject(n *node, b int, path string) {
	order := make([]int, len(n.kids))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return n.kids[b].size - n.kids[a].size })
	for _, i := range order {
		if n.size <= b {
			return
		}
		kid := n.kids[i]
		if kid.kind == 'l' {
			continue
		}
		before := kid.size
		c.shrink(kid, max(b-(n.size-kid.size), 16), path+keyPath(n.keys[i]))
		n.size += kid.size - before
	}
	dropped := 0
	for n.size > b && len(n.kids) > 0 {
		last := len(n.kids) - 1
		n.size -= n.kids[last].size + quotedLen(n.keys[last]) + 1 + min(last, 1)
		n.kids, n.keys = n.kids[:last], n.keys[:last]
		dropped++
	}
	if dropped > 0 {
		c.record(path + ": " + strconv.Itoa(dropped) + " trailing members dropped")
	}
}

func keyPath(k string) string {
	for i, r := range k {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return "[" + strconv.Quote(k) + "]"
		}
	}
	if k == "" {
		return `[""]`
	}
	return "." + k
}

// receipt is the "truncation" value: the note, the original size and the
// cuts.
func (c *cutter) receipt(note string, total int) *node {
	r := &node{kind: 'o'}
	add := func(k string, v *node) {
		v.measure()
		r.keys, r.kids = append(r.keys, k), append(r.kids, v)
	}
	add("note", &node{kind: 's', str: note})
	add("original_chars", &node{kind: 'l', str: strconv.Itoa(total)})
	cuts := &node{kind: 'a'}
	for _, s := range c.cuts {
		kid := &node{kind: 's', str: s}
		kid.measure()
		cuts.kids = append(cuts.kids, kid)
	}
	if c.extra > 0 {
		kid := &node{kind: 's', str: "and " + strconv.Itoa(c.extra) + " more cuts"}
		kid.measure()
		cuts.kids = append(cuts.kids, kid)
	}
	add("cuts", cuts)
	r.measure()
	return r
}

// withReceipt renders root with the receipt as the first member of a
// top-level object, or wraps any other root as {"truncation", "value"}.
func withReceipt(root, receipt *node) string {
	key := "truncation"
	if root.kind == 'o' {
		for _, k := range root.keys {
			if k == key {
				key = "_truncation"
			}
		}
		root.keys = append([]string{key}, root.keys...)
		root.kids = append([]*node{receipt}, root.kids...)
	} else {
		root = &node{kind: 'o', keys: []string{key, "value"}, kids: []*node{receipt, root}}
	}
	var b bytes.Buffer
	root.encode(&b)
	return b.String()
}

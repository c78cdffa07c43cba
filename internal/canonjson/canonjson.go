// Package canonjson writes JSON values in the canonical form the catalog
// digest is defined over (CONTRACT.md §11.3): object keys sorted byte-wise, no
// whitespace, strings escaped like serde_json, numbers as encoding/json
// writes them. It also writes the encoding/json-compatible form the /tools
// snapshot shows. encoding/json is not used for either because it escapes
// <, >, & and U+2028/U+2029 (canonical form must not) and is several times
// slower on the schema maps this runs over at every request.
package canonjson

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Append appends v in canonical form: object keys sorted
// byte-wise, no whitespace, strings escaped like serde_json (only `"`, `\`
// and control characters), numbers as Go's encoding/json writes them.
func Append(dst []byte, v any) ([]byte, error) {
	return appendJSON(dst, v, false)
}

// AppendGo writes v exactly as encoding/json.Marshal would for plain
// JSON values (sorted map keys; <, >, &, U+2028 and U+2029 escaped). It is
// the fast path of the snapshot's input_schema_json.
func AppendGo(dst []byte, v any) ([]byte, error) { return appendJSON(dst, v, true) }

func appendJSON(dst []byte, v any, goCompat bool) ([]byte, error) {
	str := AppendString
	if goCompat {
		str = appendGoString
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case string:
		return str(dst, x), nil
	case float64:
		return appendFloat(dst, x)
	case float32:
		return appendFloat(dst, float64(x))
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case json.Number:
		return append(dst, x...), nil
	case map[string]any:
		var small [16]string
		keys := small[:0]
		for k := range x {
			keys = append(keys, k)
		}
		sortKeys(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = str(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = appendJSON(dst, x[k], goCompat); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendJSON(dst, e, goCompat); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case []string:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = str(dst, e)
		}
		return append(dst, ']'), nil
	default:
		// Other Go values (typed maps, structs): round-trip through
		// encoding/json into plain JSON values first.
		raw, err := json.Marshal(x)
		if err != nil {
			return dst, err
		}
		var plain any
		if err := json.Unmarshal(raw, &plain); err != nil {
			return dst, err
		}
		return appendJSON(dst, plain, goCompat)
	}
}

// sortKeys sorts object keys byte-wise. Schema objects have a handful of
// keys, which an insertion sort orders without sort's set-up.
func sortKeys(keys []string) {
	if len(keys) > 16 {
		sort.Strings(keys)
		return
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}

// appendFloat writes f exactly as encoding/json does.
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, fmt.Errorf("unsupported number %v", f)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

const hexDigits = "0123456789abcdef"

func AppendString(dst []byte, s string) []byte { return appendEscaped(dst, s, false) }

// appendGoString escapes like encoding/json: the canonical escapes plus <,
// >, & and U+2028/U+2029.
func appendGoString(dst []byte, s string) []byte { return appendEscaped(dst, s, true) }

func appendEscaped(dst []byte, s string, goCompat bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!goCompat || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			if goCompat {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, "\ufffd"...)
			}
		case goCompat && (r == '\u2028' || r == '\u2029'):
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/provider"
)

// ActiveToolCatalogSHA256 is the single definition of the active-tool-catalog
// digest (engine.md §4.3, DECISIONS #7). For each tool in request order it
// hashes name, 0x01, description, 0x01, the canonical JSON of the input
// schema and a newline. Transport fields are not hashed. ok is false when
// the request has no tools field (nil); a present empty array hashes the
// empty string.
func ActiveToolCatalogSHA256(tools []provider.Tool) (digest string, ok bool) {
	if tools == nil {
		return "", false
	}
	h := sha256.New()
	buf := make([]byte, 0, 1024)
	for _, t := range tools {
		buf = buf[:0]
		buf = append(buf, t.Name...)
		buf = append(buf, 1)
		buf = append(buf, t.Description...)
		buf = append(buf, 1)
		var err error
		buf, err = AppendCanonicalJSON(buf, t.InputSchema)
		if err != nil {
			// Schemas are plain JSON values; an unencodable one still gets a
			// deterministic digest input rather than a silent skip.
			buf = append(buf, fmt.Sprintf("<unencodable schema: %v>", err)...)
		}
		buf = append(buf, '\n')
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// AppendCanonicalJSON appends v in canonical form: object keys sorted
// byte-wise, no whitespace, strings escaped like serde_json (only `"`, `\`
// and control characters), numbers as Go's encoding/json writes them.
func AppendCanonicalJSON(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case string:
		return appendCanonicalString(dst, x), nil
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
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanonicalString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = AppendCanonicalJSON(dst, x[k]); err != nil {
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
			if dst, err = AppendCanonicalJSON(dst, e); err != nil {
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
			dst = appendCanonicalString(dst, e)
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
		return AppendCanonicalJSON(dst, plain)
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

func appendCanonicalString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			if c < utf8.RuneSelf {
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, "\ufffd"...)
				i++
				start = i
				continue
			}
			i += size
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
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

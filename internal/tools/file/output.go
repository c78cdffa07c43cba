package file

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"strconv"
)

// jsonText renders v as the indented JSON text a result's content carries,
// without HTML escaping (paths and code keep their <, > and &).
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return `{"error":` + strconv.Quote(err.Error()) + `}`
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte{'\n'}))
}

// unwrapPath drops the "op path:" prefix of a *fs.PathError, whose path the
// caller's message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func itoa(n int) string { return strconv.Itoa(n) }

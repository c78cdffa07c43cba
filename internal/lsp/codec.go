package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sourcegraph/jsonrpc2"
)

// maxMessage bounds one message from a server. jsonrpc2's own codec takes
// whatever Content-Length says, up to 4 GiB; a server that sends more than
// this is flooding, and its connection is dropped (the server is stopped
// and says why).
const maxMessage = 16 << 20

// codec is the LSP base protocol (Content-Length framed JSON) with the
// bound above. Writing is jsonrpc2's VSCodeObjectCodec unchanged; reading
// differs only in refusing an oversized header before reading the body.
// fail is told why a read failed (EOF included).
type codec struct {
	jsonrpc2.VSCodeObjectCodec
	fail func(error)
}

// ReadObject implements jsonrpc2.ObjectCodec.
func (c codec) ReadObject(r *bufio.Reader, v any) error {
	err := readObject(r, v)
	if err != nil && c.fail != nil {
		c.fail(err)
	}
	return err
}

func readObject(r *bufio.Reader, v any) error {
	var n uint64
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if len(line) > 1024 {
			return fmt.Errorf("a header line of %d bytes", len(line))
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			if n, err = strconv.ParseUint(strings.TrimSpace(value), 10, 63); err != nil {
				return fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	switch {
	case n == 0:
		return fmt.Errorf("a message without Content-Length")
	case n > maxMessage:
		return &floodError{size: n}
	}
	body := io.LimitReader(r, int64(n))
	err := json.NewDecoder(body).Decode(v)
	_, _ = io.Copy(io.Discard, body) // what the decoder left: the next message starts after it
	return err
}

// floodError is a message over maxMessage.
type floodError struct{ size uint64 }

func (e *floodError) Error() string {
	return fmt.Sprintf("it sent a %d-byte message, over the %d-byte bound", e.size, maxMessage)
}

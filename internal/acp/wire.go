package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
)

// The SDK drops a line that is not JSON with a log entry and no answer.
// JSON-RPC 2.0 wants a Parse error (-32700, id null) for one, and an
// Invalid Request (-32600) for JSON that is not a request object; the
// guard answers both before the SDK reads the line, so a broken client
// learns what it sent instead of waiting. It checks with json.Valid, which
// allocates nothing, and hands valid lines on unchanged.

const (
	parseError     = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":{"error":"the line is not JSON; send one JSON-RPC 2.0 object per line"}}}` + "\n"
	invalidRequest = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request","data":{"error":"send one JSON-RPC 2.0 object per line (batches are not used by ACP)"}}}` + "\n"
)

// lockedWriter makes each Write atomic: the SDK writes one whole message
// per Write, and the guard's answers must not land inside one.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// guard is the reader the SDK reads: the client's lines that are JSON
// objects, each ending in a newline.
type guard struct {
	r    *bufio.Reader
	out  io.Writer
	log  *slog.Logger
	line []byte // what is left of the current line
	long []byte // a line longer than the buffer, gathered
	err  error
}

func newGuard(in io.Reader, out io.Writer, log *slog.Logger) *guard {
	return &guard{r: bufio.NewReaderSize(in, 64<<10), out: out, log: log}
}

func (g *guard) Read(p []byte) (int, error) {
	for len(g.line) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.next()
	}
	n := copy(p, g.line)
	g.line = g.line[n:]
	return n, nil
}

// next reads one line and keeps it when it is a JSON object.
func (g *guard) next() {
	line, err := g.r.ReadSlice('\n')
	for errors.Is(err, bufio.ErrBufferFull) {
		g.long = append(g.long[:0:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = g.r.ReadSlice('\n')
			g.long = append(g.long, line...)
		}
		line = g.long
	}
	if err != nil {
		g.err = err
		if len(bytes.TrimSpace(line)) == 0 {
			return
		}
		line = append(line, '\n') // a last line without its newline
	}
	body := bytes.TrimSpace(line)
	switch {
	case len(body) == 0:
		return
	case !json.Valid(body):
		g.answer(parseError, body)
		return
	case body[0] != '{':
		g.answer(invalidRequest, body)
		return
	}
	g.line = line
}

func (g *guard) answer(msg string, body []byte) {
	const show = 200
	if len(body) > show {
		body = body[:show]
	}
	g.log.Warn("refused a line that is not a JSON-RPC object", "line", string(body))
	if _, err := io.WriteString(g.out, msg); err != nil {
		g.err = err
	}
}

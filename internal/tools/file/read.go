package file

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

const (
	defaultMaxLines = 500
	// readBudget bounds the rendered window and the small-file fast path.
	readBudget = 16384
	// maxReadBytes bounds what read loads into memory at once.
	maxReadBytes = 256 << 20
)

var (
	errInvalidUTF8 = errors.New("stream did not contain valid UTF-8")
	errNotDir      = syscall.ENOTDIR
)

type readReq struct {
	path             string
	start, max       int
	windowed         bool // start_line or max_lines was given
	pages            string
	hasPages         bool
	pageFrom, pageTo int
}

func parseRead(d *tools.Decoded[input]) (readReq, error) {
	r := readReq{path: d.In.Path}
	var err error
	var hasStart, hasMax bool
	r.start, hasStart = countOr(d, "start_line", d.In.StartLine, 1)
	if hasStart && r.start == 0 {
		return r, tools.InvalidInput("start_line must be 1-based and greater than 0")
	}
	r.max, hasMax = countOr(d, "max_lines", d.In.MaxLines, defaultMaxLines)
	if hasMax && r.max == 0 {
		return r, tools.InvalidInput("max_lines must be greater than 0")
	}
	r.max = min(r.max, defaultMaxLines)
	r.windowed = hasStart || hasMax
	r.pages, r.hasPages = d.In.Pages, d.Has("pages")
	if r.hasPages {
		if r.pageFrom, r.pageTo, err = parsePages(r.pages); err != nil {
			return r, err
		}
	}
	return r, nil
}

// parsePages accepts "N" or "N-M" with 1 <= N <= M.
func parsePages(v string) (int, int, error) {
	bad := tools.InvalidInput("invalid `pages` value `%s` (expected `N` or `N-M`, e.g. `1-5`)", v)
	from, to, isRange := strings.Cut(strings.TrimSpace(v), "-")
	n, ok := positive(from)
	if !ok {
		return 0, 0, bad
	}
	if !isRange {
		return n, n, nil
	}
	m, ok := positive(to)
	if !ok || m < n {
		return 0, 0, bad
	}
	return n, m, nil
}

func positive(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n > 0
}

// readFailed is the contract's error for an unreadable file.
func readFailed(abs string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return tools.ExecutionFailed("Failed to read %s: %v", abs, err)
}

func (t *Tool) read(ctx context.Context, tc *tools.Context, r readReq) (tools.Result, error) {
	abs, err := tc.ResolvePath(r.path)
	if err != nil {
		return tools.Result{}, err
	}
	if err := t.refuseSecret("read", abs); err != nil {
		return tools.Result{}, err
	}
	b := openBoundary(tc)
	defer b.Close()
	data, fi, release, err := loadForRead(b, abs)
	if err != nil {
		return tools.Result{}, err
	}
	defer release()
	if kind := mediaKind(abs, data); kind != "" {
		return t.readMedia(ctx, tc.Workspace, abs, data, kind, r)
	}
	if r.hasPages {
		return tools.Result{}, tools.InvalidInput("`pages` applies only to PDF files and %s is not a PDF; "+
			"use start_line and max_lines to read a window of a text file", r.path)
	}
	if !utf8.Valid(data) {
		return tools.Result{}, readFailed(abs, errInvalidUTF8)
	}
	if t.editor != nil {
		// The boundary opened the file; the editor's buffer is its text.
		if data, err = t.editorRead(ctx, abs); err != nil {
			return tools.Result{}, err
		}
	}
	t.snaps.Record(abs, fi)
	if t.diag != nil {
		t.diag.Read(abs, data)
	}
	return tools.OK(renderRead(r, data)), nil
}

// readBufs recycles read buffers: a fresh 10 MB slice costs more to zero
// than to fill from the page cache.
var readBufs sync.Pool

// maxPooledRead is the largest buffer kept for reuse.
const maxPooledRead = 32 << 20

// loadForRead reads abs whole through the boundary, with the stat taken
// from the open handle so the snapshot describes the bytes that were read.
// release returns the buffer for reuse; data must not be used after it.
func loadForRead(b *confine.Set, abs string) (data []byte, fi fs.FileInfo, release func(), err error) {
	f, err := b.Open(abs)
	if err != nil {
		return nil, nil, nil, readFailed(abs, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, nil, nil, readFailed(abs, err)
	}
	if fi.IsDir() {
		return nil, nil, nil, tools.ExecutionFailed("Failed to read %s: is a directory. Use File with action=\"list\" to see its entries.", abs)
	}
	if err := notRegular("read", abs, fi); err != nil {
		return nil, nil, nil, err
	}
	if fi.Size() > maxReadBytes {
		return nil, nil, nil, tools.ExecutionFailed("Failed to read %s: the file is %d bytes, over the %d-byte read limit. "+
			"Use File action=\"search_content\" to find the lines you need.", abs, fi.Size(), maxReadBytes)
	}
	size := int(fi.Size())
	var buf []byte
	if p, ok := readBufs.Get().(*[]byte); ok && cap(*p) >= size+1 {
		buf = (*p)[:cap(*p)]
	} else {
		buf = make([]byte, size+1)
	}
	// Read to EOF: the file may have grown since the stat.
	n := 0
	for {
		if n == len(buf) {
			buf = append(buf, 0)[:cap(buf)]
		}
		m, rerr := f.Read(buf[n:])
		n += m
		if errors.Is(rerr, io.EOF) || (m == 0 && rerr == nil) {
			break
		}
		if rerr != nil {
			return nil, nil, nil, readFailed(abs, rerr)
		}
		if n > maxReadBytes {
			break
		}
	}
	release = func() {
		if cap(buf) <= maxPooledRead {
			readBufs.Put(&buf)
		}
	}
	return buf[:n], fi, release, nil
}

// mediaKind classifies files read cannot show as plain text: "pdf" (by
// extension or %PDF magic) and "image" (png jpg jpeg tif tiff bmp).
func mediaKind(abs string, data []byte) string {
	ext := strings.ToLower(filepath.Ext(abs))
	switch {
	case ext == ".pdf" || strings.HasPrefix(string(data[:min(len(data), 5)]), "%PDF"):
		return "pdf"
	case ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".tif" || ext == ".tiff" || ext == ".bmp":
		return "image"
	}
	return ""
}

// kindOf names a file mode that is neither a directory nor a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

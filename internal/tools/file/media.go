package file

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/binpath"
	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/tools"
)

// mediaTimeout bounds one external text extraction.
const mediaTimeout = 30 * time.Second

// readMedia extracts text from a PDF (pdftotext) or an image (tesseract OCR)
// and renders it like a text file. Without the backend on PATH it fails with
// a clear error; it never pretends. The backend reads data, the bytes File
// already read through the boundary, on its stdin: handing it the path would
// let it open whatever the path names by then.
func (t *Tool) readMedia(ctx context.Context, workspace, abs string, data []byte, kind string, r readReq) (tools.Result, error) {
	var args []string
	var bin string
	switch kind {
	case "pdf":
		bin = "pdftotext"
		args = []string{"-enc", "UTF-8", "-layout"}
		if r.hasPages {
			args = append(args, "-f", strconv.Itoa(r.pageFrom), "-l", strconv.Itoa(r.pageTo))
		}
		args = append(args, "-", "-")
	default:
		if r.hasPages {
			return tools.Result{}, tools.InvalidInput("`pages` applies only to PDF files and %s is an image", r.path)
		}
		bin = "tesseract"
		args = []string{"stdin", "stdout"}
	}
	// Not from a workspace directory on PATH: a read runs without asking.
	path, err := binpath.LookPath(bin, workspace)
	if err != nil {
		return tools.Result{}, noBackend(abs, kind, bin)
	}
	ctx, cancel := context.WithTimeout(ctx, mediaTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = secrets.Environ() // the scrubbed environment a command gets
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(data), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return tools.Result{}, tools.Timeout(int(mediaTimeout.Seconds()))
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return tools.Result{}, tools.ExecutionFailed("Failed to extract text from %s with %s: %s", abs, bin, msg)
	}
	text := stdout.Bytes()
	if !utf8.Valid(text) {
		text = bytes.ToValidUTF8(text, []byte("\uFFFD"))
	}
	if len(bytes.TrimSpace(text)) == 0 {
		return tools.OK("[NO TEXT] " + bin + " found no extractable text in " + abs + "."), nil
	}
	return tools.OK(renderRead(r, text)), nil
}

func noBackend(abs, kind, bin string) error {
	if kind == "pdf" {
		return tools.ExecutionFailed("Cannot read %s: it is a PDF and no PDF text extractor is installed "+
			"(`pdftotext` from poppler-utils was not found on PATH). Install poppler-utils, or convert the PDF "+
			"to text another way.", abs)
	}
	return tools.ExecutionFailed("Cannot read %s: it is an image and no OCR backend is installed (`%s` was not "+
		"found on PATH). Install tesseract-ocr to read text from images.", abs, bin)
}

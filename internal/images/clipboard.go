package images

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/binpath"
	"github.com/codewhale/codewhale/internal/secrets"
)

// Clip is what the clipboard held: an image's bytes, else its text.
type Clip struct {
	Image []byte
	Text  string
}

// NoReaderError says no clipboard reader is installed; its text is a
// one-line hint naming what to install.
type NoReaderError struct{ Hint string }

func (e *NoReaderError) Error() string { return e.Hint }

// Clipboard reads the system clipboard with the OS's own tool: wl-paste
// (Wayland) or xclip (X11) on Linux and the BSDs, pngpaste or osascript on
// macOS, PowerShell on Windows. Each is found on PATH without the
// workspace's directories (internal/binpath) and runs in the scrubbed
// environment (secrets.Environ), as every helper codewhale starts.
type Clipboard struct {
	Workspace string
	GOOS      string // runtime.GOOS when ""
	// Getenv reads WAYLAND_DISPLAY, which says which Linux reader goes
	// first; the host hands down its snapshot (config.Env). Nil reads
	// nothing: xclip first, then wl-paste.
	Getenv func(string) string
}

// clipTimeout bounds one clipboard read: a reader waiting on a display
// that does not answer must not hold the paste.
const clipTimeout = 5 * time.Second

// Read returns the clipboard's image, or its text when it holds no image.
// A missing reader is a *NoReaderError; an empty clipboard is a Clip with
// neither.
func (c Clipboard) Read(ctx context.Context) (Clip, error) {
	ctx, cancel := context.WithTimeout(ctx, clipTimeout)
	defer cancel()
	goos, getenv := c.GOOS, c.Getenv
	if goos == "" {
		goos = runtime.GOOS
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	switch goos {
	case "darwin":
		return c.readMac(ctx)
	case "windows":
		return c.readWindows(ctx)
	}
	readers := []func(context.Context) (Clip, error){c.readX, c.readWayland}
	if getenv("WAYLAND_DISPLAY") != "" {
		readers[0], readers[1] = readers[1], readers[0]
	}
	// The other reader is tried when the first is missing or fails (an
	// xclip with no X display on a Wayland desktop); the first failure is
	// the one reported.
	var first error
	for _, r := range readers {
		clip, err := r(ctx)
		var missing *NoReaderError
		switch {
		case err == nil:
			return clip, nil
		case !errors.As(err, &missing) && first == nil:
			first = err
		}
	}
	if first != nil {
		return Clip{}, first
	}
	return Clip{}, &NoReaderError{Hint: "Pasting an image needs wl-paste (wl-clipboard) or xclip; install one, or attach a file with /attach PATH"}
}

// readWayland asks wl-paste which types the clipboard offers and reads
// the image one, else the text.
func (c Clipboard) readWayland(ctx context.Context) (Clip, error) {
	types, err := c.run(ctx, "wl-paste", "--list-types")
	if err != nil {
		if strings.Contains(err.Error(), "No selection") || strings.Contains(err.Error(), "Nothing is copied") {
			return Clip{}, nil
		}
		return Clip{}, err
	}
	return c.pick(ctx, types, "wl-paste", func(t string) []string { return []string{"--no-newline", "--type", t} })
}

// readX does the same with xclip's TARGETS.
func (c Clipboard) readX(ctx context.Context) (Clip, error) {
	types, err := c.run(ctx, "xclip", "-selection", "clipboard", "-t", "TARGETS", "-o")
	if err != nil {
		if strings.Contains(err.Error(), "not available") { // nothing was copied
			return Clip{}, nil
		}
		return Clip{}, err
	}
	return c.pick(ctx, types, "xclip", func(t string) []string { return []string{"-selection", "clipboard", "-t", t, "-o"} })
}

// pick reads the best type a reader listed: PNG, another image format,
// then UTF-8 text.
func (c Clipboard) pick(ctx context.Context, list []byte, bin string, args func(string) []string) (Clip, error) {
	offered := map[string]bool{}
	for _, t := range strings.Fields(string(list)) {
		offered[t] = true
	}
	for _, t := range []string{"image/png", "image/jpeg", "image/gif", "image/webp"} {
		if offered[t] {
			data, err := c.run(ctx, bin, args(t)...)
			return Clip{Image: data}, err
		}
	}
	for _, t := range []string{"text/plain;charset=utf-8", "UTF8_STRING", "text/plain", "STRING"} {
		if offered[t] {
			data, err := c.run(ctx, bin, args(t)...)
			return Clip{Text: string(data)}, err
		}
	}
	return Clip{}, nil
}

// readMac uses pngpaste when installed, else osascript's «class PNGf»;
// text comes from pbpaste.
func (c Clipboard) readMac(ctx context.Context) (Clip, error) {
	data, err := c.run(ctx, "pngpaste", "-")
	var missing *NoReaderError
	switch {
	case err == nil && len(data) > 0:
		return Clip{Image: data}, nil
	case errors.As(err, &missing):
		out, err := c.run(ctx, "osascript", "-e", "the clipboard as «class PNGf»")
		if err == nil {
			if img, ok := parsePNGf(out); ok {
				return Clip{Image: img}, nil
			}
		} else if errors.As(err, &missing) {
			return Clip{}, &NoReaderError{Hint: "Pasting an image needs pngpaste (brew install pngpaste) or osascript; or attach a file with /attach PATH"}
		}
	}
	text, err := c.run(ctx, "pbpaste")
	return Clip{Text: string(text)}, err
}

// parsePNGf decodes osascript's «data PNGf89504E47…» form.
func parsePNGf(out []byte) ([]byte, bool) {
	s := strings.TrimSpace(string(out))
	s, ok := strings.CutPrefix(s, "«data PNGf")
	if !ok {
		return nil, false
	}
	b, err := hex.DecodeString(strings.TrimSuffix(s, "»"))
	return b, err == nil
}

// windowsScript prints IMG: and the clipboard's image as base64 PNG, or
// TXT: and its text as base64 UTF-8.
const windowsScript = `Add-Type -AssemblyName System.Windows.Forms, System.Drawing
$i = [Windows.Forms.Clipboard]::GetImage()
if ($i) { $m = New-Object IO.MemoryStream; $i.Save($m, [Drawing.Imaging.ImageFormat]::Png); 'IMG:' + [Convert]::ToBase64String($m.ToArray()) }
elseif ([Windows.Forms.Clipboard]::ContainsText()) { 'TXT:' + [Convert]::ToBase64String([Text.Encoding]::UTF8.GetBytes([Windows.Forms.Clipboard]::GetText())) }`

func (c Clipboard) readWindows(ctx context.Context) (Clip, error) {
	out, err := c.run(ctx, "powershell.exe", "-NoProfile", "-NonInteractive", "-STA", "-Command", windowsScript)
	if err != nil {
		return Clip{}, err
	}
	s := strings.TrimSpace(string(out))
	kind, data, _ := strings.Cut(s, ":")
	b, err := base64.StdEncoding.DecodeString(data)
	switch {
	case s == "":
		return Clip{}, nil
	case err != nil:
		return Clip{}, fmt.Errorf("reading the clipboard with PowerShell: unexpected output: %w", err)
	case kind == "IMG":
		return Clip{Image: b}, nil
	}
	return Clip{Text: string(b)}, nil
}

// run starts one reader and returns its stdout, at most one byte over
// MaxSourceBytes. A reader not on PATH is a *NoReaderError naming it.
func (c Clipboard) run(ctx context.Context, bin string, args ...string) ([]byte, error) {
	path, err := binpath.LookPath(bin, c.Workspace)
	if err != nil {
		return nil, &NoReaderError{Hint: bin + " is not installed"}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = secrets.Environ()
	out := &capped{max: MaxSourceBytes + 1}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s did not answer within %s", bin, clipTimeout)
		}
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("%s: %s", bin, msg)
	}
	return out.Bytes(), nil
}

// capped keeps the first max bytes written and drops the rest, so a huge
// clipboard costs no more memory than the largest image read.
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

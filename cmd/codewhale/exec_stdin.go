package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// Piped standard input for a headless run (CONTRACT.md §13.1): a PROMPT of
// "-", or no PROMPT with stdin piped, reads the prompt from stdin; a PROMPT
// with stdin piped attaches stdin as context after it, bounded, with its
// size stated to the model and on stderr. Binary data is refused: the
// model gets text only.
const (
	maxStdinPrompt  = 1 << 20   // a prompt read from stdin
	maxStdinContext = 128 << 10 // stdin attached to a prompt: under the engine's cut of one history block (fitBlock), so the model sees it whole
	maxStdinCount   = 64 << 20  // bytes counted past the bound to state the size
)

// stdinPiped reports that stdin is a pipe or a file rather than a terminal
// or /dev/null (a character device). A reader that is no file (a test's
// buffer) counts as piped.
func stdinPiped(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return r != nil
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice == 0
}

// stdinText is what stdin held: the kept text, its total size (counted up
// to maxStdinCount; more when over is set) and whether it was cut.
type stdinText struct {
	text  string
	total int64
	cut   bool
	over  bool // more than maxStdinCount bytes
}

// readStdin reads up to limit bytes of text and counts the rest. It refuses
// binary data: a NUL byte, or bytes that are not UTF-8.
func readStdin(r io.Reader, limit int) (stdinText, error) {
	head, err := io.ReadAll(io.LimitReader(r, int64(limit)))
	if err != nil {
		return stdinText{}, fmt.Errorf("reading stdin: %w", err)
	}
	s := stdinText{total: int64(len(head))}
	if len(head) == limit {
		rest, err := io.Copy(io.Discard, io.LimitReader(r, maxStdinCount-int64(limit)+1))
		if err != nil {
			return stdinText{}, fmt.Errorf("reading stdin: %w", err)
		}
		s.total += rest
		s.cut, s.over = rest > 0, s.total > maxStdinCount
		if s.cut {
			head = cutAtRune(head)
		}
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return stdinText{}, fmt.Errorf("stdin holds binary data (a NUL byte at offset %d): codewhale attaches text only; "+
			"convert it to text first, or name the file in the prompt for the model to read", i)
	}
	if !utf8.Valid(head) {
		return stdinText{}, errors.New("stdin is not UTF-8 text: codewhale attaches text only; convert it first (iconv) " +
			"or name the file in the prompt for the model to read")
	}
	s.text = string(head)
	return s, nil
}

// cutAtRune drops a rune the limit split in two.
func cutAtRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if r, n := utf8.DecodeLastRune(b); r != utf8.RuneError || n != 1 {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}

// size is the stated size: "12,345 bytes", "more than 64 MiB".
func (s stdinText) size() string {
	if s.over {
		return fmt.Sprintf("more than %d MiB", maxStdinCount>>20)
	}
	return fmt.Sprintf("%s bytes", groupDigits(s.total))
}

func groupDigits(n int64) string {
	d := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// attach is prompt with the stdin context after it, and the line stderr
// gets about it.
func (s stdinText) attach(prompt string) (string, string) {
	note := "stdin: attached " + s.size() + " as context"
	head := fmt.Sprintf("Standard input (%s):", s.size())
	if s.cut {
		kept := groupDigits(int64(len(s.text)))
		note = fmt.Sprintf("stdin: %s; attached the first %s bytes as context", s.size(), kept)
		head = fmt.Sprintf("Standard input (%s; only the first %s bytes are attached):", s.size(), kept)
	}
	return prompt + "\n\n" + head + "\n<stdin>\n" + strings.TrimRight(s.text, "\n") + "\n</stdin>", note
}

// stdinPrompt settles o.prompt from args and stdin. keyOnStdin is set when
// --api-key - already took stdin.
func (o *execOptions) stdinPrompt(ios IO, args []string, keyOnStdin bool) error {
	if o.streamInput() {
		return nil
	}
	piped := !keyOnStdin && stdinPiped(ios.In)
	fromStdin := len(args) == 1 && args[0] == "-"
	switch {
	case fromStdin && keyOnStdin:
		return errors.New("a PROMPT of - reads stdin, which --api-key - has already read: give the key with --api-key-file")
	case fromStdin || len(args) == 0 && piped:
		s, err := readStdin(ios.In, maxStdinPrompt)
		switch {
		case err != nil:
			return err
		case s.cut:
			return fmt.Errorf("the prompt on stdin is %s, over the %d MiB limit: pass a shorter prompt and attach the "+
				"rest as stdin context with a PROMPT argument", s.size(), maxStdinPrompt>>20)
		case strings.TrimSpace(s.text) == "" && fromStdin:
			return errors.New("the prompt on stdin is empty")
		case strings.TrimSpace(s.text) == "":
			return errors.New("a headless run needs a PROMPT: none was given and stdin is empty " +
				"(exec --input-format stream-json reads messages from stdin)")
		}
		o.prompt = s.text
	case len(args) == 0:
		return errors.New("a headless run needs a PROMPT (- or piped stdin reads it from stdin; exec --input-format stream-json reads messages)")
	case piped:
		s, err := readStdin(ios.In, maxStdinContext)
		if err != nil {
			return err
		}
		if strings.TrimSpace(s.text) != "" {
			var note string
			o.prompt, note = s.attach(o.prompt)
			fmt.Fprintln(ios.Err, note)
		}
	}
	return nil
}

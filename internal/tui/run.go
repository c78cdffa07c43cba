package tui

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
)

// Terminal is where the UI draws and reads keys.
type Terminal struct {
	In  io.Reader
	Out io.Writer
	// NoMouse leaves mouse capture off so the terminal's own selection
	// works (--no-mouse-capture).
	NoMouse bool
}

// TTY is the terminal's two ends as files, for a child that takes the
// terminal over (the external editor).
type TTY struct {
	In, Out *os.File
}

// Run draws the UI on term until the user quits and returns the process
// exit code: 0, or 128+n after signal n. The terminal is restored on every
// path out: a normal quit, an error, a panic inside the program (Bubble
// Tea recovers it) and SIGTERM/SIGHUP/SIGINT, which quit through the model
// instead of killing the process.
func Run(o Options, term Terminal) (int, error) {
	if err := checkTerminal(term); err != nil {
		return 1, err
	}
	out := term.Out
	if f, ok := out.(*os.File); ok {
		o.TTY.Out = f
		out = &lockedFile{File: f}
	}
	if f, ok := term.In.(*os.File); ok {
		o.TTY.In = f
	} else if term.In == nil {
		o.TTY.In = os.Stdin
	}
	if o.Clipboard == nil {
		o.Clipboard = out
	}
	if o.Multiplexer == "" {
		o.Multiplexer = DetectMultiplexer(os.Getenv)
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	dumb := getenv("TERM") == "dumb"
	if dumb {
		term.NoMouse = true
		o.Notices = append(o.Notices, DumbNotice)
	}
	o.MouseCapture = !term.NoMouse
	m := New(o)
	opts := []tea.ProgramOption{tea.WithOutput(out), tea.WithoutSignalHandler()}
	if dumb {
		opts = append(opts, tea.WithoutBracketedPaste())
	} else {
		opts = append(opts, tea.WithAltScreen(), tea.WithReportFocus())
	}
	if term.In != nil {
		opts = append(opts, tea.WithInput(term.In))
	}
	if !term.NoMouse {
		opts = append(opts, tea.WithMouseCellMotion())
	}
	p := tea.NewProgram(m, opts...)
	sig := watchSignals(p)
	_, err := p.Run()
	code := sig.stop()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return 1, err
	}
	return code, nil
}

// DumbNotice is shown at start under TERM=dumb, where the UI sends no
// alternate screen, mouse, focus or bracketed-paste modes.
const DumbNotice = "TERM=dumb: drawing without the alternate screen, mouse, focus or paste modes. " +
	"For a terminal that cannot move the cursor, run `codewhale exec \"<prompt>\"` instead."

// ErrNoTerminal is returned, before anything is drawn, when standard input
// or output is not a terminal.
var ErrNoTerminal = errors.New("the interactive UI needs a terminal")

// checkTerminal refuses to start the UI without a terminal on both ends:
// Bubble Tea would fail after switching to the alternate screen and
// turning mouse reporting on, leaving the terminal that way (issue 14).
func checkTerminal(t Terminal) error {
	for _, end := range []struct {
		name string
		v    any
	}{{"standard input", t.In}, {"standard output", t.Out}} {
		if end.v == nil {
			continue // Bubble Tea's default, the process's own terminal
		}
		f, ok := end.v.(*os.File)
		if !ok || !term.IsTerminal(f.Fd()) {
			return fmt.Errorf("%w, but %s is not one (a pipe, a file or /dev/null); "+
				"run `codewhale exec \"<prompt>\"` without a terminal", ErrNoTerminal, end.name)
		}
	}
	return nil
}

// signals turns termination signals into a quit message.
type signals struct {
	ch   chan os.Signal
	done chan struct{}
	mu   sync.Mutex
	got  syscall.Signal
}

func watchSignals(p *tea.Program) *signals {
	s := &signals{ch: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(s.ch, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	go func() {
		for {
			select {
			case v := <-s.ch:
				if n, ok := v.(syscall.Signal); ok {
					s.mu.Lock()
					s.got = n
					s.mu.Unlock()
				}
				p.Send(signalMsg{})
			case <-s.done:
				return
			}
		}
	}()
	return s
}

// stop ends the watch and returns 128+n if signal n arrived, else 0.
func (s *signals) stop() int {
	signal.Stop(s.ch)
	close(s.done)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.got != 0 {
		return 128 + int(s.got)
	}
	return 0
}

// lockedFile serialises writes to the terminal so an OSC 52 copy never
// lands inside a frame. It stays an *os.File underneath, so Bubble Tea
// still sees a terminal (size, raw mode).
type lockedFile struct {
	*os.File
	mu sync.Mutex
}

func (f *lockedFile) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.File.Write(b)
}

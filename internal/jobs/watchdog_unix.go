//go:build unix

package jobs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
)

// WatchdogArg is argv[1] of codewhale's hidden watchdog entry point.
const WatchdogArg = "__watchdog"

// watchdog is a small codewhale process that outlives this one: it reads
// the process groups of running jobs from a pipe and, when the pipe closes
// without them having been forgotten (this process died, kill -9
// included), stops them. Pdeathsig alone stops only a job's leader; the
// watchdog stops what the leader forked. It is its own session, so the
// terminal's signals do not reach it.
type watchdog struct {
	mu  sync.Mutex
	w   *os.File
	cmd *exec.Cmd
}

// startWatchdog starts exe as the watchdog; nil when it cannot (then only
// Pdeathsig and the next start's clean-up remain).
func startWatchdog(exe string) *watchdog {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	cmd := exec.Command(exe, WatchdogArg)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil
	}
	return &watchdog{w: w, cmd: cmd}
}

func (d *watchdog) send(line string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.w != nil {
		_, _ = io.WriteString(d.w, line)
	}
}

// watch registers a job's process group with its leader's start time.
func (d *watchdog) watch(pgid int, start uint64) { d.send(fmt.Sprintf("+ %d %d\n", pgid, start)) }

// forget drops a group that was reaped.
func (d *watchdog) forget(pgid int) {
	if pgid > 0 {
		d.send(fmt.Sprintf("- %d\n", pgid))
	}
}

// close ends the watchdog: with every job forgotten it has nothing to stop.
func (d *watchdog) close() {
	d.mu.Lock()
	w := d.w
	d.w = nil
	d.mu.Unlock()
	if w != nil {
		w.Close()
		_ = d.cmd.Wait()
	}
}

// WatchdogMain runs the watchdog on stdin until it closes (or SIGTERM),
// then stops the groups still registered. It returns the exit status.
func WatchdogMain() int {
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	lines := make(chan string)
	go func() { // ends with the process
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	groups := map[int]uint64{}
	for {
		select {
		case line, ok := <-lines:
			if ok {
				track(groups, line)
				continue
			}
		case <-term:
		}
		for pgid, start := range groups {
			stopGroup(pgid, start)
		}
		return 0
	}
}

func track(groups map[int]uint64, line string) {
	var op string
	var pgid int
	var start uint64
	if n, _ := fmt.Sscanf(line, "%s %d %d", &op, &pgid, &start); n < 2 {
		return
	}
	switch op {
	case "+":
		groups[pgid] = start
	case "-":
		delete(groups, pgid)
	}
}

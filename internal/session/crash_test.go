package session

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/provider"
)

const crashHelperEnv = "CODEWHALE_SESSION_CRASH_HELPER"

func TestMain(m *testing.M) {
	if home := os.Getenv(crashHelperEnv); home != "" {
		crashHelper(home)
	}
	os.Exit(m.Run())
}

// crashHelper appends messages forever, printing "ok N" after the Nth
// Append returned. Every fourth message is a megabyte, so a kill often
// lands inside a write.
func crashHelper(home string) {
	j := NewJournal(home, Options{})
	info := testInfo("crash-session")
	for i := 1; ; i++ {
		if err := j.Append(info, crashMessage(i)); err != nil {
			fmt.Fprintln(os.Stderr, "append:", err)
			os.Exit(3)
		}
		fmt.Printf("ok %d\n", i)
	}
}

func crashMessage(i int) provider.Message {
	pad := 64
	if i%4 == 0 {
		pad = 1 << 20
	}
	return assistant(fmt.Sprintf("message %d %s", i, strings.Repeat("x", pad)))
}

// README.md "Sessions": killing the process loses at most the answer being streamed
func TestSIGKILLLosesAtMostThePartialMessage(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL semantics are unix-only")
	}
	t.Parallel()
	for round := range 3 {
		t.Run(strconv.Itoa(round), func(t *testing.T) {
			home := t.TempDir()
			acked := runAndKill(t, home, 5+rand.IntN(40))
			path := filepath.Join(Dir(home), "crash-session.jsonl")
			l, err := Load(path)
			if err != nil {
				t.Fatalf("Load after SIGKILL: %v", err)
			}
			msgs := l.Session.Messages
			if len(msgs) < acked {
				t.Fatalf("only %d messages on disk, but %d appends were acknowledged", len(msgs), acked)
			}
			for i, m := range msgs {
				if want := fmt.Sprintf("message %d ", i+1); !strings.HasPrefix(m.Text(), want) {
					t.Fatalf("message %d starts %.20q, want %q", i+1, m.Text(), want)
				}
			}
			if len(l.Damage.Corrupt) > 0 || l.Damage.BadHeader {
				t.Fatalf("damage beyond a trailing partial line: %+v", l.Damage)
			}
			t.Logf("acked %d, recovered %d, truncated tail %d bytes", acked, len(msgs), l.Damage.TruncatedBytes)

			// The crashed session can be continued, and is then clean.
			j := NewJournal(home, Options{})
			defer j.Close()
			mustAppend(t, j, testInfo("crash-session"), userTurn("continue"))
			l2, err := Load(path)
			if err != nil || l2.Damage.Any() || len(l2.Session.Messages) != len(msgs)+1 {
				t.Fatalf("after resume: err %v damage %+v messages %d", err, l2.Damage, len(l2.Session.Messages))
			}
		})
	}
}

// runAndKill starts the helper, kills it with SIGKILL once target appends
// were acknowledged, and returns how many were acknowledged in all.
func runAndKill(t *testing.T, home string, target int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashHelperEnv+"="+home)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	acked, killed := 0, false
	for sc.Scan() {
		n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "ok "))
		if err != nil {
			t.Fatalf("helper printed %q", sc.Text())
		}
		acked = n
		if n >= target && !killed {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("helper exited before the kill: %v\n%s", err, stderr.String())
	}
	return acked
}

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// The API key on the command line. `--api-key VALUE` puts the key in the
// process list, where every user of the machine can read it (ps,
// /proc/<pid>/cmdline). codewhale therefore takes the key from
// --api-key-file PATH or `--api-key -` (one line on stdin) as well, and
// when given a literal --api-key it warns and, where the OS allows, moves
// the key off its command line at once: the key goes into a pipe and the
// process re-executes itself in place (same pid) with
// `--api-key-file /dev/fd/N` instead. The key is visible only for the few
// milliseconds before that exec.

// apiKeyWarning is printed when a literal --api-key is given.
const apiKeyWarning = "warning: --api-key shows the key to every user of this machine in the process list; " +
	"use --api-key-file PATH, --api-key - (read from stdin), DEEPSEEK_API_KEY or `codewhale auth set` instead"

// literalAPIKey finds a literal --api-key value in args (before any "--"):
// its value, the index of the flag, and whether it was written --api-key=V.
func literalAPIKey(args []string) (key string, at int, joined, ok bool) {
	for i, a := range args {
		switch {
		case a == "--":
			return "", 0, false, false
		case a == "--api-key" && i+1 < len(args) && args[i+1] != "-":
			return args[i+1], i, false, true
		case strings.HasPrefix(a, "--api-key=") && a != "--api-key=-":
			return strings.TrimPrefix(a, "--api-key="), i, true, true
		}
	}
	return "", 0, false, false
}

// withKeyFile replaces the literal --api-key at index at by --api-key-file
// path.
func withKeyFile(args []string, at int, joined bool, path string) []string {
	out := append([]string{}, args[:at]...)
	out = append(out, "--api-key-file", path)
	skip := at + 2
	if joined {
		skip = at + 1
	}
	return append(out, args[skip:]...)
}

// hideAPIKey handles a literal --api-key before anything else runs: it warns
// and hands the key over through a pipe to a re-executed self. It returns
// only when there is nothing to hide or the OS cannot re-execute (then the
// key stays visible, as the warning says).
func hideAPIKey(args []string, stderr io.Writer) []string {
	key, at, joined, ok := literalAPIKey(args)
	if !ok || key == "" {
		return args
	}
	fmt.Fprintln(stderr, apiKeyWarning)
	if err := reexecWithKeyFile(args, key, at, joined); err != nil {
		fmt.Fprintf(stderr, "warning: could not move the key off the command line (%v); it stays visible for this run\n", err)
	}
	return args
}

// resolveAPIKey turns --api-key / --api-key-file into the key itself.
func (g *globals) resolveAPIKey() error {
	switch {
	case g.apiKeyFile != "" && g.apiKey != "":
		return errors.New("give the key with one of --api-key and --api-key-file, not both")
	case g.apiKeyFile != "":
		key, err := readKeyFrom(g.apiKeyFile)
		if err != nil {
			return err
		}
		g.apiKey, g.apiKeyFile = key, ""
	case g.apiKey == "-":
		key, err := firstLine(g.in, "stdin")
		if err != nil {
			return fmt.Errorf("--api-key -: %w", err)
		}
		g.apiKey = key
	}
	return nil
}

func readKeyFrom(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("--api-key-file: %w", err)
	}
	defer f.Close()
	key, err := firstLine(f, path)
	if err != nil {
		return "", fmt.Errorf("--api-key-file: %w", err)
	}
	return key, nil
}

// firstLine reads the key: the first line, trimmed, at most 64 KiB.
func firstLine(r io.Reader, what string) (string, error) {
	if r == nil {
		return "", fmt.Errorf("no key in %s", what)
	}
	line, err := bufio.NewReader(io.LimitReader(r, 64<<10)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the key from %s: %w", what, err)
	}
	if key := strings.TrimSpace(line); key != "" {
		return key, nil
	}
	return "", fmt.Errorf("no key in %s (the first line is empty)", what)
}

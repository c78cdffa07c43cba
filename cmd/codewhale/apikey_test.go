package main

import (
	"slices"
	"testing"
)

// README.md "Quick start": a literal --api-key KEY becomes --api-key-file /dev/fd/N.
func TestLiteralAPIKeyMovesToAKeyFile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, want []string
		found    bool
	}{
		{[]string{"--api-key", "K", "exec", "hi"}, []string{"--api-key-file", "/dev/fd/9", "exec", "hi"}, true},
		{[]string{"exec", "--api-key=K", "hi"}, []string{"exec", "--api-key-file", "/dev/fd/9", "hi"}, true},
		{[]string{"--api-key", "-", "exec"}, nil, false},
		{[]string{"--api-key=-", "exec"}, nil, false},
		{[]string{"exec", "--", "--api-key", "K"}, nil, false}, // prompt text, not a flag
		{[]string{"exec", "hi"}, nil, false},
	} {
		key, at, joined, ok := literalAPIKey(c.in)
		if ok != c.found {
			t.Errorf("%v: found %v", c.in, ok)
			continue
		}
		if !ok {
			continue
		}
		if got := withKeyFile(c.in, at, joined, "/dev/fd/9"); key != "K" || !slices.Equal(got, c.want) {
			t.Errorf("%v: key %q args %v, want %v", c.in, key, got, c.want)
		}
	}
}

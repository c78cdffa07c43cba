package rlm

import (
	"testing"
)

// README.md "rlm: Python over big content": eval output of up to 1,000
// characters comes back inline and longer output as a handle for handle_read.
func TestREADMEOutputOver1000CharactersIsAHandle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.must(`{"action":"open","name":"s","content":"x"}`)
	// print adds a newline: 999 x's are 1,000 characters, 1,000 are 1,001.
	out := e.must(`{"action":"eval","name":"s","code":"print('x' * 999)"}`)
	if s, _ := out["stdout"].(string); len(s) != 1000 {
		t.Errorf("1,000 characters did not come inline: %v", out)
	}
	out = e.must(`{"action":"eval","name":"s","code":"print('x' * 1000)"}`)
	if _, inline := out["stdout"]; inline || len(e.handleText(out["stdout_handle"])) != 1001 {
		t.Errorf("1,001 characters were not a handle: %v", out)
	}
}

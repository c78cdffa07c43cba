package shellpolicy

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A toolchain flag that names a program is that program's command line: go
// test -exec, -toolexec, -vettool and the linker's -extld, in flags or in
// GOFLAGS, and cargo's --config runner, linker, rustc wrappers and [env]
// are judged as the commands they run (Bash, Run's args, rlm: one
// classifier). A script on disk they name carries its hard block over.
func TestToolchainFlagsThatRunProgramsAreJudgedAsThoseCommands(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "wipe.sh"), []byte("#!/bin/sh\nrm -rf ~\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	env.Workspace = ws
	for _, c := range []struct {
		cmd  string
		want Class
	}{
		{"go test ./...", Ordinary},
		{"go test -run TestX -count=1 -vet=off -json ./...", Ordinary},
		{"go test -exec 'rm -rf /' ./...", Blocked},
		{"go test -exec='rm -rf /' ./...", Blocked},
		{"go test --exec 'rm -rf ~' ./...", Blocked},
		{`go test -exec 'sh -c "rm -rf /"' ./...`, Blocked},
		{`go test -exec "sh -c 'rm -rf /'" ./...`, Blocked},
		{"go test -exec ./wipe.sh ./...", Blocked},
		{"go test -exec 'cat ~/.ssh/id_rsa' ./...", Explicit},
		{`go test -exec "$X" ./...`, Explicit},
		{"go test -exec 'printf %s' ./...", Ordinary},
		{`go test -exec 'go test -exec "rm -rf /"' ./...`, Blocked},
		{"go run -exec 'rm -rf /' .", Blocked},
		{"go build -toolexec 'rm -rf /' .", Blocked},
		{"go test -toolexec=./wipe.sh ./...", Blocked},
		{"go vet -vettool=./wipe.sh ./...", Blocked},
		{"go vet -vettool ~/.ssh/id_rsa ./...", Explicit},
		{`go build -ldflags '-linkmode=external "-extld=rm -rf /"' .`, Blocked},
		{`go build -ldflags 'main=-extld ./wipe.sh' .`, Blocked},
		{`go build -ldflags '-linkmode=external -extld="rm -rf /"' .`, Ordinary}, // go's split keeps `"rm`: nothing runs
		{`go build -ldflags "$FLAGS" .`, Explicit},
		{"go build -ldflags='-s -w' .", Ordinary},
		{"GOFLAGS=-toolexec=./wipe.sh go test ./...", Blocked},
		{"export GOFLAGS='-count=1 -exec=./wipe.sh'; go test ./...", Blocked},
		{"go env -w GOFLAGS=-exec=./wipe.sh", Blocked},
		{"go env -w GOFLAGS=-count=1", Ordinary},
		{"cargo test", Ordinary},
		{"cargo test --config build.jobs=4", Ordinary},
		{`cargo test --config 'target.x86_64-unknown-linux-gnu.runner="rm -rf /"'`, Blocked},
		{`cargo test --config='target."cfg(unix)".runner = ["sh", "-c", "rm -rf ~"]'`, Blocked},
		{`cargo test --config 'build.rustc-wrapper="./wipe.sh"'`, Blocked},
		{`cargo test --config 'target.x86_64-unknown-linux-gnu.linker="cat ~/.ssh/id_rsa"'`, Explicit},
		{`cargo test --config 'env.GIT_SSH_COMMAND="rm -rf /"'`, Blocked},
		{`cargo test --config 'build.rustc=1'`, Explicit},
		{"cargo test --config ci.toml", Explicit},
		{`cargo test --config "$CFG"`, Explicit},
		{`cargo test -- --config 'build.rustc="rm -rf /"'`, Ordinary}, // the test binary's arguments
	} {
		if v := env.Classify(c.cmd, ""); v.Class != c.want {
			t.Errorf("Classify(%q) = %v %q, want %v", c.cmd, v.Class, v.Reason(), c.want)
		}
	}
}

// quotedSplit splits as Go's cmd/internal/quoted.Split: whole fields may be
// quoted, quotes inside a field are characters, nothing is unescaped.
func TestQuotedSplitIsGosGrammar(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"  a\tb\n c ", []string{"a", "b", "c"}, false},
		{`sh -c "rm -rf /"`, []string{"sh", "-c", "rm -rf /"}, false},
		{`'a "b"' c`, []string{`a "b"`, "c"}, false},
		{`-extld="rm -rf /"`, []string{`-extld="rm`, "-rf", `/"`}, false},
		{`"a\"b"`, []string{`a\`, `b"`}, false},
		{`'unterminated`, nil, true},
	} {
		got, err := quotedSplit(c.in)
		if (err != nil) != c.err || !c.err && !reflect.DeepEqual(got, c.want) {
			t.Errorf("quotedSplit(%q) = %q, %v; want %q (error %v)", c.in, got, err, c.want, c.err)
		}
	}
}

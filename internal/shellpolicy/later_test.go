package shellpolicy

import "testing"

// Text that runs later is judged now: a trap's action (on EXIT or a
// signal), and an alias's text with the words after its name (alias
// r='rm -rf'; r / is rm -rf /). A file a statement writes through another
// descriptor than its output (2>f, exec 3>f; echo … >&3) holds what the
// classifier did not see, so running it is never an ordinary approval.
func TestTextThatRunsLaterAndFilesWrittenUnseenAreJudged(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"trap 'rm -rf ~' EXIT", Blocked, "filesystem root"},
		{"trap -- 'rm -rf /' EXIT INT", Blocked, "filesystem root"},
		{`trap "$X" EXIT`, Explicit, "trap runs a script the classifier cannot see"},
		{"trap 'echo bye' EXIT", Ordinary, ""},
		{"trap - EXIT", Ordinary, ""},
		{"trap '' INT", Ordinary, ""},
		{"trap", ReadOnly, ""},
		{"trap -p", ReadOnly, ""},
		{"shopt -s expand_aliases\nalias r='rm -rf'\nr /", Blocked, "filesystem root"},
		{"alias r='rm -rf'; r ~", Blocked, "filesystem root"},
		{`alias r='rm -rf'; r "$X"`, Explicit, "runs the alias r with an argument the classifier cannot see"},
		{"alias ls='ls -l'; ls /tmp", Ordinary, ""},
		{"alias w='rm -rf /'", Blocked, "filesystem root"},
		{"exec 3>x.sh; echo 'rm -rf ~' >&3; sh x.sh", Explicit, "may have changed"},
		{"{ echo 'rm -rf ~' >&3; } 3> x.sh; sh x.sh", Explicit, "may have changed"},
		{"python3 -c 'print(1)' 2>x.sh; sh x.sh", Explicit, "may have changed"},
		{"echo hi <>x.sh; sh x.sh", Explicit, "may have changed"},
		{"echo 'rm -rf ~' >x.sh 2>/dev/null; sh x.sh", Blocked, "filesystem root"},
		{"go test ./... 2>err.log; cat err.log", Ordinary, ""},
	})
}

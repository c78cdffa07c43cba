package shellpolicy

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Wrappers that run a command are judged by the command they run, parsed
// with the wrapper's own option grammar (its --help): options that take a
// value, bundles (-qc CMD), long-option prefixes (--comm), operands before
// the command, and options after an operand where getopt permutes.
// README.md "Modes and permissions": wrappers are read with their own option grammar and judged by what they run.
func TestWrappersAreJudgedByWhatTheyRun(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"watch rm -rf /", Blocked, "filesystem root"},
		{"watch -n 1 'rm -rf /'", Blocked, "filesystem root"},
		{"watch -n1 -d rm -rf ~", Blocked, "home directory"},
		{"watch --interval=2 --differences=permanent rm -rf /", Blocked, "filesystem root"},
		{"watch -x rm -rf /", Blocked, "filesystem root"},
		{"watch --exe rm -rf /", Blocked, "filesystem root"},
		{"watch 'cat ~/.ssh/id_rsa'", Explicit, "credentials"},
		{"watch -n 5 'ls; rm -rf /'", Blocked, "filesystem root"},
		{"watch \"$CMD\"", Explicit, "cannot see"},
		{"watch -n 2 git status", Ordinary, ""},
		{"script -qc 'cat ~/.ssh/id_rsa'", Explicit, "credentials"},
		{"script -q -c 'rm -rf /' /dev/null", Blocked, "filesystem root"},
		{"script --comm 'rm -rf /'", Blocked, "filesystem root"},
		{"script --command='rm -rf ~'", Blocked, "home directory"},
		{"script session.log -c 'rm -rf /'", Blocked, "filesystem root"},
		{"script -c \"$X\"", Explicit, "cannot see"},
		{"echo 'rm -rf /' | script -q", Blocked, "filesystem root"},
		{"script -q -c 'go test ./...' /dev/null", Ordinary, ""},
		{"unshare -r rm -rf /", Blocked, "filesystem root"},
		{"unshare --map-root-user --net -- rm -rf ~", Blocked, "home directory"},
		{"unshare -R /tmp/x -w / rm -rf /", Blocked, "filesystem root"},
		{"unshare --propagation private -m rm -rf /", Blocked, "filesystem root"},
		{"unshare --prop private rm -rf /", Blocked, "filesystem root"},
		{"unshare --mount=/tmp/ns -Ur cat ~/.ssh/id_rsa", Explicit, "credentials"},
		{"echo 'rm -rf /' | unshare -r", Blocked, "filesystem root"},
		{"setpriv --reuid=1000 --regid 1000 --init-groups rm -rf /", Blocked, "filesystem root"},
		{"setpriv --nnp cat ~/.ssh/id_rsa", Explicit, "credentials"},
		{"setpriv --reu 0 --inh-caps -all rm -rf /", Blocked, "filesystem root"},
		{"nsenter -t 1 -m -u rm -rf /", Blocked, "filesystem root"},
		{"chroot /srv/root rm -rf /", Blocked, "filesystem root"},
		{"chroot --userspec 0:0 / rm -rf /", Blocked, "filesystem root"},
		{"setarch x86_64 -R rm -rf /", Blocked, "filesystem root"},
		{"linux32 rm -rf /", Blocked, "filesystem root"},
		{"flock /tmp/l -c 'rm -rf /'", Blocked, "filesystem root"},
		{"flock -w 5 /tmp/l rm -rf /", Blocked, "filesystem root"},
		{"prlimit --nofile=100 -p 1 rm -rf /", Blocked, "filesystem root"},
		{"fakeroot -- rm -rf /", Blocked, "filesystem root"},
		{"systemd-run --user -p MemoryMax=1G rm -rf /", Blocked, "filesystem root"},
		{"bwrap --bind / / --dev /dev --setenv A b rm -rf /", Blocked, "filesystem root"},
		{"sudo -Eu root rm -rf /", Blocked, "filesystem root"},
		{"env - rm -rf /", Blocked, "filesystem root"},
		{"su -c 'rm -rf /'", Blocked, "filesystem root"},
		{"su - root -c 'cat ~/.ssh/id_rsa'", Explicit, "credentials"},
		{"runuser -u nobody -- rm -rf /", Blocked, "filesystem root"},
		{"runuser -l nobody -c 'rm -rf /'", Blocked, "filesystem root"},
		{"ionice -c 3 rm -rf /", Blocked, "filesystem root"},
		{"eatmydata rm -rf /", Blocked, "filesystem root"},
		{"chronic -e rm -rf ~", Blocked, "home directory"},
		{"echo x | ifne rm -rf /", Blocked, "filesystem root"},
		{"proxychains4 -f /etc/p.conf rm -rf /", Blocked, "filesystem root"},
		{"faketime '2008-12-24 08:15:42' rm -rf /", Blocked, "filesystem root"},
		{"faketime -f '+2d' rm -rf /", Blocked, "filesystem root"},
		{"numactl --interleave all -C 0-3 rm -rf /", Blocked, "filesystem root"},
		{"cgexec -g cpu:small rm -rf /", Blocked, "filesystem root"},
		{"dbus-run-session -- rm -rf /", Blocked, "filesystem root"},
		{"valgrind --tool=memcheck -q rm -rf /", Blocked, "filesystem root"},
		{"valgrind --db-command='rm -rf /' ./app", Blocked, "filesystem root"},
		{"sg docker -c 'rm -rf /'", Blocked, "filesystem root"},
		{"sg docker 'cat ~/.ssh/id_rsa'", Explicit, "credentials"},
		{"echo 'rm -rf /' | newgrp docker", Blocked, "filesystem root"},
		{"capsh --caps=cap_sys_admin+ep -- -c 'rm -rf /'", Blocked, "filesystem root"},
		{"capsh --drop=cap_net_raw == -c 'cat ~/.ssh/id_rsa'", Explicit, "credentials"},
		{"capsh --print", Ordinary, ""},
		{"systemd-run --user make", Explicit, "outside the sandbox"},
	})
}

// tmux has its server run shell commands — the server may have started
// outside the sandbox — and send-keys types them into a pane's shell.
// README.md "Modes and permissions": the classifier looks through the commands a tmux server runs or send-keys types.
func TestTmuxIsJudgedByWhatItsServerRuns(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"tmux new-session -d -s w 'rm -rf /'", Blocked, "filesystem root"},
		{"tmux new -d -s w -c /tmp rm -rf ~", Blocked, "home directory"},
		{"tmux -L priv neww -t w 'cat ~/.ssh/id_rsa'", Explicit, "credentials"},
		{"tmux splitw -h -l 30 'rm -rf /'", Blocked, "filesystem root"},
		{"tmux run-shell -b 'rm -rf /'", Blocked, "filesystem root"},
		{"tmux run -C 'display-message hi'", Ordinary, ""},
		{"tmux send-keys -t w 'rm -rf /' Enter", Blocked, "filesystem root"},
		{"tmux send -t w:0 'cat ~/.ssh/id_rsa' C-m", Explicit, "credentials"},
		{"tmux if-shell 'rm -rf /' 'display x'", Blocked, "filesystem root"},
		{"tmux -c 'rm -rf /'", Blocked, "filesystem root"},
		{"tmux -vc 'rm -rf /'", Blocked, "filesystem root"},
		{"tmux new -d 'make' \\; send-keys -t w 'rm -rf ~' Enter", Blocked, "home directory"},
		{"tmux popup -w 80 -E 'rm -rf /'", Blocked, "filesystem root"},
		{"tmux pipe-pane -t w 'cat >> ~/.ssh/authorized_keys'", Explicit, ""},
		{"tmux new-session -d -s build 'go test ./...'", Ordinary, ""},
		{"tmux ls", Ordinary, ""},
	})
}

// GNU parallel runs its command template once per input (quoted in place
// of {} or appended) and, without a template, runs the inputs themselves.
func TestParallelIsJudgedByItsJobs(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"parallel rm -rf ::: /", Blocked, "filesystem root"},
		{"parallel rm -rf {} ::: build /", Blocked, "filesystem root"},
		{"parallel -j4 'rm -rf {}' ::: ~", Blocked, "home directory"},
		{"parallel --jobs 4 rm -rf {//} ::: /x", Blocked, "filesystem root"},
		{"parallel ::: 'rm -rf /'", Blocked, "filesystem root"},
		{"parallel ::: echo ::: 'x; rm -rf /'", Blocked, "filesystem root"},
		{"parallel echo ::: a ::: 'x; rm -rf /'", Ordinary, ""}, // an input in a template is quoted
		{"echo / | parallel rm -rf", Blocked, "filesystem root"},
		{"echo 'rm -rf /' | parallel", Blocked, "filesystem root"},
		{"parallel :::: jobs.txt", Explicit, "cannot see"},
		{"parallel cat ::: ~/.ssh/id_rsa", Explicit, "credentials"},
		{"parallel --arg-sep ,, rm -rf ,, /", Blocked, "filesystem root"},
		{"parallel --ssh 'rm -rf /' -S host echo ::: x", Blocked, "filesystem root"},
		{"sem rm -rf /", Blocked, "filesystem root"},
		{"parallel gzip ::: a.log b.log", Ordinary, ""},
		{"parallel --pipe wc -l < big.txt", Ordinary, ""},
		{"parallel -q sh -c 'echo {}' ::: a", Ordinary, ""},
	})
}

// GNU sed's e command runs a shell command; a bare e and the e flag of
// s/// run the input line. Printing stays read-only.
// README.md "Modes and permissions": GNU sed's e command and the e flag of s/// are judged as the commands they run.
func TestSedExecutesCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "wipe.sed")
	if err := os.WriteFile(script, []byte("1{\n  e rm -rf /\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	checkClasses(t, []classCase{
		{"sed -n p file", ReadOnly, ""},
		{"sed -n '1,20p' main.go", ReadOnly, ""},
		{"sed 's/x/y/e' f", Explicit, "input as shell commands"},
		{"sed 's/.*/rm -rf \\//e' f", Blocked, "filesystem root"},
		{"sed '1e rm -rf /' f", Blocked, "filesystem root"},
		{"sed -e '1{e cat ~/.ssh/id_rsa' -e '}' f", Explicit, "credentials"},
		{"sed -ne '$e rm -rf ~' f", Blocked, "home directory"},
		{"sed --expr='e rm -rf /' f", Blocked, "filesystem root"},
		{"sed --expression 'e rm -rf /' f", Blocked, "filesystem root"},
		{"sed -n 'p;e rm -rf /' f", Blocked, "filesystem root"},
		{"sed -f " + script + " f", Blocked, "filesystem root"},
		{"sed --fi=" + script + " f", Blocked, "filesystem root"},
		{"echo 'e rm -rf /' > s.sed; sed -f s.sed f", Blocked, "filesystem root"},
		{"echo e | sed -f - f", Explicit, "input as shell commands"},
		{"cat x | sed -f - f", Explicit, "cannot see"},
		{"sed -l 5 'e rm -rf /' f", Blocked, "filesystem root"},
		{"sed --line-length 5 'e rm -rf /' f", Blocked, "filesystem root"},
		{"sed -ie 's/x/y/' f", Ordinary, ""}, // -i with the suffix "e"
		{"sed -i 's/x/y/g' f", Ordinary, ""},
		{"sed 'y/abc/xyz/;s/a/b/g' f", Ordinary, ""},
		{"sed 'a hello e world' f", Ordinary, ""},
		{"sed '/e/d;s/e/E/g' f", Ordinary, ""},
		{"sed \"s/$OLD/$NEW/\" f", Ordinary, ""},
		{"sed 's/a/b/;s/c/' f", Explicit, "does not parse"},
	})
}

func TestCommandsLookThroughWrappers(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		script   string
		want     []string
		complete bool
	}{
		{"watch -n 1 git push", []string{"git", "push"}, true},
		{"script -qc 'git push' /dev/null", []string{"git", "push"}, true},
		{"unshare -r git push", []string{"git", "push"}, true},
		{"parallel git push ::: origin", []string{"git", "push", "origin"}, true},
		{"sed '1e git push' f", []string{"git", "push"}, true},
		{"capsh -- -c 'git push'", []string{"git", "push"}, true},
		{"sg docker -c 'git push'", []string{"git", "push"}, true},
		{"sed 's/x/git push/e' f", nil, false},
		{"parallel :::: jobs.txt", nil, false},
	} {
		got, complete := Commands(tt.script)
		found := tt.want == nil
		for _, c := range got {
			found = found || reflect.DeepEqual(c, tt.want)
		}
		if !found || complete != tt.complete {
			t.Errorf("Commands(%q) = %q, %v; want it to hold %q, complete %v", tt.script, got, complete, tt.want, tt.complete)
		}
	}
}

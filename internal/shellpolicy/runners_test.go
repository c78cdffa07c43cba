package shellpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Programs whose options name a command they run are judged as that
// command (runners.go): tar --to-command, --checkpoint-action=exec=, -I,
// -F and --rsh-command; zip -TT; split --filter; sort --compress-program;
// rsync -e and --rsync-path; scp and sftp -S, -D and -o; ssh -o
// ProxyCommand, LocalCommand and KnownHostsCommand however the option is
// spelled; man -P and --html; less +!CMD; vim's -c, + and --cmd shell
// escapes; emacs --eval; gdb -ex and -x FILE; lldb -o; sqlite3 .shell and
// .system (arguments, -cmd, stdin); psql \!; mysql system; expect -c;
// socat EXEC: and SYSTEM:; nc and ncat -e, -c, --exec and --sh-exec; cmake
// -E rm, remove_directory, env, chdir and time; screen's command and -X
// stuff; at and batch reading a script; crontab installing a table (always
// a hold: it runs later, outside any approval); docker and podman run with
// the host's root, home or a top-level directory mounted, or --privileged.
// `rm -rf ~` given through any of them is blocked, a value the classifier
// cannot see ("$X") is a hold, and the everyday forms keep the class they
// had before these rules.
func TestOptionsThatRunCommandsAreJudgedAsThoseCommands(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for name, text := range map[string]string{
		"wipe.sh":   "#!/bin/sh\nrm -rf ~\n",
		"cmds.gdb":  "run\nshell rm -rf ~\n",
		"jobs.cron": "# nightly\nMAILTO=me\n@reboot rm -rf ~\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := testEnv()
	env.Workspace = ws
	for _, tt := range []classCase{
		{`tar xzf a.tgz`, Ordinary, ""},
		{`tar czf out.tgz src`, Ordinary, ""},
		{`tar -xf a.tar --to-command='rm -rf ~'`, Blocked, "home directory"},
		{`tar -xf a.tar --to-command 'rm -rf ~'`, Blocked, "home directory"},
		{`tar -xf a.tar --to-com='rm -rf ~'`, Blocked, "home directory"},
		{`tar -xf a.tar --to-command="$X"`, Explicit, "cannot see"},
		{`tar -xf a.tar --to-command='gzip -c'`, Ordinary, ""},
		{`tar -cf a.tar --checkpoint=1 --checkpoint-action=exec='rm -rf ~' src`, Blocked, "home directory"},
		{`tar --checkpoint-action="$X" -cf a.tar src`, Explicit, "cannot see"},
		{`tar --checkpoint=100 --checkpoint-action=echo -cf a.tar src`, Ordinary, ""},
		{`tar -I 'rm -rf ~' -xf a.tar`, Blocked, "home directory"},
		{`tar -xIzstd -f a.tar`, Ordinary, ""},
		{`tar -xf a.tar -I "$X"`, Explicit, "cannot see"},
		{`tar --use-compress-program='rm -rf ~' -xf a.tar`, Blocked, "home directory"},
		{`tar --use-compress-program=zstd -xf a.tar`, Ordinary, ""},
		{`tar xIf 'rm -rf ~' a.tar`, Blocked, "home directory"},
		{`tar -cf a.tar -F 'rm -rf ~' -M src`, Blocked, "home directory"},
		{`tar --info-script='rm -rf ~' -cMf a.tar src`, Blocked, "home directory"},
		{`tar --new-volume-script='rm -rf ~' -cMf a.tar src`, Blocked, "home directory"},
		{`tar --rsh-command=./wipe.sh -xf host:a.tar`, Blocked, "home directory"},
		{`tar -tvf a.tar`, Ordinary, ""},

		{`zip -r out.zip src`, Ordinary, ""},
		{`zip out.zip f -T -TT 'rm -rf ~'`, Blocked, "home directory"},
		{`zip out.zip f -T --unzip-command 'rm -rf ~'`, Blocked, "home directory"},
		{`zip out.zip f -T -TT "$X"`, Explicit, "cannot see"},

		{`split -l 100 big.txt part_`, Ordinary, ""},
		{`split --filter='rm -rf ~' big.txt`, Blocked, "home directory"},
		{`split --filter 'rm -rf ~' big.txt`, Blocked, "home directory"},
		{`split --fil='rm -rf ~' big.txt`, Blocked, "home directory"},
		{`split --filter="$X" big.txt`, Explicit, "cannot see"},
		{`split --filter='gzip > $FILE.gz' big.txt`, Ordinary, ""},

		{`sort f`, ReadOnly, ""},
		{`sort -k 2 -t , f`, ReadOnly, ""},
		{`sort --compress-program='rm -rf ~' f`, Blocked, "home directory"},
		{`sort --compress-program=./wipe.sh f`, Blocked, "home directory"},
		{`sort --compress-program=gzip f`, Ordinary, ""},
		{`sort --compress-program="$X" f`, Explicit, "cannot see"},

		{`rsync -a src/ dst/`, Ordinary, ""},
		{`rsync -az -e ssh src/ host:dst/`, Ordinary, ""},
		{`rsync -e 'rm -rf ~' src/ host:dst/`, Blocked, "home directory"},
		{`rsync --rsh='rm -rf ~' src/ host:dst/`, Blocked, "home directory"},
		{`rsync --rsh 'rm -rf ~' src/ host:dst/`, Blocked, "home directory"},
		{`rsync -ae 'rm -rf ~' src/ host:dst/`, Blocked, "home directory"},
		{`rsync --rsync-path='rm -rf ~' src/ host:dst/`, Blocked, "home directory"},
		{`rsync -e "$X" src/ host:dst/`, Explicit, "cannot see"},

		{`scp f host:`, Ordinary, ""},
		{`scp -r dir host:dir`, Ordinary, ""},
		{`scp -S 'rm -rf ~' f host:`, Blocked, "home directory"},
		{`scp -S ./wipe.sh f host:`, Blocked, "home directory"},
		{`scp -o ProxyCommand='rm -rf ~' f host:`, Blocked, "home directory"},
		{`scp -S "$X" f host:`, Explicit, "cannot see"},

		{`sftp host`, Ordinary, ""},
		{`sftp -S 'rm -rf ~' host`, Blocked, "home directory"},
		{`sftp -D 'rm -rf ~' host`, Blocked, "home directory"},
		{`sftp -o 'ProxyCommand rm -rf ~' host`, Blocked, "home directory"},

		{`ssh host ls`, Ordinary, ""},
		{`ssh -p 2222 -i key host uptime`, Ordinary, ""},
		{`ssh -o StrictHostKeyChecking=no host ls`, Ordinary, ""},
		{`ssh -o ProxyCommand='rm -rf ~' host`, Blocked, "home directory"},
		{`ssh -oProxyCommand='rm -rf ~' host`, Blocked, "home directory"},
		{`ssh -o 'ProxyCommand rm -rf ~' host`, Blocked, "home directory"},
		{`ssh -o 'proxycommand=rm -rf ~' host`, Blocked, "home directory"},
		{`ssh -o 'PROXYCOMMAND = rm -rf ~' host`, Blocked, "home directory"},
		{`ssh -o PermitLocalCommand=yes -o LocalCommand='rm -rf ~' host`, Blocked, "home directory"},
		{`ssh -o KnownHostsCommand='rm -rf ~' host`, Blocked, "home directory"},
		{`ssh host -o ProxyCommand='rm -rf ~'`, Blocked, "home directory"},
		{`ssh -vo ProxyCommand='rm -rf ~' host`, Blocked, "home directory"},
		{`ssh -o ProxyCommand="$X" host`, Explicit, "cannot see"},
		{`ssh -o "$OPT" host`, Explicit, "cannot see"},
		{`ssh -o ProxyCommand='ssh -W %h:%p bastion' host`, Ordinary, ""},
		{`ssh -o ProxyCommand=none host`, Ordinary, ""},
		{`ssh host echo -o ProxyCommand='rm -rf ~'`, Ordinary, ""},
		{`ssh host 'rm -rf ~'`, Ordinary, ""},

		{`man ls`, Ordinary, ""},
		{`man -P 'rm -rf ~' ls`, Blocked, "home directory"},
		{`man --pager='rm -rf ~' ls`, Blocked, "home directory"},
		{`man --pag 'rm -rf ~' ls`, Blocked, "home directory"},
		{`man -P cat ls`, Ordinary, ""},
		{`man -P "$X" ls`, Explicit, "cannot see"},
		{`man --html='rm -rf ~' ls`, Blocked, "home directory"},
		{`man -k printf`, Ordinary, ""},

		{`less f`, Ordinary, ""},
		{`less +G f`, Ordinary, ""},
		{`less -c f`, Ordinary, ""},
		{`less '+!rm -rf ~' f`, Blocked, "home directory"},
		{`less +'!rm -rf ~' f`, Blocked, "home directory"},
		{`less '++!rm -rf ~' f`, Blocked, "home directory"},

		{`vim f`, Ordinary, ""},
		{`vim -c 'set nu' f`, Ordinary, ""},
		{`vim +10 f`, Ordinary, ""},
		{`vim -c '!rm -rf ~' f`, Blocked, "home directory"},
		{`vim -c ':!rm -rf ~' f`, Blocked, "home directory"},
		{`vim '+!rm -rf ~' f`, Blocked, "home directory"},
		{`vim --cmd 'silent !rm -rf ~' f`, Blocked, "home directory"},
		{`vim -c 'call system("rm -rf ~")' f`, Blocked, "home directory"},
		{`vim -c "call system('rm -rf ~')" f`, Blocked, "home directory"},
		{`vim -c 'set nu | !rm -rf ~' f`, Blocked, "home directory"},
		{`vim -c '%!sort' f`, Ordinary, ""},
		{`vim -c 'r !rm -rf ~' f`, Blocked, "home directory"},
		{`vim -c 'w !rm -rf ~' f`, Blocked, "home directory"},
		{`vim -c 'w! other' f`, Ordinary, ""},
		{`vim -c 'exe "!rm -rf ~"' f`, Blocked, "home directory"},
		{`vim -c 'terminal rm -rf ~' f`, Blocked, "home directory"},
		{`vim -c 'py3 import os; os.system("rm -rf ~")' f`, Blocked, "home directory"},
		{`vim -c "$X" f`, Explicit, "cannot see"},

		{`vi -c '!rm -rf ~' f`, Blocked, "home directory"},

		{`ex -c '!rm -rf ~' f`, Blocked, "home directory"},

		{`nvim -c '!rm -rf ~' f`, Blocked, "home directory"},

		{`vim -c 'call system(g:x)' f`, Explicit, "cannot see"},

		{`emacs -nw f`, Ordinary, ""},
		{`emacs --batch --eval '(shell-command "rm -rf ~")'`, Blocked, "home directory"},
		{`emacs --batch --eval '(call-process "rm" nil nil nil "-rf" "/home/u")'`, Blocked, "home directory"},
		{`emacs --batch --eval '(message "hi")'`, Explicit, "runs Lisp"},
		{`emacs --eval="$X"`, Explicit, "cannot see"},

		{`gdb ./prog`, Ordinary, ""},
		{`gdb -batch -ex run -ex bt ./prog`, Ordinary, ""},
		{`gdb -ex 'shell rm -rf ~' ./prog`, Blocked, "home directory"},
		{`gdb -ex '!rm -rf ~' ./prog`, Blocked, "home directory"},
		{`gdb --eval-command='shell rm -rf ~' ./prog`, Blocked, "home directory"},
		{`gdb -ex 'pipe bt | rm -rf ~' ./prog`, Blocked, "home directory"},
		{`gdb -batch -x cmds.gdb ./prog`, Blocked, "home directory"},
		{`gdb -ex "$X" ./prog`, Explicit, "cannot see"},
		{`gdb -ex 'python import os; os.system("rm -rf ~")' ./prog`, Blocked, "home directory"},
		{`gdb --args ./prog -ex 'shell rm -rf ~'`, Ordinary, ""},

		{`lldb ./prog`, Ordinary, ""},
		{`lldb -o run ./prog`, Ordinary, ""},
		{`lldb -o 'platform shell rm -rf ~' ./prog`, Blocked, "home directory"},
		{`lldb -o 'platform shell -- rm -rf ~' ./prog`, Blocked, "home directory"},

		{`sqlite3 db.sqlite 'select 1'`, Ordinary, ""},
		{`sqlite3 db.sqlite .tables`, Ordinary, ""},
		{`sqlite3 db.sqlite '.shell rm -rf ~'`, Blocked, "home directory"},
		{`sqlite3 db.sqlite '.system rm -rf ~'`, Blocked, "home directory"},
		{`sqlite3 -cmd '.shell rm -rf ~' db.sqlite`, Blocked, "home directory"},
		{`sqlite3 db.sqlite ".once '|rm -rf ~'"`, Blocked, "home directory"},
		{"sqlite3 db.sqlite <<'EOF'\n.shell rm -rf ~\nEOF", Blocked, "home directory"},
		{"sqlite3 db.sqlite <<'EOF'\nselect 1;\nEOF", Ordinary, ""},

		{`psql -c 'select 1'`, Ordinary, ""},
		{`psql -c '\! rm -rf ~'`, Blocked, "home directory"},
		{`psql -c "$X"`, Explicit, "cannot see"},
		{`psql -f setup.sql`, Ordinary, ""},

		{`mysql -e 'select 1'`, Ordinary, ""},
		{`mysql -e 'system rm -rf ~'`, Blocked, "home directory"},
		{`mysql -e '\! rm -rf ~'`, Blocked, "home directory"},
		{`mysql -e "$X"`, Explicit, "cannot see"},

		{`expect -c 'spawn ssh host; interact'`, Ordinary, ""},
		{`expect -c 'spawn rm -rf ~'`, Blocked, "home directory"},
		{`expect -c 'exec rm -rf ~'`, Blocked, "home directory"},
		{`expect -c 'system rm -rf ~'`, Blocked, "home directory"},
		{`expect -c 'spawn ssh host; expect "$ "; send "ls\r"'`, Explicit, "does not follow"},

		{`socat - TCP:host:80`, Ordinary, ""},
		{`socat TCP-LISTEN:8080 EXEC:'rm -rf ~'`, Blocked, "home directory"},
		{`socat TCP-LISTEN:8080 SYSTEM:'rm -rf ~',pty`, Blocked, "home directory"},
		{`socat tcp-listen:8080 exec:"$X"`, Explicit, "cannot see"},

		{`nc host 80`, Ordinary, ""},
		{`nc -l -p 4444 -e 'rm -rf ~'`, Blocked, "home directory"},
		{`nc -c 'rm -rf ~' host 80`, Blocked, "home directory"},

		{`ncat --sh-exec 'rm -rf ~' host 80`, Blocked, "home directory"},
		{`ncat --exec 'rm -rf ~' host 80`, Blocked, "home directory"},
		{`ncat -e "$X" host 80`, Explicit, "cannot see"},

		{`cmake -S . -B build`, Ordinary, ""},
		{`cmake --build build`, Ordinary, ""},
		{`cmake -E rm -rf ~`, Blocked, "home directory"},
		{`cmake -E remove_directory ~`, Blocked, "home directory"},
		{`cmake -E remove_directory build`, Ordinary, ""},
		{`cmake -E env FOO=1 rm -rf ~`, Blocked, "home directory"},
		{`cmake -E chdir build rm -rf ~`, Blocked, "home directory"},
		{`cmake -E time rm -rf ~`, Blocked, "home directory"},
		{`cmake -E env FOO=1 make`, Ordinary, ""},

		{`screen -ls`, Ordinary, ""},
		{`screen -r job`, Ordinary, ""},
		{`screen -dmS job make`, Ordinary, ""},
		{`screen -dmS job rm -rf ~`, Blocked, "home directory"},
		{`screen -d -m rm -rf ~`, Blocked, "home directory"},
		{`screen -S job -X stuff 'rm -rf ~\n'`, Blocked, "home directory"},
		{`screen -s 'rm -rf ~'`, Blocked, "home directory"},

		{`echo 'rm -rf ~' | at now`, Blocked, "home directory"},
		{`at now <<< 'rm -rf ~'`, Blocked, "home directory"},
		{`at -f wipe.sh now`, Blocked, "home directory"},
		{`echo make | at now + 1 hour`, Ordinary, ""},
		{`at -l`, Ordinary, ""},
		{`echo "$X" | at now`, Explicit, "cannot see"},

		{`batch <<< 'rm -rf ~'`, Blocked, "home directory"},

		{`crontab -l`, Ordinary, ""},
		{`crontab -r`, Ordinary, ""},
		{`echo '* * * * * make' | crontab -`, Explicit, "cron table"},
		{`echo '* * * * * rm -rf ~' | crontab -`, Blocked, "home directory"},
		{`crontab jobs.cron`, Blocked, "home directory"},
		{`echo "$X" | crontab -`, Explicit, "cannot see"},

		{`docker run --rm alpine echo hi`, Ordinary, ""},
		{`docker ps`, Ordinary, ""},
		{`docker run -v /:/host alpine`, Explicit, "host's root"},
		{`docker run --volume=/:/host alpine`, Explicit, "host's root"},
		{`docker run -it -v /home/u:/h alpine sh`, Explicit, "host's root"},
		{`docker run --mount type=bind,source=/,target=/x alpine`, Explicit, "host's root"},
		{`docker run --mount type=bind,src=/etc,dst=/x alpine`, Explicit, "host's root"},
		{`docker run --privileged alpine`, Explicit, "devices and privileges"},
		{`docker run -v "$PWD":/src -w /src golang go test ./...`, Ordinary, ""},
		{`docker run -v data:/data alpine`, Ordinary, ""},

		{`podman run -v /:/host alpine`, Explicit, "host's root"},

		{`docker container run -v /:/host alpine`, Explicit, "host's root"},
		{`docker create -v /:/x alpine`, Explicit, "host's root"},
		{`docker run alpine ls -v /:/x`, Ordinary, ""},
		{`docker run -e A=1 -p 80:80 --name web -v /:/h nginx`, Explicit, "host's root"},
		{`docker run -v ~/.ssh:/root/.ssh alpine`, Explicit, "secret"},
		{`docker run -v "$X":/x alpine`, Explicit, "cannot see"},
	} {
		if v := env.Classify(tt.cmd, ws); v.Class != tt.want || !strings.Contains(v.Reason(), tt.reason) {
			t.Errorf("Classify(%q) = %v %q; want %v containing %q", tt.cmd, v.Class, v.Reason(), tt.want, tt.reason)
		}
	}
}

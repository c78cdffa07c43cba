package shellpolicy

import "testing"

// A wrapper that moves the command it runs to another directory has that
// command judged there, as cd would move it: env -C and --chdir, sudo and
// run0 -D, unshare -w, nsenter -w/-W, bwrap --chdir, firejail
// --private-cwd and systemd-run's service directory (/ for the system
// manager, the home for --user, unless --scope, -d or a working directory
// says otherwise). chroot and unshare -R start the command in the new
// root's /, judged as the host's /; a login (sudo -i, su -, pkexec) starts
// it in the target user's home (/root for root, else unknown). An unknown
// directory weighs as an unknown cd does, and neither the directory nor a
// cd the wrapped process runs reaches the commands after it.
func TestWrappersThatChangeDirectoryJudgeTheCommandThere(t *testing.T) {
	t.Parallel()
	const rmRoot = "recursively deletes the filesystem root"
	checkClasses(t, []classCase{
		// Secret reads, as cd ~/.aws && head credentials.
		{"env -C ~/.aws head credentials", Explicit, "touches a secret"},
		{"env --chdir=/home/u/.aws cat credentials", Explicit, "touches a secret"},
		{"env --chdir=~/.aws cat credentials", Explicit, "touches a secret"},
		{"env -C ~ cat .ssh/config", Explicit, "touches a secret"},
		{"env -C /home/u/.ssh grep -r . .", Explicit, "touches a secret"},
		{"nice env -C ~/.aws head credentials", Explicit, "touches a secret"},
		{"nice -n 5 env -C ~/.ssh cat config", Explicit, "touches a secret"},
		{"timeout 5 env -C ~/.aws head credentials", Explicit, "touches a secret"},
		{"env -C ~/.aws -S 'cat credentials'", Explicit, "touches a secret"},
		{"env -C ~ X=.ssh/config true", Explicit, "touches a secret"},

		// Hard blocks, as cd / && rm -rf *.
		{"env -C / rm -rf *", Blocked, rmRoot},
		{"env -C/ rm -rf *", Blocked, rmRoot},
		{"env --ch=/ rm -rf *", Blocked, rmRoot},
		{"env -C ~ rm -rf *", Blocked, rmRoot},
		{"env -C / rm -rf home", Blocked, rmRoot},
		{"env -C ~ sh -c 'rm -rf .[!.]* *'", Blocked, rmRoot},
		{"env -C / -S 'rm -rf *'", Blocked, rmRoot},
		{"env -C / env -C home rm -rf u", Blocked, rmRoot},
		{"nice env -C / rm -rf *", Blocked, rmRoot},
		{"timeout 5 env -C / rm -rf *", Blocked, rmRoot},
		{"chroot / rm -rf *", Blocked, rmRoot},
		{"chroot /mnt rm -rf *", Blocked, rmRoot},
		{"unshare -w / rm -rf *", Blocked, rmRoot},
		{"unshare --wd=/ rm -rf *", Blocked, rmRoot},
		{"unshare -R /mnt rm -rf *", Blocked, rmRoot},
		{"nsenter -w/ rm -rf *", Blocked, rmRoot},
		{"nsenter --wd=/ rm -rf *", Blocked, rmRoot},
		{"nsenter -W / -t 1 rm -rf *", Blocked, rmRoot},
		{"nsenter -r -t 1 rm -rf *", Blocked, rmRoot},
		{"bwrap --chdir / rm -rf *", Blocked, rmRoot},
		{"bwrap --ro-bind / / --chdir / rm -rf *", Blocked, rmRoot},
		{"sudo -D / rm -rf *", Blocked, rmRoot},
		{"sudo --chdir=/ rm -rf *", Blocked, rmRoot},
		{"sudo -i rm -rf *", Blocked, rmRoot},
		{"pkexec rm -rf *", Blocked, rmRoot},
		{"su - -c 'rm -rf *'", Blocked, rmRoot},
		{"run0 -D / rm -rf *", Blocked, rmRoot},
		{"systemd-run -D / rm -rf *", Blocked, rmRoot},
		{"systemd-run --working-directory=/ rm -rf *", Blocked, rmRoot},
		{"systemd-run -p WorkingDirectory=-/ rm -rf *", Blocked, rmRoot},
		{"systemd-run rm -rf *", Blocked, rmRoot},
		{"systemd-run --user rm -rf *", Blocked, rmRoot},
		{"firejail --private-cwd rm -rf *", Blocked, rmRoot},
		{"firejail --private-cwd=/ rm -rf *", Blocked, rmRoot},

		// An unknown directory is an unknown cd (cd "$X"; rm -rf * needs
		// explicit approval: which tree goes cannot be seen), and the last
		// directory option wins.
		{`cd "$X"; rm -rf *`, Explicit, "lost track of"},
		{`env -C "$X" rm -rf *`, Explicit, "lost track of"},
		{`env -C "$X" env -C ~ rm -rf *`, Blocked, rmRoot},
		{"nsenter -w -t 1 rm -rf *", Explicit, "lost track of"},
		{"sudo -u bob -i rm -rf *", Explicit, "raised privileges"},
		{"env -C / -C /home/u/proj rm -rf *", Ordinary, ""},
		{"chroot --skip-chdir / rm -rf *", Ordinary, ""},
		{"systemd-run --scope rm -rf *", Explicit, "service manager"},
		{"systemd-run -d rm -rf *", Explicit, "service manager"},
		{"su -c 'rm -rf *'", Explicit, "raised privileges"},

		// The directory stays with the wrapped process.
		{"env -C / true; rm -rf *", Ordinary, ""},
		{"cd ~; env cd /srv/x; rm -rf *", Blocked, rmRoot},
		{"cd ~; nice cd /srv/x; rm -rf *", Blocked, rmRoot},
		{"cd /srv/x; command cd ~; rm -rf *", Blocked, rmRoot},

		// Benign work elsewhere keeps its class.
		{"env -C sub ls", ReadOnly, ""},
		{"env -C sub cat README.md", ReadOnly, ""},
		{"env -C /tmp make", Ordinary, ""},
		{"env -C /srv/x rm -rf *", Ordinary, ""},
		{"env -C .. rm -rf proj", Explicit, "deletes the workspace itself"},
		{"firejail --private-cwd=/srv/x make", Ordinary, ""},
	})
}

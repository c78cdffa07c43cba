package shellpolicy

import "testing"

// A git that runs a program is judged as that program, and a read-only git
// is one that runs nothing: the options that make git run a command line
// (--upload-pack, --receive-pack, --exec, difftool -x, grep -O, rebase
// --exec, submodule foreach, filter-branch's filters), in every spelling
// parse-options accepts (attached, abbreviated, inside a bundle), carry a
// hard block over; configuration that names a command — given with -c,
// clone -c, written by git config (with -f FILE, or git 2.46's git config
// set) or read from GIT_CONFIG_GLOBAL — needs explicit approval; a value
// the classifier cannot see needs it too; the options that run a file's
// configured drivers (--textconv, cat-file --filters, --ext-diff) are not
// read-only; and git's credential printers are a secret read.
// README.md "Modes and permissions": a shell git whose configuration the model could plant without touching .git/** is not read-only.
func TestGitRedTeamRunsPrograms(t *testing.T) {
	t.Parallel()
	const home = "home directory"
	checkClasses(t, []classCase{
		// 1. Drivers from configuration.
		{"git cat-file --filters HEAD:f", Ordinary, ""},
		{"git cat-file --filt HEAD:f", Ordinary, ""},
		{"git cat-file --textconv HEAD:f", Ordinary, ""},
		{"git cat-file --textc HEAD:f", Ordinary, ""},
		{"git show --textconv HEAD:f", Ordinary, ""},
		{"git log --textconv -p", Ordinary, ""},
		{"git diff --textconv", Ordinary, ""},
		{"git grep --textconv foo", Ordinary, ""},
		{"git log --ext-diff -p", Ordinary, ""},
		{"git diff --ext-diff HEAD~1", Ordinary, ""},
		{"git show --ext-diff", Ordinary, ""},
		{"git log -p", ReadOnly, ""},
		{"git log --no-textconv -p", ReadOnly, ""},
		{"git diff --text HEAD~1", ReadOnly, ""},
		{"git cat-file -p HEAD:f", ReadOnly, ""},
		{"git show HEAD:f", ReadOnly, ""},
		{"git rev-list --filter=blob:none HEAD", ReadOnly, ""},

		// 2. Options that run a program.
		{"git clone --upload-pack='rm -rf ~' repo x", Blocked, home},
		{"git clone --upload-pack 'rm -rf ~' repo x", Blocked, home},
		{"git clone --upl='rm -rf ~' repo x", Blocked, home},
		{"git clone -u 'rm -rf ~' repo x", Blocked, home},
		{"git clone -u'rm -rf ~' repo x", Blocked, home},
		{"git clone -qu 'rm -rf ~' repo x", Blocked, home},
		{"git fetch --upload-pack='rm -rf ~' origin", Blocked, home},
		{"git pull --upload-pack 'rm -rf ~' origin", Blocked, home},
		{"git ls-remote --upload-pack='rm -rf ~' .", Blocked, home},
		{"git ls-remote --exec='rm -rf ~' .", Blocked, home},
		{"git ls-remote -u 'rm -rf ~' .", Blocked, home},
		{"git fetch-pack --upload-pack='rm -rf ~' . main", Blocked, home},
		{"git fetch-pack --exec='rm -rf ~' . main", Blocked, home},
		{"git send-pack --receive-pack='rm -rf ~' . main", Blocked, home},
		{"git send-pack --exec='rm -rf ~' . main", Blocked, home},
		{"git push --receive-pack='rm -rf ~' origin main", Blocked, home},
		{"git push --exec 'rm -rf ~' origin main", Blocked, home},
		{"git archive --remote=. --exec='rm -rf ~' HEAD", Blocked, home},
		{"git difftool -x 'rm -rf ~'", Blocked, home},
		{"git difftool -y -x 'rm -rf ~' HEAD~1", Blocked, home},
		{"git difftool --extcmd='rm -rf ~'", Blocked, home},
		{"git grep -O'rm -rf ~' foo", Blocked, home},
		{"git grep --open-files-in-pager='rm -rf ~' foo", Blocked, home},
		{"git rebase --exec='rm -rf ~' main", Blocked, home},
		{"git rebase --exec 'rm -rf ~' main", Blocked, home},
		{"git rebase -x'rm -rf ~' main", Blocked, home},
		{"git rebase -x 'rm -rf ~' main", Blocked, home},
		{"git rebase --ex 'rm -rf ~' main", Blocked, home},
		{"git rebase -ix 'rm -rf ~' main", Blocked, home},
		{"git submodule foreach 'rm -rf ~'", Blocked, home},
		{"git submodule -q foreach 'rm -rf ~'", Blocked, home},
		{"git submodule --quiet foreach 'rm -rf ~'", Blocked, home},
		{"git submodule foreach --recursive 'rm -rf ~'", Blocked, home},
		{"git submodule foreach -q rm -rf ~", Blocked, home},
		{"git filter-branch --tree-filter 'rm -rf ~' HEAD", Blocked, home},
		{"git filter-branch --index-filter 'rm -rf ~' HEAD", Blocked, home},
		{"git filter-branch --msg-filter 'rm -rf ~' HEAD", Blocked, home},
		{"git filter-branch --env-filter 'rm -rf ~' HEAD", Blocked, home},
		{"git filter-branch --commit-filter 'rm -rf ~' HEAD", Blocked, home},
		{"git filter-branch --parent-filter 'rm -rf ~' HEAD", Blocked, home},
		{"git filter-branch --tag-name-filter 'rm -rf ~' HEAD", Blocked, home},
		{"git filter-branch --setup 'rm -rf ~' HEAD", Blocked, home},
		{"git filter-branch -f -d ~ HEAD", Blocked, home}, // -f removes the -d directory with rm -rf
		{"git send-email --sendmail-cmd='rm -rf ~' x.patch", Blocked, home},
		// A value the classifier cannot see.
		{`git fetch --upload-pack="$X" origin`, Explicit, "cannot see"},
		{`git clone -u"$X" repo x`, Explicit, "cannot see"},
		{`git rebase -x "$X" main`, Explicit, "cannot see"},
		{`git difftool --extcmd="$(cat f)"`, Explicit, "cannot see"},
		{`git submodule foreach "$X"`, Explicit, "cannot see"},
		{`git filter-branch --tree-filter "$X" HEAD`, Explicit, "cannot see"},
		// Benign forms stay as they were.
		{"git fetch origin", Ordinary, ""},
		{"git fetch -u origin", Ordinary, ""}, // --update-head-ok
		{"git pull --rebase origin main", Ordinary, ""},
		{"git push -u origin main", Ordinary, ""}, // --set-upstream
		{"git clone https://example.com/x.git", Ordinary, ""},
		{"git rebase -i main", Ordinary, ""},
		{"git rebase --exec 'go test ./...' main", Ordinary, ""},
		{"git difftool HEAD~1", Ordinary, ""},
		{"git grep -n foo", ReadOnly, ""},
		{"git grep -O foo", Ordinary, ""},
		{"git submodule foreach git status", Ordinary, ""},
		{"git submodule update --init", Ordinary, ""},
		{"git filter-branch --tree-filter 'rm -f secrets.txt' HEAD", Explicit, "rewrites the repository's whole history"},

		// 3. Configuration a later git runs.
		{"git config -f ~/.gitconfig alias.x '!rm -rf ~'", Blocked, home},
		{"git config --file F core.pager 'rm -rf ~'", Blocked, home},
		{"git config --file=F core.pager 'sh x'", Explicit, "core.pager"},
		{"git config -f F alias.x log", Explicit, "alias.x"},
		{"git config set alias.x '!rm -rf ~'", Blocked, home},
		{"git config set --global core.pager 'sh x'", Explicit, "core.pager"},
		{"git config --rename-section foo alias", Explicit, "rename-section"},
		{"git clone -c core.hooksPath=hooks repo x", Explicit, "core.hooksPath"},
		{"git clone --config=core.hooksPath=hooks repo x", Explicit, "core.hooksPath"},
		{"git clone -c core.pager='rm -rf ~' repo x", Blocked, home},
		{"git clone --template=t repo x", Explicit, "--template"},
		{"git clone --template t repo x", Explicit, "--template"},
		{"git init --template=t x", Explicit, "--template"},
		{"git config sendemail.sendmailcmd 'rm -rf ~'", Blocked, home},
		{"git config sendemail.work.tocmd 'rm -rf ~'", Blocked, home},
		{"git config submodule.lib.update '!rm -rf ~'", Blocked, home},
		{"git config browser.foo.path /tmp/x", Explicit, "browser.foo.path"},
		{"git config browser.foo.cmd 'rm -rf ~'", Blocked, home},
		{"git config difftool.x.path ./x.sh", Explicit, "difftool.x.path"},
		{"git config mergetool.x.path ./x.sh", Explicit, "mergetool.x.path"},
		{"git config man.viewer x", Explicit, "man.viewer"},
		{"git config help.browser x", Explicit, "help.browser"},
		{"git config gpg.ssh.defaultKeyCommand 'rm -rf ~'", Blocked, home},
		{"git config imap.tunnel 'rm -rf ~'", Blocked, home},
		{"git config remote.origin.vcs x", Explicit, "remote.origin.vcs"},
		{"git config init.templateDir t", Explicit, "init.templateDir"},
		{`git config "$K" x`, Explicit, "cannot see"},
		{`git config alias.x "!$X"`, Explicit, "alias.x"},
		{"git config user.name x", Ordinary, ""},
		{"git config set user.name x", Ordinary, ""},
		{"git config -f F user.name x", Ordinary, ""},
		{"git config submodule.lib.update rebase", Ordinary, ""},
		{"git config submodule.lib.path lib", Ordinary, ""},
		{"git config --unset user.name", Ordinary, ""},
		{"git config --get alias.x", ReadOnly, ""},
		{"git clone -c user.name=x repo x", Ordinary, ""},
		{"git clone --template= repo x", Ordinary, ""},

		// 4. An unseen -c value.
		{`git -c "$X" log`, Explicit, "cannot see"},
		{`git -c "$(cat f)" log`, Explicit, "cannot see"},
		{`git clone -c "$X" repo x`, Explicit, "cannot see"},
		{"git -c user.name=x log", Ordinary, ""},

		// 5. Credential printers.
		{"git credential fill", Explicit, "credentials"},
		{"echo url=https://x | git credential fill", Explicit, "credentials"},
		{"git credential-store get", Explicit, "credentials"},
		{"git credential-store --file f get", Explicit, "credentials"},
		{"git credential-cache get", Explicit, "credentials"},
		{"git credential-cache exit", Ordinary, ""},
		{"git credential approve", Ordinary, ""},

		// 6. A configuration file named in the environment.
		{"export GIT_CONFIG_GLOBAL=gc; git log", Explicit, "GIT_CONFIG_GLOBAL"},
		{"printf '[core]\\npager = rm -rf ~\\n' > gc; export GIT_CONFIG_GLOBAL=gc; git log", Explicit, "GIT_CONFIG_GLOBAL"},
		{"export GIT_CONFIG_SYSTEM=gc; git status", Explicit, "GIT_CONFIG_SYSTEM"},
		{"export GIT_CONFIG_GLOBAL=/dev/null; git log", Ordinary, ""},
	})
}

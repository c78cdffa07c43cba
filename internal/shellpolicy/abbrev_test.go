package shellpolicy

import "testing"

// GNU getopt_long (rm, chmod, sort, date, xargs, fdisk) and git's
// parse-options (push, clean, reset, branch, gc, grep) accept any unique
// prefix of a long option: `rm --recur --forc /` is `rm -rf /`. Every rule
// that looks for a long flag must see its abbreviations too.
func TestLongOptionAbbreviations(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"rm --recur --forc /", Blocked, "filesystem root"},
		{"rm --rec ~", Blocked, "home directory"},
		{"rm --no-pres -r /tmp/x", Blocked, "--no-preserve-root"},
		{"chmod --recur 777 /", Blocked, "chmod -R"},
		{"git push --forc origin main", Explicit, "force-pushes"},
		{"git push --force-w origin main", Explicit, "force-pushes"},
		{"git push --mirr origin", Explicit, "mirrors"},
		{"git push --dele origin topic", Explicit, "deletes branches"},
		{"git clean --forc -dx", Explicit, "deletes untracked files"},
		{"git reset --har HEAD~3", Explicit, "discards uncommitted changes"},
		{"git branch --delet --forc topic", Explicit, "deletes a branch"},
		{"git gc --prun=now", Explicit, "deletes unreachable commits"},
		{"git grep --open-files-in=./x.sh -e a", Ordinary, ""},
		{"sort --out=notes.txt in.txt", Ordinary, ""},
		{"git config --unse user.name", Ordinary, ""},
		// Abbreviations of harmless flags stay read-only.
		{"git gc --prun=2.weeks.ago", Ordinary, ""},
		{"git restore --sta .", Ordinary, ""},
		{"sort --rev in.txt", ReadOnly, ""},
	})
}

// Programs an argument makes a read-only command run.
func TestReadOnlyCommandsThatRunPrograms(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		{"sort --compress-program=./x.sh -S 1 big.txt", Ordinary, ""},
		{"sort --compress-prog=./x.sh big.txt", Ordinary, ""},
		{"file -C -m magic", Ordinary, ""},
		{"file --compile -m magic", Ordinary, ""},
		{"file README.md", ReadOnly, ""},
		{"xargs --arg-f list.txt rm -rf /", Blocked, "filesystem root"},
		{"timeout --sig KILL 5 rm -rf /", Blocked, "filesystem root"},
		{"nice --adj 5 rm -rf /", Blocked, "filesystem root"},
		{"env --uns HOME rm -rf /", Blocked, "filesystem root"},
		{"sudo --us root rm -rf /", Blocked, "filesystem root"},
		{"toybox rm -rf /", Blocked, "filesystem root"},
		{"toybox sh -c 'rm -rf /'", Blocked, "filesystem root"},
	})
}

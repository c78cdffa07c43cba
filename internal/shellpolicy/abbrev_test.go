package shellpolicy

import (
	"os"
	"path/filepath"
	"testing"
)

// GNU getopt_long (rm, chmod, sort, date, xargs, fdisk) and git's
// parse-options (push, clean, reset, branch, gc, grep) accept any unique
// prefix of a long option: `rm --recur --forc /` is `rm -rf /`. Every rule
// that looks for a long flag must see its abbreviations too.
// README.md "Modes and permissions": long options by any unique prefix: rm --recur --forc / is rm -rf /.
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

// A git configuration the workspace can plant without touching .git/**
// makes a shell git run what it names, so such a git is not read-only.
// README.md "Modes and permissions": a shell git whose configuration the model could plant without touching .git/** is not read-only.
func TestGitWithAPlantableConfigIsNotReadOnly(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, d := range []string{".git/objects", ".git/refs", "evil/objects", "evil/refs", "plain/sub", "evil/inner"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".git/HEAD", "evil/HEAD"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := testEnv()
	env.Workspace = ws
	for _, tt := range []classCase{
		{"git status", ReadOnly, ""},
		{"cd plain/sub && git log -1", ReadOnly, ""},
		{"cd evil && git status", Ordinary, ""},
		{"cd evil/inner; git diff", Ordinary, ""},
		{"cd \"$X\" && git status", Ordinary, ""},
		{"XDG_CONFIG_HOME=. git status", Ordinary, ""},
		{"export XDG_CONFIG_HOME=$PWD; git status", Ordinary, ""},
		{"printf -v HOME %s .; git status", Ordinary, ""},
		{"printf -v msg %s hi; echo $msg", ReadOnly, ""},
	} {
		if v := env.Classify(tt.cmd, ""); v.Class != tt.want {
			t.Errorf("Classify(%q) = %v %q; want %v", tt.cmd, v.Class, v.Reason(), tt.want)
		}
	}
}

// A program PATH finds in the workspace is the workspace's (a File patch
// can create an executable there), so it is never read-only.
// README.md "Modes and permissions": a program PATH finds in a workspace directory is never read-only.
func TestProgramsOnAWorkspacePathAreNotReadOnly(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, f := range []string{".venv/bin/git", "bin/cat", "here/head"} {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "bin", "wc"), []byte("not executable\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path, cmd string
		want      Class
	}{
		{ws + "/.venv/bin:/usr/bin:/bin", "git status", Ordinary},
		{ws + "/.venv/bin:/usr/bin:/bin", "ls -la", ReadOnly},
		{"/usr/bin:/bin:" + ws + "/.venv/bin", "git status", ReadOnly},
		{"bin:/usr/bin:/bin", "cat notes.txt", Ordinary},
		{"bin:/usr/bin:/bin", "wc -l notes.txt", ReadOnly},
		{"bin:/usr/bin:/bin", "cd here && cat notes.txt", ReadOnly},
		{":/usr/bin:/bin", "cd here && head notes.txt", Ordinary},
		{"/usr/bin:/bin", "git status", ReadOnly},
	} {
		env := testEnv()
		env.Workspace = ws
		env.Getenv = func(k string) string {
			if k == "PATH" {
				return tt.path
			}
			return ""
		}
		if v := env.Classify(tt.cmd, ""); v.Class != tt.want {
			t.Errorf("PATH=%s: Classify(%q) = %v %q; want %v", tt.path, tt.cmd, v.Class, v.Reason(), tt.want)
		}
	}
}

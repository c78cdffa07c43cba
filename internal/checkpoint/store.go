// Package checkpoint records the workspace's state before and after each
// turn in a side git object store — its own GIT_DIR and index under
// $CODEWHALE_HOME/checkpoints/, the workspace only as its work tree — so a
// turn's file changes can be listed, diffed and taken back in any folder,
// git or not, without touching the user's repository (its objects, refs,
// index and config are never read or written). Snapshots are incremental:
// the side index caches each file's stat information, so a full snapshot
// reads only files whose size, times or inode changed (it still stats the
// whole tree), and a snapshot limited to the paths a call says it wrote
// (SnapshotPaths) looks at nothing else, carrying every other path from the
// last snapshot. Only a call that names what it wrote may be recorded that
// way; a shell command may have changed anything.
package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/codewhale/codewhale/internal/binpath"
	"github.com/codewhale/codewhale/internal/gitsafe"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// DefaultMaxFile is the largest file a snapshot keeps (bigger ones are
// skipped and listed).
const DefaultMaxFile = 10 << 20

// Options configure Open.
type Options struct {
	Git     string // the git binary; "" finds it on PATH
	MaxFile int64  // 0: DefaultMaxFile
}

// Store is one workspace's side store.
type Store struct {
	git     string
	ws      string
	gitDir  string
	index   string
	maxFile int64

	mu     sync.Mutex // one snapshot or restore at a time
	env    []string
	inited bool
}

// ErrNoGit means no git binary is installed; checkpoints need one.
var ErrNoGit = errors.New("checkpoints need the git binary (install git); nothing is recorded without it")

// Open returns the store of workspace under home. Nothing is written until
// the first snapshot.
func Open(home, workspace string, o Options) (*Store, error) {
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	bin := o.Git
	if bin == "" {
		// Past the workspace's PATH directories (internal/binpath): every
		// turn snapshots without asking, and a File patch could have put a
		// git in an activated .venv/bin.
		p, err := binpath.LookPath("git", ws)
		if err != nil {
			return nil, ErrNoGit
		}
		bin = p
	}
	sum := sha256.Sum256([]byte(ws))
	dir := filepath.Join(home, "checkpoints", hex.EncodeToString(sum[:8])+".git")
	if o.MaxFile <= 0 {
		o.MaxFile = DefaultMaxFile
	}
	return &Store{git: bin, ws: ws, gitDir: dir, index: filepath.Join(dir, "codewhale-index"), maxFile: o.MaxFile}, nil
}

// Workspace is the work tree the store snapshots.
func (s *Store) Workspace() string { return s.ws }

// Dir is the side git directory.
func (s *Store) Dir() string { return s.gitDir }

// run runs git against the side store with the workspace as work tree.
func (s *Store) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, s.git, gitsafe.Args(args...)...)
	cmd.Dir = s.ws
	cmd.Env = s.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("checkpoint: git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// init creates the side store on first use and fixes its environment: its
// own GIT_DIR and index (never the workspace's .git), the safe
// configuration, and the user's identity kept out of it.
func (s *Store) init(ctx context.Context) error {
	if s.inited {
		return nil
	}
	env := gitsafe.Env(nil)
	env = append(env, gitsafe.ConfigEnv(ctx, s.git, os.TempDir())...)
	env = append(env, "GIT_DIR="+s.gitDir, "GIT_WORK_TREE="+s.ws, "GIT_INDEX_FILE="+s.index,
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(s.ws), "GIT_AUTHOR_NAME=codewhale", "GIT_AUTHOR_EMAIL=codewhale@localhost",
		"GIT_COMMITTER_NAME=codewhale", "GIT_COMMITTER_EMAIL=codewhale@localhost", "GIT_OPTIONAL_LOCKS=1",
		"GIT_LITERAL_PATHSPECS=1")
	s.env = env
	if _, err := os.Stat(filepath.Join(s.gitDir, "HEAD")); err != nil {
		if err := os.MkdirAll(filepath.Dir(s.gitDir), 0o700); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		if _, err := s.run(ctx, nil, "init", "--quiet"); err != nil {
			return err
		}
		for _, kv := range [][2]string{{"core.autocrlf", "false"}, {"core.safecrlf", "false"}, {"core.filemode", "true"},
			{"core.symlinks", "true"}, {"core.untrackedCache", "true"}, {"index.version", "4"}, {"core.splitIndex", "true"}, {"gc.auto", "0"}, {"core.quotePath", "false"},
			{"core.bare", "false"}, {"core.worktree", s.ws}} {
			if _, err := s.run(ctx, nil, "config", kv[0], kv[1]); err != nil {
				return err
			}
		}
	}
	// The workspace's own exclude file joins ours: the same ignore rules the
	// user's git applies (their .gitignore files and global excludes apply
	// by themselves).
	s.inited = true
	return s.syncExcludes()
}

// syncExcludes copies the workspace repository's info/exclude (read, never
// written) into the side store's, with the skip list appended.
func (s *Store) syncExcludes() error {
	var b bytes.Buffer
	b.WriteString("# codewhale checkpoints: the workspace's own excludes, then files skipped for size\n")
	// Through the confined reader (internal/tools/confine): the workspace
	// is the model's to change, and a link anywhere on the way (or a
	// secret) leaves the workspace's excludes out rather than copying
	// another file's lines into the side store.
	if data, _, err := confine.ReadFile([]string{s.ws}, filepath.Join(s.ws, ".git", "info", "exclude"), 0); err == nil {
		b.Write(data)
		b.WriteByte('\n')
	}
	b.Write(s.readSkips())
	if err := os.MkdirAll(filepath.Join(s.gitDir, "info"), 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.gitDir, "info", "exclude"), b.Bytes(), 0o600)
}

// readSkips is the side store's own list of skipped files (nil when
// there is none).
func (s *Store) readSkips() []byte {
	data, _ := os.ReadFile(s.skipPath())
	return data
}

func (s *Store) skipPath() string { return filepath.Join(s.gitDir, "codewhale-skipped") }

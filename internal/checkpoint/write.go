package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path"
	"strconv"
	"strings"

	"github.com/codewhale/codewhale/internal/gitsafe"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// writeAll writes each path back from its blob in the side store. A file's
// content comes as checkout would write it (the workspace's eol and
// attribute conversions; gitsafe keeps filter programs from running); a
// link's content is its target, as stored.
func (s *Store) writeAll(ctx context.Context, root *confine.Root, writes []Change, inTo map[string]entry) ([]Change, error) {
	var files, links []Change
	for _, c := range writes {
		if inTo[c.Path].mode == "120000" {
			links = append(links, c)
		} else {
			files = append(files, c)
		}
	}
	var done []Change
	for _, group := range []struct {
		changes []Change
		filters bool
	}{{files, true}, {links, false}} {
		err := s.blobs(ctx, group.changes, inTo, group.filters, func(c Change, data []byte) error {
			if err := writeEntry(root, c.Path, inTo[c.Path].mode, data); err != nil {
				return fmt.Errorf("checkpoint: restoring %s: %w", c.Path, err)
			}
			done = append(done, c)
			return nil
		})
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// writeEntry puts data at rel beneath root: its parent directories made,
// an empty directory in its place removed, then the file written whole (a
// temp file renamed over rel) or the link made.
func writeEntry(root *confine.Root, rel, mode string, data []byte) error {
	if parent := path.Dir(rel); parent != "." {
		if _, err := root.MkdirAll(parent, 0o755); err != nil {
			return err
		}
	}
	fi, err := root.Stat(rel)
	if err == nil && fi.IsDir() {
		if err := root.RemoveDir(rel); err != nil {
			return err
		}
	}
	if mode == "120000" {
		return root.Symlink(string(data), rel)
	}
	perm := fs.FileMode(0o644)
	if err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm() &^ 0o111 // a file that stays keeps its permissions
	}
	if mode == "100755" {
		perm |= (perm & 0o444) >> 2 // executable by whoever may read it
	}
	_, err = root.WriteAtomic(rel, data, perm)
	return err
}

// blobs reads the blob of each change from the side store in one git
// cat-file process and hands it to each, in order. With filters the
// content is converted as checkout converts it for that path.
func (s *Store) blobs(ctx context.Context, changes []Change, inTo map[string]entry, filters bool, each func(Change, []byte) error) error {
	if len(changes) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, c := range changes {
		if strings.ContainsAny(c.Path, "\n\r") {
			return fmt.Errorf("checkpoint: %q cannot be restored: its name holds a line break", c.Path)
		}
		in.WriteString(inTo[c.Path].oid)
		if filters {
			in.WriteString(" " + c.Path)
		}
		in.WriteByte('\n')
	}
	args := []string{"cat-file", "--batch"}
	if filters {
		args = append(args, "--filters")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops git when each fails part way
	cmd := exec.CommandContext(ctx, s.git, gitsafe.Args(args...)...)
	cmd.Dir, cmd.Env, cmd.Stdin = s.ws, s.env, &in
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("checkpoint: git cat-file: %w", err)
	}
	r := bufio.NewReader(out)
	for _, c := range changes {
		data, rerr := readObject(r)
		if rerr == nil {
			rerr = each(c, data)
		}
		if rerr != nil {
			cancel()
			_ = cmd.Wait()
			return rerr
		}
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("checkpoint: git cat-file: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	return nil
}

// readObject reads one `git cat-file --batch` answer: "<oid> <type>
// <size>\n", the content and a newline.
func readObject(r *bufio.Reader) ([]byte, error) {
	head, err := r.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("checkpoint: reading the side store: %w", err)
	}
	f := strings.Fields(head)
	if len(f) != 3 {
		return nil, fmt.Errorf("checkpoint: the side store has no object %s", strings.TrimSpace(head))
	}
	n, err := strconv.Atoi(f[2])
	if err != nil || n < 0 {
		return nil, fmt.Errorf("checkpoint: reading the side store: bad header %q", strings.TrimSpace(head))
	}
	data := make([]byte, n+1)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, fmt.Errorf("checkpoint: reading the side store: %w", err)
	}
	if data[n] != '\n' {
		return nil, errors.New("checkpoint: reading the side store: an object without its newline")
	}
	return data[:n], nil
}

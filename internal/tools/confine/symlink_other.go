//go:build !unix

package confine

import "path/filepath"

// Symlink makes rel a symbolic link to target, replacing a file or link
// that is there: made under a temp name in rel's directory and renamed over
// rel, both through the os.Root.
func (r *Root) Symlink(target, rel string) error {
	n, err := native(rel)
	if err != nil {
		return pathError("symlink", r.abs(rel), err)
	}
	dir, base := filepath.Split(n)
	tmp := filepath.Join(dir, tempName(base))
	if err := r.h.root.Symlink(target, tmp); err != nil {
		return pathError("symlink", r.abs(rel), err)
	}
	if err := r.h.root.Rename(tmp, n); err != nil {
		_ = r.h.root.Remove(tmp)
		return pathError("symlink", r.abs(rel), err)
	}
	return nil
}

// Readlink is the target text of the symbolic link rel (never followed),
// read through the os.Root.
func (r *Root) Readlink(rel string) (string, error) {
	n, err := native(rel)
	if err != nil {
		return "", pathError("readlink", r.abs(rel), err)
	}
	t, err := r.h.root.Readlink(n)
	if err != nil {
		return "", pathError("readlink", r.abs(rel), err)
	}
	return t, nil
}

package sandbox

import (
	"os"
	"path/filepath"
)

// maxCarveEntries bounds the rules one start adds while carving; entries
// beyond it are left read-only (stricter, never looser).
const maxCarveEntries = 4096

// carve returns the directories and files to grant so that root is
// writable except the protected paths beneath it. Directories on the way to
// a protected path are not granted themselves, so nothing can be created,
// removed or renamed directly in them. Symbolic links are never granted: a
// rule on a link would grant its target.
func carve(root string, protected []string, budget *int) (dirs, files []string) {
	if contains(protected, root) {
		return nil, nil
	}
	if !hasBeneath(root, protected) {
		return []string{root}, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, nil
	}
	for _, e := range entries {
		if *budget <= 0 {
			break
		}
		*budget--
		p := filepath.Join(root, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0, contains(protected, p):
		case e.IsDir():
			d, f := carve(p, protected, budget)
			dirs, files = append(dirs, d...), append(files, f...)
		default:
			files = append(files, p)
		}
	}
	return dirs, files
}

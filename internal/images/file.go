package images

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// File reads and prepares the image at path: a path the person typed
// (/attach, a dropped file, `exec --image`) or the model named
// (read_media). A relative path joins workspace and "~/" is the home
// directory; the path must resolve inside workspace or one of trusted —
// the File boundary, the same for the person as for the model (CONTRACT.md
// §5, §14.11) — and is read through the one confined reader, so the
// secret guard refuses credential files and a name swapped for a link is
// not followed. Every refusal is an *Error that names the path.
func File(ctx context.Context, workspace string, trusted []string, path string, o Options) (*Prepared, error) {
	tc := &tools.Context{Workspace: workspace, TrustedRoots: trusted}
	abs, err := tc.ResolvePath(path)
	if err != nil {
		return nil, refuse("%s is outside the workspace (%s): attach images from inside it, copy the file in, "+
			"or trust its folder with /trust add <dir>", tools.CanonicalPath(path, workspace), workspace)
	}
	data, err := read(tc.Roots(), abs)
	if err != nil {
		return nil, err
	}
	p, err := Prepare(ctx, data, o)
	var ie *Error
	if errors.As(err, &ie) {
		return nil, refuse("%s: %s", abs, ie.msg)
	}
	return p, err
}

// read reads abs through the confined reader, at most one byte over
// MaxSourceBytes.
func read(roots []string, abs string) ([]byte, error) {
	data, fi, err := confine.ReadFile(roots, abs, MaxSourceBytes+1)
	var se *confine.SecretError
	switch {
	case errors.As(err, &se):
		return nil, refuse("%s", se.Error())
	case errors.Is(err, fs.ErrNotExist):
		return nil, refuse("%s: no such file", abs)
	case errors.Is(err, confine.ErrNotRegular):
		return nil, refuse("%s is not a regular file", abs)
	case errors.Is(err, confine.ErrEscape):
		return nil, refuse("%s leads outside the workspace through a symbolic link; it is not read", abs)
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", abs, err)
	}
	if fi.Size() > MaxSourceBytes {
		return nil, refuse("%s: %s", abs, tooLarge(fi.Size()).Error())
	}
	return data, nil
}

package sandbox

import "errors"

// mkdirBeneath creates nothing on Windows, whose commands run unconfined
// (the sandbox reports unenforced): a missing cache is created by the tool
// itself.
func mkdirBeneath(_, _ string) error {
	return errors.New("sandbox: creating build caches is not supported on Windows")
}

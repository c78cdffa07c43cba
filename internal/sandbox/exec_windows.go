package sandbox

import "errors"

func execProgram(string, []string, []string) error {
	return errors.New("the sandbox helper cannot replace itself on Windows")
}

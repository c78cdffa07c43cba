// Package archtest holds tests of the project's structure: the allowed
// arrows between packages and the import grouping
// (docs/ARCHITECTURE.md). It has no code of its own.
package archtest

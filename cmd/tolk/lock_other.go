//go:build !unix

package main

import "os"

// lockDataDir does nothing where flock is missing: one process per data
// directory is then the operator's to ensure.
func lockDataDir(dir string) (*os.File, error) { return nil, nil }

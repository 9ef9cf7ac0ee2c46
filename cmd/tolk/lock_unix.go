//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// lockDataDir takes the lock that makes dir this process's alone: two
// servers on one index and one set of checkouts would commit over each
// other. The lock is the kernel's (flock), so it goes with the process
// however it ends; closing the file returned releases it. The file holds
// the owner's process id, for the operator.
func lockDataDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, "tolk.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			owner, _ := os.ReadFile(path)
			return nil, fmt.Errorf("data directory %s is in use by another tolk process (pid %s, lock %s)",
				dir, string(owner), path)
		}
		return nil, fmt.Errorf("lock data directory %s: %w", dir, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())), 0)
	}
	return f, nil
}

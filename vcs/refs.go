package vcs

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
)

// refLine is the length of a loose reference file naming a commit: 40
// hex digits and a newline.
const refLine = 41

// setRef points the reference name at h; r.mu is held.
//
// A loose reference file that already names a commit is overwritten in
// place, with one write of the same length. go-git writes a reference by
// truncating its file and writing it again: a crash in between leaves an
// empty file (repair mends it), and ext4 flushes a file rewritten after
// a truncation when it is closed, which costs about a millisecond on a
// busy disk, twice per commit (the branch and headRef). One write of 41
// bytes at offset 0 stays within a page, which a killed process cannot
// leave half done. Anything else (a new, packed or symbolic reference)
// goes through go-git.
func (r *Repo) setRef(name plumbing.ReferenceName, h plumbing.Hash) error {
	if dir, err := r.gitDir(); err == nil {
		done, err := overwriteRef(filepath.Join(dir, filepath.FromSlash(name.String())), h)
		if done || err != nil {
			return err
		}
	}
	return r.repo.Storer.SetReference(plumbing.NewHashReference(name, h))
}

// overwriteRef writes h over the hash the loose reference file at path
// holds, and reports whether it did: false, with nothing written, when
// the file is absent or holds anything but a hash line.
func overwriteRef(path string, h plumbing.Hash) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	var old [refLine + 1]byte
	n, err := f.ReadAt(old[:], 0)
	if n != refLine || old[refLine-1] != '\n' || !plumbing.IsHash(string(old[:refLine-1])) {
		return false, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	if _, err := f.WriteAt([]byte(h.String()+"\n"), 0); err != nil {
		return true, err
	}
	return true, f.Close()
}

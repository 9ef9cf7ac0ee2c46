package vcs

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// File is a file of the HEAD tree.
type File struct {
	Path string // slash-separated, relative to the root
	Hash string // hex SHA-1 of the blob, as `git hash-object` prints it
	Size int64  // in bytes
}

// Files returns the regular files of the HEAD tree (not the working tree)
// whose slash-separated path satisfies match, sorted by path; a nil match
// accepts every file. Symbolic links and submodules are left out. It reads
// the trees and the size of each matching blob not listed by the previous
// call, never blob contents.
func (r *Repo) Files(match func(path string) bool) ([]File, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tree, err := r.headTree()
	if err != nil {
		return nil, err
	}
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	var files []File
	// Looking a size up costs go-git an open of the packfile; blobs never
	// change, so keep the sizes of the last listing for the next one.
	sizes := make(map[plumbing.Hash]int64, len(r.sizes))
	for {
		name, e, err := w.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("walk HEAD tree: %w", err)
		}
		if !e.Mode.IsFile() || e.Mode == filemode.Symlink {
			continue
		}
		if match != nil && !match(name) {
			continue
		}
		size, ok := r.sizes[e.Hash]
		if !ok {
			if size, err = r.repo.Storer.EncodedObjectSize(e.Hash); err != nil {
				return nil, fmt.Errorf("size of %s: %w", name, err)
			}
		}
		sizes[e.Hash] = size
		files = append(files, File{Path: name, Hash: e.Hash.String(), Size: size})
	}
	r.sizes = sizes
	// The walker yields git's tree order, which already is byte order of
	// full paths; sorting makes the contract independent of that.
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// ReadFile returns the content of the file at the slash-separated path in
// the HEAD tree, read from the object store; the working tree does not
// matter. It returns an error wrapping ErrNotExist if the HEAD tree has no
// file there.
func (r *Repo) ReadFile(path string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tree, err := r.headTree()
	if err != nil {
		return nil, err
	}
	return readTreeFile(tree, path)
}

// BlobHash returns the hex SHA-1 of the blob at the slash-separated path in
// the HEAD tree, without reading it. It returns an error wrapping
// ErrNotExist if the HEAD tree has no file there.
func (r *Repo) BlobHash(path string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tree, err := r.headTree()
	if err != nil {
		return "", err
	}
	e, err := tree.FindEntry(path)
	if err != nil {
		return "", notExist("blob hash", path, err)
	}
	if !e.Mode.IsFile() {
		return "", fmt.Errorf("blob hash %s: %w", path, ErrNotExist)
	}
	return e.Hash.String(), nil
}

func (r *Repo) headTree() (*object.Tree, error) {
	h, err := r.head()
	if err != nil {
		return nil, err
	}
	c, err := r.repo.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("read HEAD commit %s: %w", h, err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read HEAD tree: %w", err)
	}
	return t, nil
}

// notExist maps go-git's "not found" errors for path to ErrNotExist.
func notExist(op, path string, err error) error {
	if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrEntryNotFound) ||
		errors.Is(err, object.ErrDirectoryNotFound) {
		return fmt.Errorf("%s %s: %w", op, path, ErrNotExist)
	}
	return fmt.Errorf("%s %s: %w", op, path, err)
}

// readAll is io.ReadAll into b's spare capacity, so that a buffer sized from
// the blob header is read without growing.
func readAll(rd io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

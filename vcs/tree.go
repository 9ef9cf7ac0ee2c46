package vcs

import (
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

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
	return r.readTreeFile(tree, path)
}

// Resolve returns the path of the regular file that the slash-separated
// path names in the HEAD tree: path itself, or for a symbolic link the
// file it leads to inside the repository, so that a write meant for a
// linked file goes where a checkout on disk would put it. It returns an
// error wrapping ErrNotExist, with why, when there is no such file or
// the link leaves the repository, dangles or loops.
func (r *Repo) Resolve(path string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tree, err := r.headTree()
	if err != nil {
		return "", err
	}
	return r.resolveIn(tree, path)
}

// resolveIn is Resolve in tree; r.mu is held.
func (r *Repo) resolveIn(tree *object.Tree, path string) (string, error) {
	e, err := r.lookup(tree, path)
	if err != nil {
		return "", fmt.Errorf("resolve: %w", err)
	}
	if e.Mode != filemode.Symlink {
		return path, nil
	}
	target, _, reason, err := r.resolveLink(tree, path, e.Hash)
	if err != nil {
		return "", err
	}
	if reason != "" {
		return "", fmt.Errorf("resolve %q: %s: %w", path, reason, ErrNotExist)
	}
	return target, nil
}

// BlobHash returns the hex SHA-1 of the blob at the slash-separated path in
// the HEAD tree (through a symbolic link, of the file it names), without
// reading it. It returns an error wrapping
// ErrNotExist if the HEAD tree has no file there.
func (r *Repo) BlobHash(path string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tree, err := r.headTree()
	if err != nil {
		return "", err
	}
	return r.blobHashIn(tree, path)
}

// blobHashIn is BlobHash in tree: the hash of the file a symbolic link
// names, as Files lists it, not of the link; r.mu is held.
func (r *Repo) blobHashIn(tree *object.Tree, path string) (string, error) {
	e, err := r.fileEntry(tree, path, "blob hash")
	if err != nil {
		return "", err
	}
	return e.Hash.String(), nil
}

func (r *Repo) headTree() (*object.Tree, error) {
	h, err := r.head()
	if err != nil {
		return nil, err
	}
	return r.commitTree(h)
}

// commitTree is the tree of commit h; r.mu is held.
func (r *Repo) commitTree(h plumbing.Hash) (*object.Tree, error) {
	c, err := r.repo.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("read HEAD commit %s: %w", h, err)
	}
	t, err := r.tree(c.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("read HEAD tree: %w", err)
	}
	return t, nil
}

// treeCacheSize bounds Repo.trees: enough for the trees along the paths
// of a few commits, so a run of commits, each reading the trees the one
// before wrote, finds them in memory.
const treeCacheSize = 256

// tree returns the tree h, from r.trees when there; r.mu is held.
func (r *Repo) tree(h plumbing.Hash) (*object.Tree, error) {
	if t, ok := r.trees[h]; ok {
		return t, nil
	}
	t, err := object.GetTree(r.repo.Storer, h)
	if err != nil {
		return nil, err
	}
	r.keepTree(t)
	return t, nil
}

// keepTree adds t to r.trees, emptied first when full; r.mu is held.
func (r *Repo) keepTree(t *object.Tree) {
	if r.trees == nil || len(r.trees) >= treeCacheSize {
		r.trees = make(map[plumbing.Hash]*object.Tree, treeCacheSize)
	}
	r.trees[t.Hash] = t
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

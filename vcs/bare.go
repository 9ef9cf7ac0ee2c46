package vcs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// CreateBare creates a bare repository at dir whose branch (its HEAD;
// "main" if "") has one commit, by "Tolk <tolk@localhost>" now, holding
// files (slash path → content, mode 100644) with the given message. Tolk uses
// it for demo and test upstreams that are then cloned over file://.
//
// dir must be absent or empty (else ErrDirNotEmpty); the repository is built
// in a temporary sibling and renamed into place, so dir never holds a
// partial one. Errors also wrap ErrMissingDir, ErrMissingMessage,
// ErrInvalidPath, or the context's error.
func CreateBare(ctx context.Context, dir, branch string, files map[string][]byte, message string) error {
	if dir == "" {
		return ErrMissingDir
	}
	if strings.TrimSpace(message) == "" {
		return ErrMissingMessage
	}
	if branch == "" {
		branch = "main"
	}
	for p := range files {
		if err := checkPath(p); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if empty, err := isEmptyDir(abs); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	} else if !empty {
		return fmt.Errorf("create %s: %w", dir, ErrDirNotEmpty)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".create-")
	if err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := buildBare(ctx, tmp, branch, files, message); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.RemoveAll(abs); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Rename(tmp, abs); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}

func buildBare(ctx context.Context, dir, branch string, files map[string][]byte, message string) error {
	ref := plumbing.NewBranchReferenceName(branch)
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		Bare:        true,
		InitOptions: git.InitOptions{DefaultBranch: ref},
	})
	if err != nil {
		return err
	}
	root := &treeNode{}
	for p, data := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := writeObject(repo.Storer, plumbing.BlobObject, data)
		if err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		if err := root.add(strings.Split(p, "/"), h); err != nil {
			return fmt.Errorf("%w: %s", err, p)
		}
	}
	tree, err := root.write(repo.Storer)
	if err != nil {
		return err
	}
	sig := object.Signature{Name: "Tolk", Email: "tolk@localhost", When: time.Now()}
	c := &object.Commit{Author: sig, Committer: sig, Message: message, TreeHash: tree}
	obj := repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return err
	}
	h, err := repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return err
	}
	return repo.Storer.SetReference(plumbing.NewHashReference(ref, h))
}

// treeNode is a directory being built: files map a name to a blob,
// dirs a name to a subdirectory.
type treeNode struct {
	files map[string]plumbing.Hash
	dirs  map[string]*treeNode
}

func (n *treeNode) add(elems []string, h plumbing.Hash) error {
	name := elems[0]
	if len(elems) == 1 {
		if _, ok := n.dirs[name]; ok {
			return fmt.Errorf("%w: file and directory", ErrInvalidPath)
		}
		if n.files == nil {
			n.files = map[string]plumbing.Hash{}
		}
		n.files[name] = h
		return nil
	}
	if _, ok := n.files[name]; ok {
		return fmt.Errorf("%w: file and directory", ErrInvalidPath)
	}
	if n.dirs == nil {
		n.dirs = map[string]*treeNode{}
	}
	d, ok := n.dirs[name]
	if !ok {
		d = &treeNode{}
		n.dirs[name] = d
	}
	return d.add(elems[1:], h)
}

// write stores the tree and its subtrees and returns its hash.
func (n *treeNode) write(s storer.EncodedObjectStorer) (plumbing.Hash, error) {
	var t object.Tree
	for name, h := range n.files {
		t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
	}
	for name, d := range n.dirs {
		h, err := d.write(s)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	// Git orders entries by name, comparing a directory as if its name
	// ended in "/"; git fsck rejects other orders.
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(t.Entries, func(i, j int) bool { return key(t.Entries[i]) < key(t.Entries[j]) })
	obj := s.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

func writeObject(s storer.EncodedObjectStorer, t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	obj.SetType(t)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

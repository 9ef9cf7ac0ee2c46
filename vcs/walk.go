package vcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// File is a file of the HEAD tree.
type File struct {
	Path string // slash-separated, relative to the root
	Hash string // hex SHA-1 of the blob, as `git hash-object` prints it
	Size int64  // in bytes
	// Target is, for a symbolic link, the path of the regular file it
	// resolves to, whose blob Hash and Size describe; "" otherwise.
	Target string
}

// Skipped is a file that Files would have listed but could not, with a
// reason fit to show a user.
type Skipped struct {
	Path   string
	Reason string
}

// Scope is a part of the HEAD tree that Files walks: the entries of the
// directory Dir ("" for the root) and of its subdirectories down to Depth
// levels below it; 0 lists Dir's own entries only, and a negative Depth
// has no limit but MaxEntries.
type Scope struct {
	Dir   string
	Depth int
}

// DefaultMaxEntries is FilesOptions.MaxEntries when it is 0.
const DefaultMaxEntries = 200000

// maxLinkHops is how many symbolic links in a row Files and ReadFile
// follow, as the kernel's ELOOP limit does.
const maxLinkHops = 8

// listedSizes keeps, by working tree directory, the blob sizes of its
// last listing (Repo.sizes): a blob's size never changes, and reading
// it from a pack costs a look-up per file. The maps are never written
// once stored.
var listedSizes sync.Map

// maxLinkSize is the longest link target read; git's own links are paths.
const maxLinkSize = 4096

// FilesOptions say which files Files lists.
type FilesOptions struct {
	// Scopes are the parts of the tree to walk; none walks the whole
	// tree. A file in two scopes is listed once.
	Scopes []Scope
	// Match, when set, selects the files listed by slash-separated path;
	// nil accepts every file.
	Match func(path string) bool
	// MaxEntries caps the tree entries read, over all scopes, so that a
	// hostile tree (one naming the same subtree many times) cannot make
	// a listing endless; past it Files fails with ErrTooManyEntries.
	// 0 means DefaultMaxEntries.
	MaxEntries int
}

// Listing is what Files found: the files, sorted by path, and the
// matching files it left out, with why.
type Listing struct {
	Files   []File
	Skipped []Skipped
}

// Files lists the regular files of the HEAD tree (not the working tree)
// in o's scopes that o.Match accepts, sorted by path. It reads the trees
// and the size of each listed blob not listed by the previous call, never
// other blob contents, and stops with ctx.
//
// A symbolic link that Match accepts is listed with the blob of the
// regular file it resolves to inside the repository (File.Target); one
// whose target is absolute, leaves the repository, is missing or is not
// a regular file is reported in Listing.Skipped, as is a matching path
// with a name git checkouts refuse (a control character, invalid UTF-8,
// ".", ".." or ".git"). Names outside o.Match are never looked at, so an
// odd name elsewhere in the repository does not matter. Submodules are
// left out.
func (r *Repo) Files(ctx context.Context, o FilesOptions) (Listing, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	root, err := r.headTree()
	if err != nil {
		return Listing{}, err
	}
	if r.sizes == nil {
		// A Repo is opened afresh for each pull: the last listing of
		// the same directory in this process serves as well.
		if old, ok := listedSizes.Load(r.dir); ok {
			r.sizes = old.(map[plumbing.Hash]int64)
		}
	}
	w := walker{ctx: ctx, root: root, match: o.Match, left: o.MaxEntries, listed: map[string]bool{},
		sizes: make(map[plumbing.Hash]int64, len(r.sizes)), old: r.sizes, store: r,
		trees: map[plumbing.Hash]*object.Tree{}}
	if w.left <= 0 {
		w.left = DefaultMaxEntries
	}
	scopes := o.Scopes
	if len(scopes) == 0 {
		scopes = []Scope{{Depth: -1}}
	}
	for _, sc := range scopes {
		if err := w.scope(sc); err != nil {
			return Listing{}, err
		}
	}
	r.sizes = w.sizes
	listedSizes.Store(r.dir, w.sizes)
	sort.Slice(w.out.Files, func(i, j int) bool { return w.out.Files[i].Path < w.out.Files[j].Path })
	sort.Slice(w.out.Skipped, func(i, j int) bool { return w.out.Skipped[i].Path < w.out.Skipped[j].Path })
	return w.out, nil
}

// walker is one Files call's state.
type walker struct {
	ctx    context.Context
	root   *object.Tree
	match  func(string) bool
	left   int // entries that may still be read
	listed map[string]bool
	sizes  map[plumbing.Hash]int64 // of this listing
	old    map[plumbing.Hash]int64 // of the previous one
	store  *Repo
	// trees holds the trees read so far: a hostile tree names the same
	// subtree many times, and reading one from a pack costs far more
	// than counting its entries.
	trees map[plumbing.Hash]*object.Tree
	out   Listing
}

// tree reads the tree h, once per listing.
func (w *walker) tree(h plumbing.Hash, p string) (*object.Tree, error) {
	if t, ok := w.trees[h]; ok {
		return t, nil
	}
	t, err := object.GetTree(w.store.repo.Storer, h)
	if err != nil {
		return nil, fmt.Errorf("read tree %q: %w", p, err)
	}
	w.trees[h] = t
	return t, nil
}

// scope walks one Scope; a Dir the tree lacks lists nothing.
func (w *walker) scope(sc Scope) error {
	dir := strings.Trim(sc.Dir, "/")
	tree := w.root
	if dir != "" {
		e, err := w.store.lookup(w.root, dir)
		if errors.Is(err, ErrNotExist) || (err == nil && e.Mode != filemode.Dir) {
			return nil
		}
		if err != nil {
			return err
		}
		if tree, err = w.tree(e.Hash, dir); err != nil {
			return err
		}
	}
	return w.walk(tree, dir, sc.Depth)
}

// walk lists the entries of tree, found at dir, and those of its
// subtrees down to depth levels.
func (w *walker) walk(tree *object.Tree, dir string, depth int) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if w.left -= len(tree.Entries); w.left < 0 {
		return fmt.Errorf("walk HEAD tree at %q: %w", dir, ErrTooManyEntries)
	}
	for _, e := range tree.Entries {
		p := joinPath(dir, e.Name)
		switch {
		case e.Mode == filemode.Dir:
			if depth == 0 {
				continue
			}
			sub, err := w.tree(e.Hash, p)
			if err != nil {
				return err
			}
			if err := w.walk(sub, p, depth-1); err != nil {
				return err
			}
		case !e.Mode.IsFile(), w.listed[p], w.match != nil && !w.match(p):
		default:
			if err := w.file(p, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// file lists the matching entry e at p, or reports why not.
func (w *walker) file(p string, e object.TreeEntry) error {
	w.listed[p] = true
	if reason := oddPath(p); reason != "" {
		w.out.Skipped = append(w.out.Skipped, Skipped{Path: p, Reason: reason})
		return nil
	}
	f := File{Path: p}
	if e.Mode == filemode.Symlink {
		target, te, reason, err := w.store.resolveLink(w.root, p, e.Hash)
		if err != nil {
			return err
		}
		if reason != "" {
			w.out.Skipped = append(w.out.Skipped, Skipped{Path: p, Reason: reason})
			return nil
		}
		f.Target, e = target, te
	}
	size, ok := w.sizes[e.Hash]
	if !ok {
		size, ok = w.old[e.Hash]
	}
	if !ok {
		// Looking a size up costs go-git an open of the packfile; blobs
		// never change, so the sizes of the last listing serve the next.
		var err error
		if size, err = w.store.repo.Storer.EncodedObjectSize(e.Hash); err != nil {
			return fmt.Errorf("size of %q: %w", p, err)
		}
	}
	w.sizes[e.Hash] = size
	f.Hash, f.Size = e.Hash.String(), size
	w.out.Files = append(w.out.Files, f)
	return nil
}

// oddPath returns why a path is not one to import, or "": names a git
// checkout refuses (go-git's pathutil.ValidTreePath and git's own
// verify_path) and names that are not text.
func oddPath(p string) string {
	if !utf8.ValidString(p) {
		return "file name is not valid UTF-8"
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return fmt.Sprintf("file name contains the control character %U", r)
		}
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." || strings.EqualFold(part, ".git") || strings.Contains(part, `\`) {
			return fmt.Sprintf("file name part %q is not allowed", part)
		}
	}
	return ""
}

// resolveLink follows the symbolic link at p, whose blob is h, to the
// regular file it names inside root. It returns the file's path and
// entry, or a reason the link is refused (absolute, leaving the
// repository, dangling, a loop, not a file); err is for failures to read.
func (r *Repo) resolveLink(root *object.Tree, p string, h plumbing.Hash) (string, object.TreeEntry, string, error) {
	for hop := 0; hop < maxLinkHops; hop++ {
		target, err := r.linkTarget(h)
		if err != nil {
			return "", object.TreeEntry{}, "", fmt.Errorf("read link %q: %w", p, err)
		}
		if target == "" || path.IsAbs(target) || strings.HasPrefix(target, `\`) || (len(target) > 1 && target[1] == ':') {
			return "", object.TreeEntry{}, fmt.Sprintf("symbolic link to %q leaves the repository", target), nil
		}
		next := path.Join(path.Dir(p), target)
		if next == ".." || strings.HasPrefix(next, "../") {
			return "", object.TreeEntry{}, fmt.Sprintf("symbolic link to %q leaves the repository", target), nil
		}
		if reason := oddPath(next); reason != "" {
			return "", object.TreeEntry{}, fmt.Sprintf("symbolic link to %q: %s", target, reason), nil
		}
		e, err := r.lookup(root, next)
		if errors.Is(err, ErrNotExist) {
			return "", object.TreeEntry{}, fmt.Sprintf("symbolic link to %q: no such file in the repository", target), nil
		}
		if err != nil {
			return "", object.TreeEntry{}, "", err
		}
		switch {
		case e.Mode == filemode.Symlink:
			p, h = next, e.Hash
			continue
		case !e.Mode.IsFile():
			return "", object.TreeEntry{}, fmt.Sprintf("symbolic link to %q: not a regular file", target), nil
		}
		return next, e, "", nil
	}
	return "", object.TreeEntry{}, "too many levels of symbolic links", nil
}

// linkTarget reads a symbolic link's blob: the path it points to.
func (r *Repo) linkTarget(h plumbing.Hash) (string, error) {
	b, err := r.repo.BlobObject(h)
	if err != nil {
		return "", err
	}
	if b.Size > maxLinkSize {
		return "", fmt.Errorf("link of %d bytes", b.Size)
	}
	rd, err := b.Reader()
	if err != nil {
		return "", err
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	return string(data), err
}

// lookup finds the entry at the slash-separated path p of root, reading
// only the trees on the way; it fails with ErrNotExist when there is
// none. Unlike go-git's FindEntry it does not refuse odd names: it only
// compares them.
func (r *Repo) lookup(root *object.Tree, p string) (object.TreeEntry, error) {
	tree := root
	parts := strings.Split(p, "/")
	for i, name := range parts {
		var found *object.TreeEntry
		for j := range tree.Entries {
			if tree.Entries[j].Name == name {
				found = &tree.Entries[j]
				break
			}
		}
		switch {
		case found == nil:
			return object.TreeEntry{}, fmt.Errorf("find %q: %w", p, ErrNotExist)
		case i == len(parts)-1:
			return *found, nil
		case found.Mode != filemode.Dir:
			return object.TreeEntry{}, fmt.Errorf("find %q: %w", p, ErrNotExist)
		}
		sub, err := r.tree(found.Hash)
		if err != nil {
			return object.TreeEntry{}, fmt.Errorf("read tree %q: %w", strings.Join(parts[:i+1], "/"), err)
		}
		tree = sub
	}
	return object.TreeEntry{}, fmt.Errorf("find %q: %w", p, ErrNotExist)
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

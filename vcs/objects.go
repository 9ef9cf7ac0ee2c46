package vcs

import (
	"compress/zlib"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// looseCompression is the zlib level of the loose objects Commit writes:
// git's own, which compresses loose objects at level 1 (best speed)
// unless core.looseCompression says otherwise. go-git writes them at the
// default level, which costs several times more for files of tens of
// kilobytes and saves a few percent of the space; a repack compresses
// them again anyway. An object's name is the hash of its content, so the
// level changes nothing anyone reads.
const looseCompression = zlib.BestSpeed

// objectWriter writes loose objects into one repository's object
// directory, as git does: compressed into a temporary file there, then
// renamed to objects/xx/yyyy, so a reader (or a crash) never sees half an
// object. Its buffers are reused from object to object; it is not safe
// for concurrent use (Repo.mu guards it).
type objectWriter struct {
	dir  string          // the objects directory
	fans map[string]bool // its subdirectories known to exist
	zw   *zlib.Writer
	head []byte
}

// gitDir is the directory of r's storage (.git).
func (r *Repo) gitDir() (string, error) {
	fs, ok := r.repo.Storer.(*filesystem.Storage)
	if !ok {
		return "", errors.New("repository storage is not a directory")
	}
	return fs.Filesystem().Root(), nil
}

// writeObject stores an object of type t and content data unless the
// repository already holds it (loose or packed), and returns its hash:
// the one git computes, whatever the compression. r.mu is held.
func (r *Repo) writeObject(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, data)
	err := r.repo.Storer.HasEncodedObject(h)
	if err == nil {
		return h, nil
	}
	if !errors.Is(err, plumbing.ErrObjectNotFound) {
		return h, err
	}
	if r.objects == nil {
		dir, err := r.gitDir()
		if err != nil {
			return h, err
		}
		r.objects = &objectWriter{dir: filepath.Join(dir, "objects"), fans: map[string]bool{}}
	}
	return h, r.objects.write(h, t, data)
}

// write stores data as the loose object h.
func (w *objectWriter) write(h plumbing.Hash, t plumbing.ObjectType, data []byte) (err error) {
	// Loose objects are read-only, as git leaves them.
	tmp, err := createTemp(w.dir, "tmp_obj_", 0o444)
	if err != nil {
		return fmt.Errorf("write object %s: %w", h, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if w.zw == nil {
		w.zw, err = zlib.NewWriterLevel(tmp, looseCompression)
		if err != nil {
			return err
		}
	} else {
		w.zw.Reset(tmp)
	}
	w.head = append(append(append(w.head[:0], t.Bytes()...), ' '), strconv.Itoa(len(data))...)
	w.head = append(w.head, 0)
	if _, err := w.zw.Write(w.head); err != nil {
		return fmt.Errorf("write object %s: %w", h, err)
	}
	if _, err := w.zw.Write(data); err != nil {
		return fmt.Errorf("write object %s: %w", h, err)
	}
	if err := w.zw.Close(); err != nil {
		return fmt.Errorf("write object %s: %w", h, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write object %s: %w", h, err)
	}
	hex := h.String()
	fan := filepath.Join(w.dir, hex[:2])
	if !w.fans[hex[:2]] {
		if err := os.Mkdir(fan, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("write object %s: %w", h, err)
		}
		w.fans[hex[:2]] = true
	}
	if err := os.Rename(tmp.Name(), filepath.Join(fan, hex[2:])); err != nil {
		return fmt.Errorf("write object %s: %w", h, err)
	}
	return nil
}

// createTemp is os.CreateTemp with the file's mode given: one system call
// fewer than a chmod after it.
func createTemp(dir, prefix string, mode os.FileMode) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("create a temporary file in %s: too many tries", dir)
}

package vcs

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A pack index (.idx, version 2) is a magic number and a version, a
// fan-out table of 256 counts whose last is the number of objects n,
// then n names, n checksums and n offsets, the 8-byte offsets of the
// objects past 2 GiB, and two trailing hashes: the pack's and its own.
// Version 1 has no magic number: the fan-out, n names with their
// offsets, and the same two hashes.
const (
	idxMagic      = "\xfftOc"
	idxFanout     = 256 * 4
	idxHeaderV2   = 8 + idxFanout
	idxTrailer    = 2 * 20
	idxEntryV2    = 20 + 4 + 4
	idxEntryV1    = 4 + 20
	idxLargeEntry = 8
	// A pack is "PACK", a version and an object count, its objects, and
	// the hash of all that, which names the pack.
	packHeader  = 12
	packTrailer = 20
)

// lostMark is the file CheckPacks leaves in .git when it removed a pack
// whose objects git may have read: until Open has found HEAD's history
// whole again, the checkout may lack objects its references need.
const lostMark = "tolk-lost-objects"

// PackCheck says what CheckPacks found and removed.
type PackCheck struct {
	// Removed are the paths removed: packs with their index and
	// companions, pack indexes without a pack, and temporary packs.
	Removed []string
	// Lost is true when a removed pack was one git reads objects from
	// (a .pack file with a damaged index, or damaged itself): the
	// objects it held are gone until fetched again, and Open checks
	// that HEAD's history is whole (see ErrObjectsLost).
	Lost bool
}

// CheckPacks looks at the packs of the checkout at dir and removes what
// an interrupted write left: go-git's PackWriter writes a fetched pack
// into objects/pack/tmp_pack_*, creates pack-<sum>.idx in place and only
// then renames the pack to pack-<sum>.pack, and a later fetch of the same
// pack trusts any .idx it finds. A process killed inside that window
// leaves an empty or cut-off .idx that makes every read of the pack
// fail. A pack whose index does not open, is shorter than its fan-out
// table says, names another pack, or disagrees with the pack's header
// and trailer is removed with its index; so are an index without its
// pack and every temporary pack.
//
// It reads the header and the trailer of each file (a stat and two
// small reads per file), not the objects. It must only run while no
// fetch into dir runs: at start, or under the lock of the component's
// git jobs. A dir without objects/pack has nothing to check.
func CheckPacks(dir string) (PackCheck, error) {
	var res PackCheck
	packs := packDir(dir)
	entries, err := os.ReadDir(packs)
	if errors.Is(err, os.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("check packs: %w", err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	remove := func(name string) error {
		p := filepath.Join(packs, name)
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("check packs: %w", err)
		}
		res.Removed = append(res.Removed, p)
		return nil
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, "tmp_pack_") || strings.HasPrefix(name, "tmp_obj_") {
			if err := remove(name); err != nil {
				return res, err
			}
			continue
		}
		base, ok := strings.CutSuffix(name, ".idx")
		if !ok || !strings.HasPrefix(base, "pack-") {
			continue
		}
		if !names[base+".pack"] {
			// Never read: the pack was not renamed into place.
			if err := remove(name); err != nil {
				return res, err
			}
			continue
		}
		if checkPack(filepath.Join(packs, base)) == nil {
			continue
		}
		if err := markLost(dir); err != nil {
			return res, err
		}
		res.Lost = true
		for _, ext := range []string{".pack", ".idx", ".rev", ".bitmap", ".keep", ".mtimes", ".promisor"} {
			if names[base+ext] {
				if err := remove(base + ext); err != nil {
					return res, err
				}
			}
		}
	}
	for _, e := range entries {
		// A pack without an index: git cannot read it either.
		base, ok := strings.CutSuffix(e.Name(), ".pack")
		if ok && strings.HasPrefix(base, "pack-") && !names[base+".idx"] {
			if err := markLost(dir); err != nil {
				return res, err
			}
			res.Lost = true
			if err := remove(e.Name()); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// markLost leaves lostMark in dir's .git, written before a pack goes so
// that a crash in the middle still has Open check the history.
func markLost(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, git.GitDirName, lostMark), nil, 0o644); err != nil {
		return fmt.Errorf("check packs: %w", err)
	}
	return nil
}

// checkPack checks the pack base.pack against its index base.idx from
// their headers and trailers.
func checkPack(base string) error {
	sum, err := hex.DecodeString(strings.TrimPrefix(filepath.Base(base), "pack-"))
	if err != nil || len(sum) != 20 {
		return fmt.Errorf("%s: not a pack name", base)
	}
	n, idxSum, err := readIdxHeader(base + ".idx")
	if err != nil {
		return err
	}
	if !bytes.Equal(idxSum, sum) {
		return fmt.Errorf("%s.idx: indexes pack %x", base, idxSum)
	}
	f, err := os.Open(base + ".pack")
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < packHeader+packTrailer {
		return fmt.Errorf("%s.pack: %d bytes, shorter than a pack", base, fi.Size())
	}
	var head [packHeader]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return err
	}
	if string(head[:4]) != "PACK" || binary.BigEndian.Uint32(head[8:]) != n {
		return fmt.Errorf("%s.pack: header %q does not hold the %d objects of its index", base, head[:], n)
	}
	var trailer [packTrailer]byte
	if _, err := f.ReadAt(trailer[:], fi.Size()-packTrailer); err != nil {
		return err
	}
	if !bytes.Equal(trailer[:], sum) {
		return fmt.Errorf("%s.pack: cut off (its trailer is not its name)", base)
	}
	return nil
}

// readIdxHeader reads the object count and the pack's hash from the
// index at path, checking that its size is what its fan-out table says.
func readIdxHeader(path string) (n uint32, packSum []byte, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	size := fi.Size()
	var head [idxHeaderV2]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		if errors.Is(err, io.EOF) {
			return 0, nil, fmt.Errorf("%s: %d bytes, shorter than its header", path, size)
		}
		return 0, nil, err
	}
	var fanout []byte
	var lo, hi int64 // the sizes the object count allows
	if string(head[:4]) == idxMagic {
		if v := binary.BigEndian.Uint32(head[4:]); v != 2 {
			return 0, nil, fmt.Errorf("%s: version %d", path, v)
		}
		fanout = head[8:]
		n = binary.BigEndian.Uint32(fanout[idxFanout-4:])
		lo = idxHeaderV2 + int64(n)*idxEntryV2 + idxTrailer
		hi = lo + int64(n)*idxLargeEntry
	} else {
		fanout = head[:idxFanout]
		n = binary.BigEndian.Uint32(fanout[idxFanout-4:])
		lo = idxFanout + int64(n)*idxEntryV1 + idxTrailer
		hi = lo
	}
	prev := uint32(0)
	for i := 0; i < idxFanout; i += 4 {
		c := binary.BigEndian.Uint32(fanout[i:])
		if c < prev {
			return 0, nil, fmt.Errorf("%s: fan-out table out of order", path)
		}
		prev = c
	}
	if size < lo || size > hi {
		return 0, nil, fmt.Errorf("%s: %d bytes, its header says %d objects (%d bytes)", path, size, n, lo)
	}
	packSum = make([]byte, 20)
	if _, err := f.ReadAt(packSum, size-idxTrailer); err != nil {
		return 0, nil, err
	}
	return n, packSum, nil
}

// checkLost runs when CheckPacks removed a pack git read objects from:
// it checks that HEAD's history is whole (every commit it descends
// from, and every tree and blob of HEAD's tree) and then forgets the
// mark. References other than the branch that name a missing commit
// were dropped by repair and come back with the next fetch. r.mu need
// not be held: nothing else has r yet.
func (r *Repo) checkLost() error {
	mark := filepath.Join(r.dir, git.GitDirName, lostMark)
	if _, err := os.Stat(mark); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	h, err := r.head()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrObjectsLost, err)
	}
	if err := r.checkHistory(h); err != nil {
		return fmt.Errorf("%w: %w", ErrObjectsLost, err)
	}
	if err := os.Remove(mark); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// checkHistory reads every commit head descends from and checks that
// head's tree holds every object it names.
func (r *Repo) checkHistory(head plumbing.Hash) error {
	c, err := r.repo.CommitObject(head)
	if err != nil {
		return fmt.Errorf("commit %s: %w", head, err)
	}
	if err := r.checkTree(c.TreeHash); err != nil {
		return err
	}
	seen := map[plumbing.Hash]bool{head: true}
	todo := []plumbing.Hash{head}
	for len(todo) > 0 {
		h := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		c, err := r.repo.CommitObject(h)
		if err != nil {
			return fmt.Errorf("commit %s: %w", h, err)
		}
		for _, p := range c.ParentHashes {
			if !seen[p] {
				seen[p] = true
				todo = append(todo, p)
			}
		}
	}
	return nil
}

// checkTree checks that the tree h and everything under it are held.
func (r *Repo) checkTree(h plumbing.Hash) error {
	t, err := object.GetTree(r.repo.Storer, h)
	if err != nil {
		return fmt.Errorf("tree %s: %w", h, err)
	}
	for _, e := range t.Entries {
		switch e.Mode {
		case filemode.Dir:
			if err := r.checkTree(e.Hash); err != nil {
				return err
			}
		case filemode.Submodule:
		default:
			if err := r.repo.Storer.HasEncodedObject(e.Hash); err != nil {
				return fmt.Errorf("%s %s: %w", e.Name, e.Hash, err)
			}
		}
	}
	return nil
}

package sync

import (
	"context"
	"errors"
	"fmt"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// Several processes, one index. Tolk processes sharing one PostgreSQL
// each keep a checkout of every component in their own data directory,
// and the index is the truth: git work on a component runs in one
// process at a time, under the index's lock (JobStore.LockComponent),
// and the commit a component's branch is at is recorded in the index
// with the objects of the local commits no remote has (index.GitHead).
// Before a git job, or a read of a checkout's files, a process moves its
// checkout to the recorded head (catchUp), taking the objects from the
// index and fetching what upstream has. On SQLite one process owns the
// index and its checkouts: nothing is recorded, and the lock is this
// process's mutex alone.

// JobStore is what the processes sharing the index coordinate through
// (part of Store).
type JobStore interface {
	// LockComponent takes the component's job lock across processes,
	// waiting until ctx ends; unlock releases it. A process that dies
	// holding it releases it.
	LockComponent(ctx context.Context, componentID int64) (unlock func(), err error)
	// SharedCheckouts reports whether other processes, with checkouts of
	// their own, may share the index: only then are heads recorded.
	SharedCheckouts() bool
	// GitHead returns the component's recorded head without its
	// objects; false when none is recorded.
	GitHead(ctx context.Context, componentID int64) (index.GitHead, bool, error)
	// GitObjects returns the objects recorded with the component's head.
	GitObjects(ctx context.Context, componentID int64) ([]index.GitObject, error)
	// RecordGitHead records a head and its objects (see index.GitHead).
	RecordGitHead(ctx context.Context, h index.GitHead) error
}

// lockComponent takes the component's lock for git work: this process's
// mutex (which orders its goroutines), then the index's lock across
// processes. On success the caller must call unlock; on error (ctx
// ended while waiting) nothing is held.
func (s *Service) lockComponent(ctx context.Context, id int64) (func(), error) {
	mu := s.componentLock(id)
	mu.Lock()
	release, err := s.store.LockComponent(ctx, id)
	if err != nil {
		mu.Unlock()
		return nil, err
	}
	return func() {
		release()
		mu.Unlock()
	}, nil
}

// catchUp moves the checkout to the component's recorded head when it is
// elsewhere: another process committed or pulled since, or this one died
// between a commit and its record (whose edits the index still owes). It
// fetches when the commits of the record sit on upstream ones the
// checkout lacks, and writes the objects of the local ones from the
// index. The caller holds the component's mutex.
func (s *Service) catchUp(ctx context.Context, c index.Component, repo *vcs.Repo) error {
	if !s.store.SharedCheckouts() {
		return nil
	}
	head, err := repo.Head()
	if err != nil {
		return err
	}
	// A record read between another process's record and its pruning of
	// objects upstream now has may miss objects: read it again.
	for try := 0; ; try++ {
		rec, ok, err := s.store.GitHead(ctx, c.GitID())
		if err != nil || !ok || rec.Head == head {
			return err
		}
		err = s.bringHead(ctx, repo, rec)
		if err == nil {
			s.opts.Logger.Info("checkout moved to the recorded head", "project", c.Project.Slug,
				"component", c.Slug, "previous_head", head, "head", rec.Head)
			return repo.MoveTo(rec.Head, rec.Base)
		}
		if try == 2 || ctx.Err() != nil {
			return fmt.Errorf("%s/%s: catch up with %.12s: %w", c.Project.Slug, c.Slug, rec.Head, err)
		}
	}
}

// bringHead gets rec's head commit into the checkout: from upstream, then
// from the objects recorded.
func (s *Service) bringHead(ctx context.Context, repo *vcs.Repo, rec index.GitHead) error {
	if ok, err := repo.HasCommit(rec.Head); err != nil || ok {
		return err
	}
	if rec.Base != "" && repo.URL() != "" {
		ok, err := repo.HasCommit(rec.Base)
		if err != nil {
			return err
		}
		if !ok {
			if _, err := repo.Fetch(ctx); err != nil {
				return err
			}
		}
	}
	objs, err := s.store.GitObjects(ctx, rec.ComponentID)
	if err != nil {
		return err
	}
	vobjs := make([]vcs.Object, len(objs))
	for i, o := range objs {
		vobjs[i] = vcs.Object(o)
	}
	if err := repo.WriteObjects(vobjs); err != nil {
		return err
	}
	if ok, err := repo.HasCommit(rec.Head); err != nil || !ok {
		return fmt.Errorf("commit %s not found: %w", rec.Head, err)
	}
	return nil
}

// headRecord returns the record of the checkout's head for the index, or
// nil when the checkouts are not shared or the index holds it already
// (the same head on the same upstream commit): the objects of
// the commits since the last record, or (when the branch moved
// elsewhere: a pull, a reset) of every local commit, replacing those
// recorded. The caller holds the component's lock.
func (s *Service) headRecord(ctx context.Context, c index.Component, repo *vcs.Repo) (*index.GitHead, error) {
	if !s.store.SharedCheckouts() {
		return nil, nil
	}
	prev, ok, err := s.store.GitHead(ctx, c.GitID())
	if err != nil {
		return nil, err
	}
	var known []string
	if ok {
		known = []string{prev.Head}
	}
	lc, err := repo.LocalObjects(known...)
	if err != nil {
		return nil, err
	}
	if ok && lc.Head == prev.Head && (lc.Known != "" || lc.Base == prev.Base) {
		return nil, nil
	}
	h := &index.GitHead{ComponentID: c.GitID(), Head: lc.Head, Base: lc.Base, Objects: make([]index.GitObject, len(lc.Objects))}
	for i, o := range lc.Objects {
		h.Objects[i] = index.GitObject(o)
	}
	if lc.Known == "" {
		h.Replace = true
	} else if h.Base == "" {
		h.Base = prev.Base
	}
	return h, nil
}

// recordHead records the checkout's head in the index when it moved
// (headRecord). The caller holds the component's lock.
func (s *Service) recordHead(ctx context.Context, c index.Component, repo *vcs.Repo) error {
	h, err := s.headRecord(ctx, c, repo)
	if err != nil || h == nil {
		return err
	}
	if err := s.store.RecordGitHead(ctx, *h); err != nil {
		return fmt.Errorf("%s/%s: record head: %w", c.Project.Slug, c.Slug, err)
	}
	return nil
}

// errBehind sends a lock-free read to the lock: the checkout is not at
// the recorded head.
var errBehind = errors.New("checkout behind the recorded head")

// behind returns errBehind when the index records a head for the
// component that head, the checkout's, does not descend from. A head
// past the record is this process's commit on its way to the index (its
// edits are still pending there, so a download renders them either way):
// a read need not wait for that commit to end.
func (s *Service) behind(ctx context.Context, c index.Component, repo *vcs.Repo, head string) error {
	if !s.store.SharedCheckouts() {
		return nil
	}
	rec, ok, err := s.store.GitHead(ctx, c.GitID())
	if err != nil || !ok || rec.Head == head {
		return err
	}
	if ahead, err := repo.Descends(head, rec.Head); err != nil || !ahead {
		return errBehind
	}
	return nil
}

package sync

import (
	"context"
	"errors"
	"fmt"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// PullStore is what a pull needs from the index beside the import's
// methods (part of Store).
type PullStore interface {
	// Repend makes the index owe the repository again what local
	// commits hold and upstream lacks.
	Repend(ctx context.Context, rep index.Repended) error
	// RepositoryFailure is the text of the component's newest repository
	// change when it is a failure, else "".
	RepositoryFailure(ctx context.Context, componentID int64) (string, error)
	// DiscardPending forgets what the component owes its repository and
	// records 19 with the text target makes of what was discarded.
	DiscardPending(ctx context.Context, componentID, userID int64, target func(index.Pending) string) (index.Pending, error)
}

// Reset puts the component back to upstream, under its lock: it fetches,
// moves the branch to upstream's head (local commits not pushed are
// dropped), forgets every pending edit, removed string and file to add
// or delete, recording "Repository reset" (19) with what was discarded,
// and re-imports every file so the index holds upstream's text again.
// The git reset comes first: a crash before the index forgets leaves the
// edits pending, never the index ahead of a repository that lost them.
// A component without a remote is reset to its own HEAD.
func (s *Service) Reset(ctx context.Context, c index.Component, user *index.User) error {
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return err
	}
	repo, up, unlock, err := s.lockedUpstream(ctx, c)
	if err != nil {
		return err
	}
	defer unlock()
	if err := resetTo(repo, up.target); err != nil {
		return resetFailed(c, err)
	}
	message := func(p index.Pending) string {
		return fmt.Sprintf("Discarded %d pending strings, %d removed strings, %d files to add or delete "+
			"and %d local commits; %s is now at %.12s.", p.Units, p.Removed, p.Files, up.ahead, repo.Branch(), up.target)
	}
	discarded, err := s.store.DiscardPending(ctx, c.ID, userID(user), message)
	if err != nil {
		return err
	}
	// The components linked to c lost their commits with the branch.
	links, err := s.linksOf(ctx, c)
	if err != nil {
		return err
	}
	for _, l := range links {
		if _, err := s.store.DiscardPending(ctx, l.ID, userID(user), message); err != nil {
			return err
		}
	}
	s.opts.Logger.Info("repository reset", "project", c.Project.Slug, "component", c.Slug,
		"previous_head", up.head, "new_head", up.target, "pending", discarded.Units, "removed", discarded.Removed,
		"files", discarded.Files, "commits", up.ahead)
	_, err = s.importCheckout(ctx, checkedOut{c: c, repo: repo, user: user})
	return err
}

// ResetKeep is the reference's reset-keep: the branch goes back to
// upstream as with Reset, but the index keeps every translation. Every
// translated string is made pending first (recording 19), then the
// branch moves to upstream, the files are read again (the pending texts
// win, upstream's differing ones are kept as 59s), and one commit per
// author writes the index's texts on top: only the values upstream
// lacks change. Upstream's history is kept; Tolk's own commits it lacked
// are replaced by these. A crash between the marking and the move
// leaves pending texts HEAD already holds, which the next commit
// forgets without a commit.
func (s *Service) ResetKeep(ctx context.Context, c index.Component, user *index.User) error {
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return err
	}
	repo, up, unlock, err := s.lockedUpstream(ctx, c)
	if err != nil {
		return err
	}
	defer unlock()
	links, err := s.linksOf(ctx, c)
	if err != nil {
		return err
	}
	var n int64
	for _, k := range append([]index.Component{c}, links...) {
		m, err := s.store.ForceSync(ctx, k.ID, userID(user), index.ActionReset,
			fmt.Sprintf("Reset %s to %.12s, keeping the translations.", repo.Branch(), up.target))
		if err != nil {
			return fmt.Errorf("%s/%s: keep translations: %w", k.Project.Slug, k.Slug, err)
		}
		n += m
	}
	if err := resetTo(repo, up.target); err != nil {
		return resetFailed(c, err)
	}
	s.opts.Logger.Info("repository reset, translations kept", "project", c.Project.Slug, "component", c.Slug,
		"previous_head", up.head, "new_head", up.target, "strings", n, "commits_replaced", up.ahead)
	if _, err := s.importCheckout(ctx, checkedOut{c: c, repo: repo, user: user}); err != nil {
		return err
	}
	_, err = s.commitLocked(ctx, repo, c, user, nil)
	return err
}

// resetTo moves the branch to target for a reset, which supersedes a
// pull's unfinished move (markMove): the reset decides what becomes of
// the pending edits.
func resetTo(repo *vcs.Repo, target string) error {
	if err := repo.ResetTo(target); err != nil {
		return err
	}
	return repo.ClearMark(movedFromMark)
}

// upstream is where a reset moves the branch.
type upstream struct {
	head, target string // HEAD before, and upstream's head (HEAD itself without a remote)
	ahead        int    // local commits upstream lacks
}

// lockedUpstream takes the component's lock, opens its checkout, fetches
// and finds upstream's head, for a reset. On success the caller holds the
// lock and must call unlock; on error it is already released.
func (s *Service) lockedUpstream(ctx context.Context, c index.Component) (*vcs.Repo, upstream, func(), error) {
	repo, unlock, err := s.lockedCheckout(ctx, c)
	if err != nil {
		return nil, upstream{}, nil, err
	}
	if repo.URL() != "" {
		_, err = repo.Fetch(ctx)
	}
	var up upstream
	if err == nil {
		up, err = upstreamHead(repo)
	}
	if err != nil {
		unlock()
		return nil, upstream{}, nil, resetFailed(c, err)
	}
	return repo, up, unlock, nil
}

// upstreamHead finds upstream's head as last fetched.
func upstreamHead(repo *vcs.Repo) (upstream, error) {
	d, err := repo.Diverge()
	if err != nil {
		return upstream{}, err
	}
	st, err := repo.Status()
	if err != nil {
		return upstream{}, err
	}
	up := upstream{head: d.Head, target: d.Remote, ahead: st.Ahead}
	if up.target == "" {
		up.target = d.Head
	}
	return up, nil
}

// resetFailed is a reset's failure as the reference words it.
func resetFailed(c index.Component, err error) error {
	return fmt.Errorf("%w (%w)", index.Errorf(index.ErrConflict,
		"Could not reset to remote branch on %s/%s: %s", c.Project.Slug, c.Slug, err), err)
}

// Pull brings upstream's changes into the component, under its lock:
// fetch, move the checkout onto upstream keeping every edit upstream
// lacks (integrate), re-import the files that changed, and commit the
// kept edits on top (pushing them when push_on_commit is set). It
// records "Rebased repository" (21) when upstream had moved. The
// component is never locked by a pull: when git itself fails (an
// unreachable remote, a corrupt repository) it records 22 with the
// reason, which the repository status shows as merge_failure, and
// returns an index.ErrConflict error carrying it. user (nil: nobody)
// is who asked.
func (s *Service) Pull(ctx context.Context, c index.Component, user *index.User) error {
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return err
	}
	unlock, err := s.lockComponent(ctx, c.ID)
	if err != nil {
		return err
	}
	defer unlock()
	_, err = s.pullLocked(ctx, c, user, pullOptions{push: true, skipCurrent: true})
	return err
}

// importedMark names the checkout's mark of the commit whose files the
// index last finished importing.
const importedMark = "imported"

// pullOptions tune pullLocked.
type pullOptions struct {
	// push allows pushing what the pull commits (push_on_commit); false
	// for a caller that is pushing.
	push bool
	// skipCurrent stops a pull whose fetch moved nothing once the index
	// is known to hold HEAD's files (the mark importCheckout sets): the
	// import's per-file comparison is the whole cost of a pull that finds
	// nothing. Any doubt (no mark, an error reading it) imports.
	skipCurrent bool
}

// pullLocked is Pull; the caller holds the component's lock.
func (s *Service) pullLocked(ctx context.Context, c index.Component, user *index.User, o pullOptions) (ImportSummary, error) {
	co := s.checkoutTimed(ctx, c)
	co.user, co.push = user, o.push
	if co.err != nil {
		// finishLocal records how the import went (recordImport); the
		// update's failure is what the caller hears.
		_, _ = s.finishLocal(ctx, co)
		return ImportSummary{}, s.updateFailed(ctx, c, user, co.err)
	}
	if o.skipCurrent && !co.in.moved() {
		if mark, err := co.repo.Mark(importedMark); err == nil && mark == co.in.head {
			return ImportSummary{Revision: mark}, nil
		}
	}
	return s.importCheckout(ctx, co)
}

// updateFailed records that bringing upstream in failed with err (git's
// own failure: an unreachable remote, a corrupt repository) as 22, whose
// text the repository status shows as merge_failure, and returns an
// index.ErrConflict error carrying it. A cancelled update records
// nothing.
func (s *Service) updateFailed(ctx context.Context, c index.Component, user *index.User, err error) error {
	if ctx.Err() != nil {
		return err
	}
	// vcs redacts credentials from its errors: safe to store and show.
	msg := err.Error()
	if rerr := s.store.RecordRepositoryChange(ctx, c.ID, index.ActionFailedMerge, userID(user), msg); rerr != nil {
		return errors.Join(err, rerr)
	}
	s.opts.Logger.Warn("update failed", "project", c.Project.Slug, "component", c.Slug, "err", msg)
	return fmt.Errorf("%w (%w)", index.Errorf(index.ErrConflict,
		"Could not update the repository of %s/%s: %s", c.Project.Slug, c.Slug, msg), err)
}

// afterPull finishes an import that followed a move onto upstream: it
// records the rebase and commits the edits upstream lacks on top.
func (s *Service) afterPull(ctx context.Context, co checkedOut) error {
	c := co.c
	s.pullStep("imported")
	if err := s.store.RecordRepositoryChange(ctx, c.ID, index.ActionRebase, userID(co.user), ""); err != nil {
		return err
	}
	res, err := s.commitLocked(ctx, co.repo, c, co.user, co.cache)
	if err == nil || errors.Is(err, index.ErrConflict) {
		// The kept edits are committed on top (those of a file upstream
		// broke wait for it, as after any commit): the move is done.
		err = errors.Join(err, co.repo.ClearMark(movedFromMark))
	}
	if err != nil {
		return err
	}
	if len(res.Commits) == 0 && c.LinkedID == 0 {
		// The cleanup add-ons' post-update run (after a commit, the
		// commit ran them).
		links, err := co.cache.links(ctx, c)
		if err != nil {
			return err
		}
		res.Commits = s.cleanupLocked(ctx, co.repo, c, links, co.cache)
	}
	if co.push && c.PushOnCommit && len(res.Commits) > 0 {
		return s.pushLocked(ctx, co.repo, c, co.user)
	}
	return nil
}

// integration is what moving a checkout onto upstream did.
type integration struct {
	// base is the commit the checkout last synced with upstream: the
	// import compares pending edits with its files to tell a string
	// upstream changed from one it merely still holds. "" when HEAD did
	// not move.
	base string
	// previous and head are HEAD before and after; equal when nothing
	// moved.
	previous, head string
	// reapplied is true when local commits upstream lacked were made
	// pending again, for the next commit to re-apply on top.
	reapplied bool
}

func (in integration) moved() bool { return in.previous != in.head }

// integrate fetches upstream and moves the checkout onto it. Tolk never
// asks git to merge text: the index is the truth for translations, so
// what Tolk committed and upstream lacks is first made pending again in
// the index (one transaction), then the branch moves hard to upstream;
// the import that follows reads upstream's files, keeping pending edits,
// and the commit after it re-applies them on top. An edit upstream
// already holds (Tolk's commit squash-merged or cherry-picked) re-applies
// to nothing. A crash at any point leaves work a later pull redoes: the
// pending marks are idempotent and the import skips nothing it has not
// indexed. The caller holds the component's lock.
func (s *Service) integrate(ctx context.Context, c index.Component, repo *vcs.Repo) (integration, error) {
	var in integration
	head, err := repo.Head()
	if err != nil {
		return in, err
	}
	in.previous, in.head = head, head
	if repo.URL() == "" {
		return in, nil
	}
	if _, err := repo.Fetch(ctx); err != nil {
		return in, err
	}
	d, err := repo.Diverge()
	if err != nil {
		return in, err
	}
	unfinished, err := unfinishedMove(repo)
	if err != nil {
		return in, err
	}
	if unfinished.previous == head {
		// Marked, but the branch never moved (or went back to the
		// recorded head): nothing to finish.
		unfinished = integration{}
	}
	if unfinished.previous != "" {
		// An earlier pull moved the branch and was cut short before it
		// committed the kept edits on top: this one finishes it, as
		// that pull would have, whether or not upstream moved since.
		in.previous, in.base = unfinished.previous, unfinished.base
	}
	if !d.Moved() {
		return in, nil
	}
	if unfinished.previous == "" {
		in.base = d.Base
		if err := markMove(repo, d); err != nil {
			return in, err
		}
	}
	if d.Base != d.Head {
		if err := s.repend(ctx, c, repo, d); err != nil {
			return in, fmt.Errorf("keep local commits: %w", err)
		}
		in.reapplied = true
	}
	if err := repo.ResetTo(d.Remote); err != nil {
		return in, err
	}
	in.head = d.Remote
	s.pullStep("moved")
	return in, nil
}

// pullStep runs the test hook onPullStep, when set.
func (s *Service) pullStep(step string) {
	if s.onPullStep != nil {
		s.onPullStep(step)
	}
}

// movedFromMark and moveBaseMark name the checkout's marks of a move
// onto upstream whose kept edits are not committed on top yet: HEAD
// before the move, and the base the import compares pending edits with
// (none when HEAD and upstream shared no history). movedFromMark is set
// last and cleared once the commit on top is made (afterPull) or a reset
// superseded the move; moveBaseMark is read only while it is set.
const (
	movedFromMark = "moved-from"
	moveBaseMark  = "move-base"
)

// markMove records, before the move d asks for, that it owes a commit
// on top of upstream, so that a pull cut short after the move (a crash,
// a cancelled job) is finished by the next one instead of leaving the
// kept edits pending.
func markMove(repo *vcs.Repo, d vcs.Divergence) error {
	var err error
	if d.Base != "" {
		err = repo.SetMark(moveBaseMark, d.Base)
	} else {
		err = repo.ClearMark(moveBaseMark)
	}
	if err != nil {
		return err
	}
	return repo.SetMark(movedFromMark, d.Head)
}

// unfinishedMove returns the move markMove recorded and nothing has
// finished yet: its previous HEAD and its base; a zero integration when
// none.
func unfinishedMove(repo *vcs.Repo) (integration, error) {
	var in integration
	var err error
	if in.previous, err = repo.Mark(movedFromMark); err != nil || in.previous == "" {
		return integration{}, err
	}
	in.base, err = repo.Mark(moveBaseMark)
	return in, err
}

// repend records in the index what the local commits (Base..Head of d)
// changed in the component's translation files: units whose text differs
// from the base, entries they removed, files they added or deleted.
func (s *Service) repend(ctx context.Context, c index.Component, repo *vcs.Repo, d vcs.Divergence) error {
	ts, err := s.store.FindTranslations(ctx, c.ID)
	if err != nil {
		return err
	}
	// A file is one translation's, or every translation's in a
	// one-file component (formats.Format.OneFile).
	byFile := make(map[string][]index.Translation, len(ts))
	for _, t := range ts {
		if t.Filename != "" {
			byFile[t.Filename] = append(byFile[t.Filename], t)
		}
	}
	mask, err := componentMask(c)
	if err != nil {
		return err
	}
	rep := index.Repended{ComponentID: c.ID}
	for _, path := range d.Local {
		shared := byFile[path]
		known := len(shared) > 0
		if !known && path != c.Template && !mask.Match(path) {
			continue
		}
		before, beforeOK, err := readAt(repo, d.Base, path)
		if err != nil {
			return err
		}
		after, afterOK, err := readAt(repo, d.Head, path)
		if err != nil {
			return err
		}
		switch {
		case !known && beforeOK && !afterOK:
			// Tolk deleted a translation's file.
			code, _ := mask.Code(path)
			rep.Files = append(rep.Files, index.PendingFile{Path: path, Operation: "delete", LanguageCode: code})
			continue
		case !known || !afterOK:
			// A file the index has no translation for, or one whose
			// deletion is pending already: nothing to owe.
			continue
		case !beforeOK:
			// The local commits created the file: each translation in
			// it was added (a one-file component's languages, each a
			// row of its own since migration 0054), or a translation
			// left without its row is taken for stale by the import
			// that follows the move. The source language of a
			// catalog is in the file, not added to it.
			for _, t := range shared {
				if t.IsSource && len(shared) > 1 {
					continue
				}
				rep.Files = append(rep.Files, index.PendingFile{Path: path, Operation: "add", LanguageCode: t.LanguageCode})
			}
		}
		for _, t := range shared {
			rt, err := s.unitDiff(c, t, before, after)
			if err != nil {
				// A file Tolk wrote always parses; one that does not was
				// broken upstream of Tolk and owes nothing.
				s.opts.Logger.Warn("local commit not compared", "project", c.Project.Slug, "component", c.Slug,
					"file", path, "err", err)
				continue
			}
			if len(rt.IDHashes)+len(rt.Removed) > 0 {
				rep.Translations = append(rep.Translations, rt)
			}
		}
	}
	if len(rep.Translations) == 0 && len(rep.Files) == 0 {
		return nil
	}
	return s.store.Repend(ctx, rep)
}

// unitDiff compares a translation's file before and after the local
// commits: units whose text they set, entries they removed.
func (s *Service) unitDiff(c index.Component, t index.Translation, before, after []byte) (index.RependedTranslation, error) {
	rt := index.RependedTranslation{TranslationID: t.ID}
	f := s.fileOfTranslation(&c, t)
	old, err := unitTexts(c, f, before)
	if err != nil {
		return rt, err
	}
	now, err := unitTexts(c, f, after)
	if err != nil {
		return rt, err
	}
	for h, u := range now {
		if o, ok := old[h]; !ok || o.text != u.text {
			rt.IDHashes = append(rt.IDHashes, h)
		}
	}
	for h, u := range old {
		if _, ok := now[h]; !ok {
			rt.Removed = append(rt.Removed, index.RemovedUnit{IDHash: h, Context: u.unit.Context, Source: u.unit.Source})
		}
	}
	return rt, nil
}

// fileUnit is a unit of a file with the text the index compares: its
// target, or its source in a template.
type fileUnit struct {
	unit formats.Unit
	text string
}

// unitTexts parses a translation's file (nil data: no file), which f
// describes, into its units by id_hash.
func unitTexts(c index.Component, f formats.File, data []byte) (map[int64]fileUnit, error) {
	out := map[int64]fileUnit{}
	if data == nil {
		return out, nil
	}
	codec, err := codecOf(&c)
	if err != nil {
		return nil, err
	}
	units, err := codec.Decode(data, f)
	if err != nil {
		return nil, err
	}
	for _, u := range units {
		out[index.IDHash(c.IsMonolingual(), u.Source, u.Context)] = fileUnit{unit: u, text: index.JoinPlural(u.Target)}
	}
	return out, nil
}

// readAt reads path at commit rev; false when that commit has no such
// file (or rev is "", no commit).
func readAt(repo *vcs.Repo, rev, path string) ([]byte, bool, error) {
	if rev == "" {
		return nil, false, nil
	}
	data, err := repo.ReadFileAt(rev, path)
	if errors.Is(err, vcs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// baseTexts returns a file's unit texts at the base commit for the
// import's conflict check (index.TranslationImport.Base): nil when there
// is no base, empty when the base lacks the file.
func (ci *componentImport) baseTexts(lang index.Language, path string) map[int64]string {
	if ci.base == "" {
		return nil
	}
	data, _, err := readAt(ci.repo, ci.base, path)
	if err != nil {
		return nil
	}
	units, err := unitTexts(ci.c, ci.svc.fileOf(&ci.c, lang, path == ci.c.Template), data)
	if err != nil {
		// Upstream's old file did not parse: no base to compare with,
		// and the import keeps every pending edit as it did before.
		return nil
	}
	out := make(map[int64]string, len(units))
	for h, u := range units {
		out[h] = u.text
	}
	return out
}

package sync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// CommitStore is what Commit and Push need from the index (part of
// Store).
type CommitStore interface {
	FindTranslations(ctx context.Context, componentID int64) ([]index.Translation, error)
	// FindPendingUnits returns a translation's pending units by id.
	FindPendingUnits(ctx context.Context, translationID int64) ([]index.Unit, error)
	// PendingAuthors maps each pending unit of a translation to the author
	// of its last content change.
	PendingAuthors(ctx context.Context, translationID int64) (map[int64]index.User, error)
	RemovedUnits(ctx context.Context, translationID int64) ([]index.RemovedUnit, error)
	FindPendingFiles(ctx context.Context, componentID int64) ([]index.PendingFile, error)
	FindUserByID(ctx context.Context, id int64) (index.User, error)
	// MarkCommitted forgets what a commit wrote, in one transaction.
	MarkCommitted(ctx context.Context, rec index.Committed) error
	RecordRepositoryChange(ctx context.Context, componentID int64, action index.Action, userID int64, target string) error
}

// Commit writes the component's pending edits into its checkout and
// commits them, under the component's lock: for each translation with
// pending units (or a file to add), the file at HEAD with the pending
// targets applied (RenderTranslation), one commit per author of the
// edits, with the component's commit_message (add_message for a file HEAD
// lacks); a translation removed through the API gets its file deleted in
// a commit with delete_message. The author is the edit's author (full name
// and e-mail); the committer is Options.Committer. user (nil: nobody) is
// who asked; change 17 names them.
//
// Once the commits are made the index forgets the pending edits in one
// transaction. Should that fail (or the process die) after the git
// commit, the next Commit finds the edits already in HEAD's file and
// forgets them without committing again: nothing is lost or repeated.
//
// Units removed through the API are taken out of their files (a JSON
// key, a TBX termEntry: only those bytes change) in a commit by the user
// who asked, and their removed_units rows are forgotten with the rest.
// With push_on_commit set, a commit
// that made commits pushes them (see Push). It returns an error wrapping
// index.ErrNotFound when the checkout does not exist yet.
func (s *Service) Commit(ctx context.Context, c index.Component, user *index.User) (index.CommitResult, error) {
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return index.CommitResult{}, err
	}
	repo, unlock, err := s.lockedCheckout(ctx, c)
	if err != nil {
		return index.CommitResult{}, err
	}
	defer unlock()
	res, err := s.commitLocked(ctx, repo, c, user, nil)
	if err != nil {
		return res, err
	}
	if c.PushOnCommit && len(res.Commits) > 0 {
		err = s.pushLocked(ctx, repo, c, user)
	}
	return res, err
}

// Push commits the component's pending edits (Commit) and pushes its
// branch to the component's push URL (or its repository) on push_branch
// (or branch), recording 18 on success and 28, with the remote's message,
// on failure. A push the remote rejects as non-fast-forward pulls (Pull:
// Tolk's edits re-applied on top of upstream) and tries once more. A
// push_branch other than branch belongs to Tolk: it is rebuilt on top of
// branch and pushed with a lease (vcs.PushLease), so a squash-merged
// branch never gets stuck; branch itself is never force-pushed. A
// component whose checkout has no remote has nothing to push: nil.
func (s *Service) Push(ctx context.Context, c index.Component, user *index.User) error {
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return err
	}
	repo, unlock, err := s.lockedCheckout(ctx, c)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := s.commitLocked(ctx, repo, c, user, nil); err != nil {
		return err
	}
	return s.pushLocked(ctx, repo, c, user)
}

// pushLocked pushes the checkout; the caller holds the component's lock.
func (s *Service) pushLocked(ctx context.Context, repo *vcs.Repo, c index.Component, user *index.User) error {
	if repo.URL() == "" {
		return nil
	}
	branch := c.PushBranch
	if branch == "" {
		branch = c.Branch
	}
	own := branch != "" && branch != repo.Branch()
	if c.Push == "" || c.Push == c.Repo {
		// Nothing to push records nothing, as the reference answers
		// true without pushing. Tolk's own branch has nothing to carry
		// while HEAD holds nothing upstream lacks.
		if needs, err := repo.NeedsPush(); err == nil && !needs {
			return nil
		}
	}
	push := func(repo *vcs.Repo) error {
		if own {
			return repo.PushLease(ctx, c.Push, branch)
		}
		return repo.PushTo(ctx, c.Push, branch)
	}
	err := push(repo)
	if errors.Is(err, vcs.ErrNonFastForward) && !own && ctx.Err() == nil {
		// Upstream moved: take its commits, re-apply the edits on top,
		// and try once more. The pull works on a checkout of its own;
		// go-git caches the object store's packs per open repository,
		// so the retry pushes from a fresh one.
		s.opts.Logger.Info("push rejected, pulling and retrying", "project", c.Project.Slug, "component", c.Slug)
		if _, perr := s.pullLocked(ctx, c, user, pullOptions{}); perr == nil {
			if fresh, oerr := s.openCheckout(c); oerr == nil {
				repo = fresh
				err = push(fresh)
			}
		}
	}
	if err == nil {
		// Upstream has the local commits now: the record drops their
		// objects, which the other processes fetch.
		if err := s.recordHead(ctx, c, repo); err != nil {
			return err
		}
		return s.store.RecordRepositoryChange(ctx, c.ID, index.ActionPush, userID(user), "")
	}
	if ctx.Err() != nil {
		return err
	}
	// vcs redacts credentials from its errors, so the message is safe to
	// store and show.
	msg := err.Error()
	if rerr := s.store.RecordRepositoryChange(ctx, c.ID, index.ActionFailedPush, userID(user), msg); rerr != nil {
		return errors.Join(err, rerr)
	}
	s.opts.Logger.Warn("push failed", "project", c.Project.Slug, "component", c.Slug, "err", msg)
	return fmt.Errorf("%w (%w)", index.Errorf(index.ErrConflict, "Could not push %s/%s: %s",
		c.Project.Slug, c.Slug, msg), err)
}

func userID(u *index.User) int64 {
	if u == nil {
		return 0
	}
	return u.ID
}

// commitLocked is Commit: c's pending edits, then those of the
// components linked to c (commitLinks); the caller holds the lock of
// c's checkout. jc is the job's cache (nil: a new one), which reads the
// links and add-ons once for the commits, cleanup and squash.
func (s *Service) commitLocked(ctx context.Context, repo *vcs.Repo, c index.Component, user *index.User,
	jc *jobCache) (index.CommitResult, error) {
	if jc == nil {
		jc = s.newJobCache()
	}
	links, err := jc.links(ctx, c)
	if err != nil {
		return index.CommitResult{}, err
	}
	res, err := s.commitOne(ctx, repo, c, user, jc)
	if err != nil && !errors.Is(err, index.ErrConflict) {
		return res, err
	}
	err = errors.Join(err, s.commitLinks(ctx, repo, links, user, jc, &res))
	if len(res.Commits) > 0 && c.LinkedID == 0 {
		res.Commits = append(res.Commits, s.cleanupLocked(ctx, repo, c, links, jc)...)
		if serr := s.squashLocked(ctx, repo, c, links, jc, &res); serr != nil {
			return res, errors.Join(err, serr)
		}
	}
	return res, err
}

// commitOne is commitLocked for c's own pending edits.
func (s *Service) commitOne(ctx context.Context, repo *vcs.Repo, c index.Component, user *index.User,
	jc *jobCache) (index.CommitResult, error) {
	var res index.CommitResult
	// Most commits the scheduler and pulls ask for find nothing: one
	// count spares a look at every translation.
	if p, err := s.store.PendingUnits(ctx, c.ID); err == nil && !p.Any() {
		return res, nil
	}
	if err := markCommitting(repo); err != nil {
		return res, fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, err)
	}
	cm := &componentCommit{svc: s, c: c, user: user, res: &res, cache: jc,
		rec: index.Committed{ComponentID: c.ID, UserID: userID(user)}}
	// One batch: the commits follow each other under one hold of the
	// checkout, which writes its index and branch once at the end.
	err := repo.Batch(func(b *vcs.Batch) error {
		cm.repo = b
		return cm.all(ctx)
	})
	if err != nil {
		return res, err
	}
	if len(cm.rec.Translations) == 0 && len(cm.rec.Files) == 0 {
		return res, errors.Join(cm.unwritableErr(), repo.ClearMark(committingMark))
	}
	// Recorded with the edits it holds: whichever process commits next
	// builds on this commit, which none can once the edits are forgotten.
	if cm.rec.Head, err = s.headRecord(ctx, c, repo); err != nil {
		return res, fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, err)
	}
	if s.afterGitCommit != nil {
		if err := s.afterGitCommit(); err != nil {
			return res, err
		}
	}
	if err := s.store.MarkCommitted(ctx, cm.rec); err != nil {
		return res, fmt.Errorf("%s/%s: mark committed: %w", c.Project.Slug, c.Slug, err)
	}
	if err := repo.ClearMark(committingMark); err != nil {
		return res, fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, err)
	}
	res.Translations = len(cm.rec.Translations)
	s.opts.Logger.Info("pending edits committed", "project", c.Project.Slug, "component", c.Slug,
		"commits", len(res.Commits), "translations", res.Translations)
	return res, cm.unwritableErr()
}

// committingMark names the checkout's mark of HEAD as it was before a
// commit's git commits; it is cleared once the index has forgotten the
// edits they hold (MarkCommitted). A mark left behind is a commit cut
// short between the two (a crash, a failed index update), whose edits
// the index still calls pending though HEAD holds them.
const committingMark = "committing"

// markCommitting sets committingMark to HEAD before a commit, unless a
// commit cut short left it: the oldest mark stays, so that HEAD past it
// still tells that commits were made.
func markCommitting(repo *vcs.Repo) error {
	if mark, err := repo.Mark(committingMark); err != nil || mark != "" {
		return err
	}
	head, err := repo.Head()
	if err != nil {
		return err
	}
	return repo.SetMark(committingMark, head)
}

// settleCutCommit finishes, under the component's lock, a commit of
// this checkout cut short between git and the index (committingMark):
// the pending edits HEAD's files already hold are forgotten, as the next
// commit would forget them, but nothing is committed, so edits made
// since stay pending. A translation with any edit HEAD lacks keeps all
// of its own for that commit. Then the mark goes.
func (s *Service) settleCutCommit(ctx context.Context, c index.Component) error {
	repo, unlock, err := s.lockedCheckout(ctx, c)
	if err != nil {
		return err
	}
	defer unlock()
	mark, err := repo.Mark(committingMark)
	if err != nil || mark == "" {
		return err
	}
	head, err := repo.Head()
	if err != nil {
		return err
	}
	if head != mark {
		var res index.CommitResult
		cm := &componentCommit{svc: s, c: c, res: &res, forgetOnly: true, rec: index.Committed{ComponentID: c.ID}}
		if err := repo.Batch(func(b *vcs.Batch) error {
			cm.repo = b
			return cm.all(ctx)
		}); err != nil {
			return err
		}
		if len(cm.rec.Translations) > 0 || len(cm.rec.Files) > 0 {
			if cm.rec.Head, err = s.headRecord(ctx, c, repo); err != nil {
				return err
			}
			if err := s.store.MarkCommitted(ctx, cm.rec); err != nil {
				return fmt.Errorf("mark committed: %w", err)
			}
			s.opts.Logger.Info("cut-short commit settled", "project", c.Project.Slug, "component", c.Slug,
				"translations", len(cm.rec.Translations), "files", len(cm.rec.Files))
		}
	}
	return repo.ClearMark(committingMark)
}

// all makes the component's commits: deleted files, then each
// translation's, and sets the revisions the index is to record.
func (cm *componentCommit) all(ctx context.Context) error {
	s, c := cm.svc, cm.c
	if !cm.forgetOnly {
		cm.restyle = s.jsonRestyler(ctx, cm.cache, c)
	}
	files, err := s.store.FindPendingFiles(ctx, c.ID)
	if err != nil {
		return fmt.Errorf("%s/%s: pending files: %w", c.Project.Slug, c.Slug, err)
	}
	// An add is one language's: in a one-file component every
	// translation's file is the one path.
	type fileOf struct{ path, lang string }
	adds := map[fileOf]index.PendingFile{}
	for _, f := range files {
		if f.Operation == "add" {
			adds[fileOf{f.Path, f.LanguageCode}] = f
			continue
		}
		if err := cm.deleteFile(ctx, f); err != nil {
			return err
		}
	}
	ts, err := s.store.FindTranslations(ctx, c.ID)
	if err != nil {
		return fmt.Errorf("%s/%s: translations: %w", c.Project.Slug, c.Slug, err)
	}
	var touched []index.Translation
	for _, t := range ts {
		if t.Filename == "" {
			continue
		}
		add, isAdd := adds[fileOf{t.Filename, t.LanguageCode}]
		ok, err := cm.translation(ctx, t, add, isAdd)
		var broken *unwritableError
		if errors.As(err, &broken) {
			// One file upstream broke must not hold up the others:
			// its edits wait, the rest are committed.
			cm.broken = append(cm.broken, broken.Error())
			continue
		}
		if err != nil {
			return err
		}
		if ok {
			touched = append(touched, t)
		}
	}
	return cm.revisions(ts, touched)
}

// componentCommit is one run of commitLocked.
type componentCommit struct {
	svc  *Service
	repo *vcs.Batch // the commits' batch
	c    index.Component
	user *index.User
	rec  index.Committed
	res  *index.CommitResult
	// broken are the files whose edits could not be written, each as
	// "path: why".
	broken []string
	// forgetOnly makes no commit: only what HEAD already holds is
	// recorded as done (settleCutCommit).
	forgetOnly bool
	// restyle lays out each file written as the component's JSON
	// customize add-on says (addon_json.go); nil when it has none.
	restyle func([]byte) []byte
	// cache is the commit job's (jobCache); nil with forgetOnly.
	cache *jobCache
}

// deleteFile commits the deletion of a removed translation's file; a
// file HEAD does not hold (deleted by an earlier commit whose index
// update was lost) needs no commit.
func (cm *componentCommit) deleteFile(ctx context.Context, f index.PendingFile) error {
	if _, one := oneFileCodec(&cm.c); one && cm.forgetOnly {
		// Done when HEAD's file holds nothing of the language.
		data, err := cm.repo.ReadFile(f.Path)
		if err != nil {
			return nil
		}
		lang, _ := cm.svc.langs.Resolve(f.LanguageCode)
		if out, err := cm.withoutLanguage(f.Path, lang); err != nil || !bytes.Equal(out, data) {
			return nil
		}
		cm.rec.Files = append(cm.rec.Files, f)
		return nil
	}
	if cm.forgetOnly {
		if _, err := cm.repo.ReadFile(f.Path); !errors.Is(err, vcs.ErrNotExist) {
			return err // HEAD still holds the file (or cannot say): the deletion waits
		}
		cm.rec.Files = append(cm.rec.Files, f)
		return nil
	}
	author := cm.svc.opts.Committer
	if f.UserID != 0 {
		if u, err := cm.svc.store.FindUserByID(ctx, f.UserID); err == nil {
			author = cm.svc.signature(u)
		}
	}
	lang, _ := cm.svc.langs.Resolve(f.LanguageCode)
	msg, err := RenderMessage(cm.c.DeleteMessage, cm.vars(index.Translation{LanguageCode: f.LanguageCode,
		Language: lang}, author.Name))
	if err != nil {
		return err
	}
	o := vcs.CommitOptions{Remove: []string{f.Path}, Message: msg, Author: author}
	if _, one := oneFileCodec(&cm.c); one {
		// The file holds the other languages too: only the removed
		// language's values leave it.
		out, err := cm.withoutLanguage(f.Path, lang)
		if err != nil {
			return &unwritableError{path: f.Path, err: err}
		}
		o = vcs.CommitOptions{Files: map[string][]byte{f.Path: out}, Message: msg, Author: author}
	}
	if err := cm.commit(ctx, o); err != nil {
		return err
	}
	cm.rec.Files = append(cm.rec.Files, f)
	return nil
}

// withoutLanguage returns the one file of a one-file component at path
// with every value of lang taken out (the codec's Remove of each of its
// units in that language), the other languages' bytes kept.
func (cm *componentCommit) withoutLanguage(path string, lang index.Language) ([]byte, error) {
	data, err := cm.repo.ReadFile(path)
	if err != nil {
		return nil, err
	}
	codec, err := codecOf(&cm.c)
	if err != nil {
		return nil, err
	}
	f := cm.svc.fileOf(&cm.c, lang, false)
	units, err := codec.Decode(data, f)
	if err != nil {
		return nil, err
	}
	keys := make([]formats.Key, len(units))
	for i, u := range units {
		keys[i] = formats.Key{Context: u.Context, Source: strings.Join(u.Source, "")}
	}
	return codec.Remove(data, f, keys)
}

// translation commits t's pending units, one commit per author, and
// reports whether t had anything to commit.
func (cm *componentCommit) translation(ctx context.Context, t index.Translation, add index.PendingFile, isAdd bool) (bool, error) {
	s := cm.svc
	pending, err := s.store.FindPendingUnits(ctx, t.ID)
	if err != nil {
		return false, fmt.Errorf("%s: pending units: %w", t.Filename, err)
	}
	removed, err := s.store.RemovedUnits(ctx, t.ID)
	if err != nil {
		return false, fmt.Errorf("%s: removed units: %w", t.Filename, err)
	}
	if len(pending) == 0 && len(removed) == 0 && !isAdd {
		return false, nil
	}
	authors, err := s.store.PendingAuthors(ctx, t.ID)
	if err != nil {
		return false, fmt.Errorf("%s: pending authors: %w", t.Filename, err)
	}
	data, err := cm.repo.ReadFile(t.Filename)
	exists := err == nil
	switch {
	case errors.Is(err, vcs.ErrNotExist) && cm.forgetOnly:
		return false, nil
	case errors.Is(err, vcs.ErrNotExist):
		data, err = cm.newFile(t)
		if err != nil {
			return false, err
		}
	case err != nil:
		return false, fmt.Errorf("%s: %w", t.Filename, err)
	}
	// A file that is a symbolic link inside the repository (zh_TW.json
	// -> zh_Hant.json) is written where the link leads, as the
	// reference's checkout writes through it. Translations sharing the
	// file commit one after the other, each reading what the previous
	// committed.
	path := t.Filename
	if exists {
		if path, err = cm.repo.Resolve(t.Filename); err != nil {
			return false, fmt.Errorf("%s: %w", t.Filename, err)
		}
	}
	ct := index.CommittedTranslation{TranslationID: t.ID, Units: pending}
	groups := byAuthor(pending, authors)
	if len(groups) == 0 && len(removed) == 0 {
		// A new file with nothing translated yet: its author is who
		// added the translation.
		groups = []authorUnits{{author: index.User{ID: add.UserID}}}
		if add.UserID != 0 {
			if u, err := s.store.FindUserByID(ctx, add.UserID); err == nil {
				groups[0].author = u
			}
		}
	}
	file := s.fileOfTranslation(&cm.c, t)
	for _, g := range groups {
		// The commit's author and time are what a format's header
		// records of the change (PO's Last-Translator and
		// PO-Revision-Date); the commit carries the same time.
		author := s.signature(g.author)
		if author.When.IsZero() {
			author.When = time.Now()
		}
		file.Translator, file.Revised = author.Name+" <"+author.Email+">", author.When
		out, err := render(&cm.c, data, file, g.units)
		if err != nil {
			return false, &unwritableError{path: t.Filename, err: err}
		}
		out = cm.styled(out)
		if exists && bytes.Equal(out, data) {
			// Already what HEAD holds: committed before the index
			// learnt it, or an edit back to the committed value.
			continue
		}
		if cm.forgetOnly {
			return false, nil
		}
		tmpl := cm.c.CommitMessage
		if !exists {
			tmpl = cm.c.AddMessage
		}
		msg, err := RenderMessage(tmpl, cm.vars(t, author.Name))
		if err != nil {
			return false, err
		}
		if err := cm.commit(ctx, vcs.CommitOptions{Files: map[string][]byte{path: out},
			Message: msg, Author: author}); err != nil {
			return false, err
		}
		data, exists, ct.Record = out, true, true
	}
	if len(removed) > 0 {
		out, done, err := withoutUnits(&cm.c, data, file, removed)
		if err != nil {
			return false, &unwritableError{path: t.Filename, err: err}
		}
		out = cm.styled(out)
		ct.Removed = done
		if cm.forgetOnly && !bytes.Equal(out, data) {
			return false, nil
		}
		if !bytes.Equal(out, data) {
			// The removed_units rows do not say who removed a string: the
			// commit is by whoever asked for it.
			var who index.User
			if cm.user != nil {
				who = *cm.user
			}
			author := s.signature(who)
			msg, err := RenderMessage(cm.c.CommitMessage, cm.vars(t, author.Name))
			if err != nil {
				return false, err
			}
			if err := cm.commit(ctx, vcs.CommitOptions{Files: map[string][]byte{path: out},
				Message: msg, Author: author}); err != nil {
				return false, err
			}
			ct.Record = true
		}
	}
	if isAdd && exists {
		cm.rec.Files = append(cm.rec.Files, add)
	}
	cm.rec.Translations = append(cm.rec.Translations, ct)
	return true, nil
}

// unwritableError is a translation file whose edits cannot be written
// into the file at HEAD, which does not parse (upstream broke it).
type unwritableError struct {
	path string
	err  error
}

func (e *unwritableError) Error() string { return e.path + ": " + e.err.Error() }
func (e *unwritableError) Unwrap() error { return e.err }

// unwritableErr is the commit's failure when files could not be
// written: a message a translator can act on (the files and the
// positions), while their edits wait for repaired files.
func (cm *componentCommit) unwritableErr() error {
	if len(cm.broken) == 0 {
		return nil
	}
	return index.Errorf(index.ErrConflict, "Could not commit %s/%s: %s",
		cm.c.Project.Slug, cm.c.Slug, strings.Join(cm.broken, "; "))
}

// newFile returns what translation t's file starts from when HEAD
// lacks it: the component's new_base when it names a file HEAD holds,
// else the template when the component is monolingual, else an empty
// file of the format (nil). When the codec is a formats.Templater, the
// base is emptied for t's language (every value untranslated, the
// shape of the file kept, a PO header filled in as msginit does), as
// the reference untranslates the base store of a new translation.
func (cm *componentCommit) newFile(t index.Translation) ([]byte, error) {
	// A format without a codec fails where the file is rendered.
	codec, _ := codecOf(&cm.c)
	tm, canEmpty := codec.(formats.Templater)
	base := cm.c.NewBase
	if base != "" {
		if _, err := cm.repo.BlobHash(base); errors.Is(err, vcs.ErrNotExist) {
			base = ""
		}
	}
	if base == "" {
		if !cm.c.IsMonolingual() || !canEmpty {
			return nil, nil
		}
		base = cm.c.Template
	}
	data, err := cm.repo.ReadFile(base)
	if errors.Is(err, vcs.ErrNotExist) {
		return nil, nil
	}
	if err != nil || !canEmpty {
		return data, err
	}
	f := cm.svc.fileOfTranslation(&cm.c, t)
	f.Template = false
	return tm.Emptied(data, f)
}

// commit makes one commit with the service's committer; a commit that
// changes nothing is not an error.
func (cm *componentCommit) commit(ctx context.Context, o vcs.CommitOptions) error {
	committer := cm.svc.opts.Committer
	o.Committer = &committer
	h, err := cm.repo.Commit(ctx, o)
	if errors.Is(err, vcs.ErrNothingToCommit) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s/%s: %w", cm.c.Project.Slug, cm.c.Slug, err)
	}
	cm.res.Commits = append(cm.res.Commits, h)
	return nil
}

// revisions sets the new revision of each committed translation as the
// import computes it (sync/import.go), so that the import skips the
// files Tolk wrote: blob hash, and for a monolingual component the
// template's after a comma, which changes every translation's revision
// when the template was committed. A bilingual source translation's
// revision (a hash of every file) is left for the import to recompute.
func (cm *componentCommit) revisions(all, touched []index.Translation) error {
	if len(touched) == 0 {
		return nil
	}
	tmpl := ""
	targets := touched
	if _, one := oneFileCodec(&cm.c); one {
		// Every translation's file is the one file, and a commit
		// changes only its own language's values in it: the others'
		// content is what the import read, at the new blob.
		targets = all
	}
	if cm.c.IsMonolingual() {
		var err error
		if tmpl, err = cm.repo.BlobHash(cm.c.Template); err != nil {
			return fmt.Errorf("%s: %w", cm.c.Template, err)
		}
		for _, t := range touched {
			if t.IsTemplate {
				targets = all
			}
		}
	}
	rev := map[int64]string{}
	for _, t := range targets {
		if t.Filename == "" {
			continue
		}
		h, err := cm.repo.BlobHash(t.Filename)
		if errors.Is(err, vcs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", t.Filename, err)
		}
		if cm.c.IsMonolingual() {
			h += "," + tmpl
		}
		rev[t.ID] = h
	}
	for i := range cm.rec.Translations {
		ct := &cm.rec.Translations[i]
		ct.Revision = rev[ct.TranslationID]
		delete(rev, ct.TranslationID)
	}
	// Translations whose file did not change but whose revision names the
	// template.
	for id, r := range rev {
		cm.rec.Translations = append(cm.rec.Translations, index.CommittedTranslation{TranslationID: id, Revision: r})
	}
	sort.Slice(cm.rec.Translations, func(i, j int) bool {
		return cm.rec.Translations[i].TranslationID < cm.rec.Translations[j].TranslationID
	})
	return nil
}

// vars are the message variables for a commit of t.
func (cm *componentCommit) vars(t index.Translation, author string) MessageVars {
	name := t.Language.Name
	if name == "" {
		name = t.LanguageCode
	}
	url := fmt.Sprintf("%s/projects/%s/%s/%s/", cm.svc.opts.SiteURL, cm.c.Project.Slug, cm.c.Slug, t.LanguageCode)
	return MessageVars{LanguageName: name, LanguageCode: t.LanguageCode, ProjectName: cm.c.Project.Name,
		ProjectSlug: cm.c.Project.Slug, ComponentName: cm.c.Name, ComponentSlug: cm.c.Slug, URL: url,
		Author: author, Filename: t.Filename, ComponentRemoteBranch: cm.c.Branch, SiteTitle: "Tolk",
		SiteURL: cm.svc.opts.SiteURL, Stats: t.Stats}
}

// authorUnits are the pending units of one author.
type authorUnits struct {
	author index.User
	units  []index.Unit
}

// byAuthor groups units by author, in the order of each author's first
// unit; units without a known author form one group of their own.
func byAuthor(units []index.Unit, authors map[int64]index.User) []authorUnits {
	var out []authorUnits
	at := map[int64]int{}
	for _, u := range units {
		a := authors[u.ID]
		i, ok := at[a.ID]
		if !ok {
			i = len(out)
			at[a.ID] = i
			out = append(out, authorUnits{author: a})
		}
		out[i].units = append(out[i].units, u)
	}
	return out
}

// signature is the commit signature of u: their full name (else
// username) and e-mail; a user without an e-mail gets the reference's
// private address (privateEmail), so every edit keeps its author. An
// edit without a user is the committer's.
func (s *Service) signature(u index.User) vcs.Signature {
	name := u.FullName
	if name == "" {
		name = u.Username
	}
	if name == "" {
		return s.opts.Committer
	}
	email := u.Email
	if email == "" {
		email = privateEmail(u, s.authorDomain)
	}
	return vcs.Signature{Name: name, Email: email}
}

// privateEmail is the address the reference gives the commits of a user
// without one: its PRIVATE_COMMIT_EMAIL_TEMPLATE's default,
// "{username}@users.noreply.{site_domain}", lower-cased
// (weblate/accounts/models.py, format_private_email). A username that
// would end in or double a full stop has its full stops made
// underscores; one that is still no dot-atom local part (Tolk's allow
// "@") becomes "user-<id>".
func privateEmail(u index.User, domain string) string {
	local := u.Username
	if strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
		local = strings.ReplaceAll(local, ".", "_")
	}
	if local == "" || local[0] == '.' || strings.ContainsFunc(local, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".!#$%&'*+-/=?^_`{|}~", r))
	}) {
		local = fmt.Sprintf("user-%d", u.ID)
	}
	return strings.ToLower(local) + "@users.noreply." + domain
}

// authorDomain is the site domain of privateEmail: the host of siteURL
// without its port, when that is a name; else (no site address, or an
// IP address) the domain of the committer's e-mail, which the operator
// chose, by default "tolk.invalid".
func authorDomain(siteURL string, committer vcs.Signature) string {
	if u, err := url.Parse(siteURL); err == nil && u.Hostname() != "" && net.ParseIP(u.Hostname()) == nil {
		return strings.ToLower(u.Hostname())
	}
	if _, domain, ok := strings.Cut(committer.Email, "@"); ok && domain != "" {
		return strings.ToLower(domain)
	}
	return "tolk.invalid"
}

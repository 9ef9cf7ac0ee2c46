package sync

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// ImportSummary says what one component import did.
type ImportSummary struct {
	Revision                string // HEAD commit of the checkout
	Files                   int    // files matching the filemask
	Parsed, Skipped         int    // files parsed, files unchanged since the last import
	Failed                  int    // files that failed to parse
	Added, Updated, Removed int    // units
	// StaleRemoved are the languages whose translations were removed
	// because no file matches them any more.
	StaleRemoved []string
	// SkippedFiles are the files matching the filemask that were not
	// imported, with why (vcs.Listing.Skipped).
	SkippedFiles []index.SkippedFile
}

// translationFile is one file matching the filemask.
type translationFile struct {
	vcs.File
	lang index.Language
}

// ImportComponent brings a component's checkout up to date with its
// remote and reconciles the index with its files: it is Pull by nobody.
// Files whose content the index already reflects (same blob hashes) are
// not parsed. A file that fails to parse marks only its translation.
func (s *Service) ImportComponent(ctx context.Context, c index.Component) (ImportSummary, error) {
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return ImportSummary{}, err
	}
	unlock, err := s.lockComponent(ctx, c.ID)
	if err != nil {
		return ImportSummary{}, err
	}
	defer unlock()
	return s.pullLocked(ctx, c, nil, pullOptions{push: true})
}

// checkedOut is a component's checkout made ready for its import.
type checkedOut struct {
	c    index.Component
	repo *vcs.Repo
	err  error
	took time.Duration // the checkout's own time, for the log
	// in is what moving onto upstream did; after the import, edits it
	// made pending again are committed on top.
	in integration
	// user asked for the update (nil: nobody, a schedule or a hook);
	// push allows pushing what the update commits (push_on_commit).
	user *index.User
	push bool
	// report, when set, hears how many of the files have been indexed.
	report func(done, total int)
	// linkSums, when set, receives the summary of each linked
	// component's import (importLinks) by its id.
	linkSums map[int64]ImportSummary
	// cache is what the job reads once (jobCache); importCheckout
	// makes it when nil, and the linked components' imports share it.
	cache *jobCache
}

// checkoutTimed runs checkout and times it; the caller holds the
// component's lock.
func (s *Service) checkoutTimed(ctx context.Context, c index.Component) checkedOut {
	start := time.Now()
	repo, in, err := s.checkout(ctx, c)
	return checkedOut{c: c, repo: repo, in: in, err: err, took: time.Since(start)}
}

// importCheckout reconciles the index with a component's checkout and
// records how it went (recordImport), then does the same for the
// components linked to it (importLinks); the caller holds the
// component's lock.
func (s *Service) importCheckout(ctx context.Context, co checkedOut) (ImportSummary, error) {
	if co.cache == nil {
		co.cache = s.newJobCache()
	}
	sum, err := s.importFiles(ctx, co)
	if err = errors.Join(err, s.recordImport(ctx, co.c, sum, err)); err != nil {
		return sum, err
	}
	return sum, s.importLinks(ctx, co)
}

// recordImport stores how an import or update of c went, for the API
// (index.Component.Import): the text of failure, or the files it
// skipped. A cancelled import records nothing, so that a shutdown does
// not read as a failure.
func (s *Service) recordImport(ctx context.Context, c index.Component, sum ImportSummary, failure error) error {
	if ctx.Err() != nil {
		return nil
	}
	st := index.ImportStatus{Skipped: sum.SkippedFiles}
	if failure != nil {
		// vcs redacts credentials from its errors: safe to store and show.
		st.Error = failure.Error()
	}
	if err := s.store.RecordImport(ctx, c.ID, st); err != nil {
		return fmt.Errorf("record import of %s/%s: %w", c.Project.Slug, c.Slug, err)
	}
	return nil
}

// importFiles is importCheckout without the record.
func (s *Service) importFiles(ctx context.Context, co checkedOut) (sum ImportSummary, err error) {
	start := time.Now()
	c, repo := co.c, co.repo
	log := s.opts.Logger.With("project", c.Project.Slug, "component", c.Slug)
	if s.opts.OnImportDone != nil {
		defer func() { s.opts.OnImportDone(c, sum, co.took+time.Since(start), err) }()
	}
	if co.err != nil {
		return sum, co.err
	}
	if sum.Revision, err = repo.Head(); err != nil {
		return sum, err
	}
	files, skipped, err := s.matchFiles(ctx, c, repo, log)
	if err != nil {
		return sum, err
	}
	sum.Files, sum.SkippedFiles = len(files), skipped
	revisions, err := s.store.TranslationRevisions(ctx, c.ID)
	if err != nil {
		return sum, err
	}
	base := co.in.base
	if base != "" {
		// The base's texts only tell apart pending edits (Base): with
		// none, the import reads no file at the base.
		if p, err := s.store.PendingUnits(ctx, c.ID); err == nil && p.Units == 0 {
			base = ""
		}
	}
	// A format without a codec fails each file's parse, as a file that
	// does not parse does.
	codec, _ := codecOf(&c)
	newUnits, err := flagAddons(ctx, co.cache, c)
	if err != nil {
		return sum, err
	}
	imp := &componentImport{svc: s, c: c, codec: codec, review: c.Project.TranslationReview, newUnits: newUnits,
		repo: repo, files: files, revisions: revisions, sum: &sum, log: log, report: co.report, base: base,
		progress: &progressLog{log: log, every: s.opts.ProgressInterval, start: start, last: start}}
	if c.IsMonolingual() {
		err = imp.monolingual(ctx)
	} else {
		err = imp.bilingual(ctx)
	}
	if err != nil {
		return sum, err
	}
	// As the reference does, a translation whose file is gone (or no
	// longer matches the filemask) goes too.
	keep := []string{imp.sourceLanguage().Code}
	for _, f := range files {
		keep = append(keep, f.lang.Code)
	}
	if sum.StaleRemoved, err = s.store.RemoveStaleTranslations(ctx, c.ID, keep); err != nil {
		return sum, fmt.Errorf("remove stale translations: %w", err)
	}
	if err := repo.SetMark(importedMark, sum.Revision); err != nil {
		return sum, err
	}
	if co.in.moved() {
		if err := s.afterPull(ctx, co); err != nil {
			return sum, err
		}
	}
	if err := s.recordHead(ctx, c, repo); err != nil {
		return sum, err
	}
	s.afterImportAddons(ctx, co.cache, c, sum, co.in.moved())
	log.Info("component imported", "revision", sum.Revision, "files", sum.Files, "parsed", sum.Parsed,
		"skipped", sum.Skipped, "failed", sum.Failed, "added", sum.Added, "updated", sum.Updated,
		"removed", sum.Removed, "duration", co.took+time.Since(start))
	return sum, nil
}

// checkout opens, clones or initialises the component's repository
// (openOrClone) and moves it onto upstream (integrate).
func (s *Service) checkout(ctx context.Context, c index.Component) (*vcs.Repo, integration, error) {
	repo, err := s.openOrClone(ctx, c)
	if err != nil || isLocal(c) {
		return repo, integration{}, err
	}
	// On failure the checkout is still returned: what it holds can be
	// indexed (finishLocal) though upstream could not be brought in.
	in, err := s.integrate(ctx, c, repo)
	return repo, in, err
}

// isLocal reports whether Tolk owns the component's repository (vcs
// "local"): it has no remote.
func isLocal(c index.Component) bool {
	return c.VCS == "local" || strings.HasPrefix(c.Repo, "local:")
}

// openOrClone opens the component's checkout, cloning it (or, for a
// repository Tolk owns, initialising it) first when missing, and moves
// it to the recorded head (catchUp).
func (s *Service) openOrClone(ctx context.Context, c index.Component) (*vcs.Repo, error) {
	dir := s.repoDir(c)
	var repo *vcs.Repo
	var err error
	if isLocal(c) {
		repo, err = vcs.InitLocal(dir)
	} else {
		if err := s.adoptPrepared(dir, c); err != nil {
			return nil, err
		}
		// The import reads files from the object store; the working
		// tree is checked out when a commit first needs it
		// (vcs.CloneOptions).
		// What a cut-off fetch left goes first; the update that
		// follows fetches again.
		if _, err := s.checkPacks(c); err != nil {
			return nil, err
		}
		repo, err = vcs.OpenOrClone(ctx, vcs.CloneOptions{URL: c.Repo, Branch: c.Branch, Dir: dir, NoCheckout: true,
			Timeouts: s.opts.GitTimeouts, Guard: s.guard(c)})
		if err != nil {
			repo, err = s.recloneIfLost(ctx, c, err)
		}
	}
	if err != nil {
		return nil, err
	}
	if err := s.catchUp(ctx, c, repo); err != nil {
		// Not even for finishLocal: importing a checkout behind the
		// recorded head would take back what another process committed.
		return nil, err
	}
	return repo, nil
}

// finishLocal is importCheckout for a checkout upstream could not be
// brought into (co.err; an unreachable remote): it indexes the checkout
// as it stands, which finishes an update a crash cut short between
// moving the branch and importing, instead of serving a mix of two
// revisions until the remote answers again; then it returns the failure.
// Without a checkout it only returns the failure.
func (s *Service) finishLocal(ctx context.Context, co checkedOut) (ImportSummary, error) {
	if co.err == nil || co.repo == nil || ctx.Err() != nil {
		return s.importCheckout(ctx, co)
	}
	failed := co.err
	co.err, co.in = nil, integration{}
	sum, err := s.importCheckout(ctx, co)
	return sum, errors.Join(failed, err)
}

// matchFiles lists the files of the filemask with their languages. Files
// whose code resolves to an unknown language get a language of their own
// (as the reference creates one); two files of one language keep the
// first by path.
//
// Only the part of the tree the filemask and the template can match is
// walked (Filemask.Scope); matching files the walk left out (odd names,
// symbolic links that leave the repository) come back as skipped, with
// the reason.
func (s *Service) matchFiles(ctx context.Context, c index.Component, repo *vcs.Repo, log interface {
	Warn(string, ...any)
}) ([]translationFile, []index.SkippedFile, error) {
	mask, err := componentMask(c)
	if err != nil {
		return nil, nil, err
	}
	scopes := []vcs.Scope{mask.Scope()}
	if c.Template != "" {
		scopes = append(scopes, pathScope(c.Template))
	}
	list, err := repo.Files(ctx, vcs.FilesOptions{Scopes: scopes,
		Match: func(path string) bool { return path == c.Template || mask.Match(path) }})
	if err != nil {
		return nil, nil, err
	}
	files := list.Files
	var skipped []index.SkippedFile
	for _, sk := range list.Skipped {
		log.Warn("file skipped", "file", sk.Path, "reason", sk.Reason)
		skipped = append(skipped, index.SkippedFile{Filename: sk.Path, Reason: sk.Reason})
	}
	// A translation deleted through the API keeps its file until the
	// next commit deletes it; importing the file would bring it back.
	pendingFiles, err := s.store.FindPendingFiles(ctx, c.ID)
	if err != nil {
		return nil, nil, err
	}
	deleted := map[string]bool{}
	for _, pf := range pendingFiles {
		if pf.Operation == "delete" {
			deleted[pf.Path] = true
		}
	}
	// The template goes first, so that it is the file kept for the
	// source language when another file names that language too (Apple's
	// en.lproj beside Base.lproj).
	slices.SortStableFunc(files, func(a, b vcs.File) int {
		return cmpBool(b.Path == c.Template, a.Path == c.Template)
	})
	seen := map[string]string{}
	var out []translationFile
	var unknown []index.Language
	add := func(f vcs.File, code string) {
		lang, ok := s.langs.Resolve(code)
		if !ok {
			if lang, ok = s.langs.Generate(code); !ok {
				lang = index.Language{Code: code, Name: code, Direction: "ltr", Aliases: []string{},
					Plural: index.Plural{Number: 2, Formula: "n != 1", Type: 1}}
			}
			unknown = append(unknown, lang)
		}
		// The language's rule as the component's files have it; what
		// is seeded above is the language's own.
		lang.Plural = FormatPlural(c.FileFormat, lang.Plural)
		if first, dup := seen[lang.Code]; dup {
			if first != f.Path {
				log.Warn("two files for one language; keeping the first", "language", lang.Code, "kept", first, "ignored", f.Path)
			}
			return
		}
		seen[lang.Code] = f.Path
		out = append(out, translationFile{File: f, lang: lang})
	}
	for _, f := range files {
		code, ok := mask.Code(f.Path)
		if f.Path == c.Template {
			// The template is the source translation wherever it lies:
			// outside the mask (values/ beside values-*/) or in a
			// segment that names no language (Base.lproj).
			code, ok = c.SourceLanguage, true
		}
		if !ok || deleted[f.Path] {
			continue
		}
		if mask.one == nil {
			add(f, code)
			continue
		}
		codes, err := s.oneFileCodes(ctx, c, repo, mask, f.Path, pendingFiles)
		if err != nil {
			return nil, nil, err
		}
		for _, code := range codes {
			add(f, code)
		}
	}
	if len(unknown) > 0 {
		if err := s.store.SeedLanguages(ctx, unknown); err != nil {
			return nil, nil, err
		}
	}
	return out, skipped, nil
}

// oneFileCodes returns the languages of a one-file component's file
// (formats.FileLanguages) as the file spells them, that language_regex
// allows, with the languages the index already keeps in that file: a
// language added through the API stays though the file cannot say it
// has one until a string of it is translated (a String Catalog holds
// localizations, not languages), until it is deleted through the API,
// whose pending deletion (pending, by language) takes it out. A file
// that does not parse gives the index's languages, each of which then
// carries the parse error; with none the error is the import's.
func (s *Service) oneFileCodes(ctx context.Context, c index.Component, repo *vcs.Repo, mask *Filemask,
	path string, pending []index.PendingFile) ([]string, error) {
	data, err := repo.ReadFile(path)
	if err != nil {
		return nil, err
	}
	inFile, perr := mask.one.FileLanguages(data)
	ts, err := s.store.FindTranslations(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	var known []string
	for _, t := range ts {
		if t.Filename == path && !t.IsSource {
			known = append(known, t.LanguageCode)
		}
	}
	if perr != nil && len(known) == 0 {
		return nil, fmt.Errorf("%s: %w", path, perr)
	}
	gone := map[string]bool{}
	for _, pf := range pending {
		if pf.Operation == "delete" && pf.Path == path {
			gone[pf.LanguageCode] = true
		}
	}
	var out []string
	for _, code := range append(inFile, known...) {
		if l, ok := s.langs.Resolve(code); ok && gone[l.Code] || gone[code] || !mask.allows(code) {
			continue
		}
		out = append(out, code)
	}
	return out, nil
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// componentImport carries one import's state.
type componentImport struct {
	svc   *Service
	c     index.Component
	codec formats.Codec // the component's format; nil when Tolk has none
	// review says the component's translations have review on: a unit
	// the file says was approved is StateApproved (stateOf).
	review    bool
	repo      *vcs.Repo
	files     []translationFile
	revisions map[string]string
	// base is the commit the checkout last synced with, when this
	// import follows a move onto upstream ("" otherwise): pending edits
	// are compared with its files (index.TranslationImport.Base).
	base   string
	sum    *ImportSummary
	report func(done, total int) // may be nil
	done   int                   // translations indexed, for report
	units  int                   // units written, for progress
	// progress logs how far a long import got; nil logs nothing.
	progress *progressLog
	// newUnits is what the flag add-ons do to new units (flagAddons).
	newUnits index.NewUnitFlags
	log      interface {
		Warn(string, ...any)
		Error(string, ...any)
	}
}

func (ci *componentImport) sourceLanguage() index.Language { return ci.svc.sourceLanguage(&ci.c) }

func (ci *componentImport) apply(ctx context.Context, imp index.TranslationImport) (index.ImportResult, error) {
	imp.NewUnits = ci.newUnits
	res, err := ci.svc.store.ImportTranslations(ctx, []index.TranslationImport{imp})
	if err != nil {
		return index.ImportResult{}, fmt.Errorf("import %s: %w", imp.LanguageCode, err)
	}
	ci.units += len(imp.Units)
	ci.count(res[0])
	return res[0], nil
}

func (ci *componentImport) count(res index.ImportResult) {
	ci.sum.Added += res.Added
	ci.sum.Updated += res.Updated
	ci.sum.Removed += res.Removed
	ci.done++
	if ci.report != nil {
		ci.report(ci.done, len(ci.files))
	}
	ci.progress.files(ci.done, len(ci.files), ci.units)
}

// progressLog writes an INFO line at most every interval while a
// component imports: files indexed of those matching the filemask, and
// units per second so far, so that an operator watching a long first
// import sees it moving and can tell how long it has left.
type progressLog struct {
	log         *slog.Logger
	every       time.Duration
	start, last time.Time // last: when the previous line was written
}

// files logs the progress if a line is due.
func (p *progressLog) files(done, total, units int) {
	if p == nil {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	elapsed := now.Sub(p.start)
	p.log.Info("import progress", "files_done", done, "files_total", total, "units", units,
		"units_per_second", math.Round(float64(units)/max(elapsed.Seconds(), 1e-9)), "elapsed", elapsed)
}

// failed turns a file that failed to parse into the import that marks
// its translation, so that the rest of the component still imports.
func (ci *componentImport) failed(imp index.TranslationImport, err error) index.TranslationImport {
	ci.sum.Failed++
	ci.log.Error("parse failed", "file", imp.Filename, "language", imp.LanguageCode, "err", err)
	imp.LoadError = err.Error()
	imp.Units = nil
	return imp
}

// fail records a parse failure on a translation and keeps going.
func (ci *componentImport) fail(ctx context.Context, imp index.TranslationImport, err error) (index.ImportResult, error) {
	return ci.apply(ctx, ci.failed(imp, err))
}

// templateFailed marks the source translation with err, why the template
// is missing or does not parse, and returns the import's failure: every
// translation of a monolingual component is read against its template,
// so none is imported, and the component carries the error
// (index.ImportStatus, /readyz, the component page), not only its source
// translation. Nothing else of the import runs: translations are not
// removed as stale, and the revision is not marked imported.
func (ci *componentImport) templateFailed(ctx context.Context, srcImp index.TranslationImport, err error) error {
	if _, ferr := ci.fail(ctx, srcImp, err); ferr != nil {
		return ferr
	}
	return fmt.Errorf("%w; no translation imported", err)
}

// importBatchUnits is about how many units one write transaction of an
// import carries: files go in batches of whole files up to it, so that
// the per-transaction costs (commit, statements, the source units looked
// up) are shared, while the write lock an edit through the API waits for
// is held a fraction of a second at most.
const importBatchUnits = 16384

// batcher gathers translation imports into write transactions of about
// importBatchUnits units.
type batcher struct {
	ci    *componentImport
	imps  []index.TranslationImport
	units int
}

// add queues imp and writes the batch once it is large enough.
func (b *batcher) add(ctx context.Context, imp index.TranslationImport) error {
	imp.NewUnits = b.ci.newUnits
	b.imps = append(b.imps, imp)
	b.units += len(imp.Units)
	if b.units < importBatchUnits {
		return nil
	}
	return b.flush(ctx)
}

// flush writes what is queued.
func (b *batcher) flush(ctx context.Context) error {
	if len(b.imps) == 0 {
		return nil
	}
	res, err := b.ci.svc.store.ImportTranslations(ctx, b.imps)
	if err != nil {
		return fmt.Errorf("import %d translations from %s: %w", len(b.imps), b.imps[0].Filename, err)
	}
	b.ci.units += b.units
	for _, r := range res {
		b.ci.count(r)
	}
	clear(b.imps) // the units are garbage once written
	b.imps, b.units = b.imps[:0], 0
	return nil
}

// monolingual imports a component whose template file gives the source
// strings: the template becomes the source translation and every other
// file is read against it.
func (ci *componentImport) monolingual(ctx context.Context) error {
	src := ci.sourceLanguage()
	var tmpl *translationFile
	for i := range ci.files {
		if ci.files[i].Path == ci.c.Template {
			tmpl = &ci.files[i]
		}
	}
	base := index.TranslationImport{ComponentID: ci.c.ID, Monolingual: true,
		TakeUpstream: ci.c.ConflictPolicy == index.ConflictUpstreamWins}
	srcImp := base
	srcImp.LanguageCode, srcImp.Filename, srcImp.IsSource, srcImp.IsTemplate = src.Code, ci.c.Template, true, true
	if tmpl == nil {
		return ci.templateFailed(ctx, srcImp, fmt.Errorf("template %s not found in the repository", ci.c.Template))
	}
	srcImp.Revision = tmpl.Hash + "," + tmpl.Hash

	var pending []translationFile
	for _, f := range ci.files {
		if f.Path == ci.c.Template || f.lang.Code == src.Code {
			continue
		}
		if ci.revisions[f.lang.Code] == f.Hash+","+tmpl.Hash {
			ci.sum.Skipped++
			continue
		}
		pending = append(pending, f)
	}
	srcCurrent := ci.revisions[src.Code] == srcImp.Revision
	if srcCurrent && len(pending) == 0 {
		ci.sum.Skipped++
		return nil
	}

	// The template is read even when the index holds it: its strings are
	// what each translation's units are built from.
	tmplUnits, err := ci.parse(tmpl.Path, src, true)
	if err != nil {
		return ci.templateFailed(ctx, srcImp, fmt.Errorf("template %w", err))
	}
	for _, u := range tmplUnits {
		srcImp.Units = append(srcImp.Units, index.ImportUnit{Context: u.Context, Source: u.Target,
			Target: u.Target, Note: u.Note, Explanation: u.Explanation, Flags: strings.Join(u.Flags, ", "),
			Location: u.Location, State: index.StateReadOnly})
	}
	// A template the index already holds is not imported again: a pull
	// that changed one translation writes that one only.
	srcID := int64(0)
	if srcCurrent {
		if srcID, err = ci.sourceID(ctx, src.Code); err != nil {
			return err
		}
	}
	if srcID != 0 {
		ci.sum.Skipped++
	} else {
		srcImp.Base = ci.baseTexts(src, tmpl.Path)
		srcRes, err := ci.apply(ctx, srcImp)
		if err != nil {
			return err
		}
		srcID = srcRes.TranslationID
	}

	build := func(f translationFile) (index.TranslationImport, error) {
		imp := base
		imp.LanguageCode, imp.Filename = f.lang.Code, f.Path
		imp.Revision = f.Hash + "," + tmpl.Hash
		imp.SourceTranslationID = srcID
		imp.Base = ci.baseTexts(f.lang, f.Path)
		units, err := ci.parse(f.Path, f.lang, false)
		if err != nil {
			return imp, err
		}
		targets := make(map[string]formats.Unit, len(units))
		for _, u := range units {
			targets[u.Context] = u
		}
		imp.Units = make([]index.ImportUnit, 0, len(srcImp.Units))
		for _, su := range srcImp.Units {
			iu := index.ImportUnit{Context: su.Context, Source: su.Source, Target: emptyForms(su.Source, f.lang),
				Explanation: su.Explanation, Location: su.Location, State: index.StateEmpty}
			if tu, ok := targets[su.Context]; ok {
				iu.Target, iu.Note = tu.Target, tu.Note
				if tu.Location != "" {
					iu.Location = tu.Location
				}
				iu.State = stateOf(tu, ci.review)
			}
			imp.Units = append(imp.Units, iu)
		}
		return imp, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	ready := readAhead(ctx, pending, build)
	defer func() {
		cancel()
		for range ready { // wait for the reader: it shares ci.sum and the checkout
		}
	}()
	batch := batcher{ci: ci}
	for p := range ready {
		imp := p.imp
		if p.err != nil {
			imp = ci.failed(imp, p.err)
		}
		if err := batch.add(ctx, imp); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return batch.flush(ctx)
}

// sourceID is the id of the component's source translation (language
// code) in the index; 0 when it has none.
func (ci *componentImport) sourceID(ctx context.Context, code string) (int64, error) {
	ts, err := ci.svc.store.FindTranslations(ctx, ci.c.ID)
	if err != nil {
		return 0, err
	}
	for _, t := range ts {
		if t.IsSource && t.LanguageCode == code {
			return t.ID, nil
		}
	}
	return 0, nil
}

// readAheadFiles is how many files wait read and parsed for the writer.
const readAheadFiles = 2

// built is one file made ready for the index, or the error that kept it
// from being read.
type built struct {
	imp index.TranslationImport
	err error
}

// readAhead runs build over files, in order, on a goroutine of its own,
// so that reading Git objects and parsing (a fifth of an import) overlap
// the index's single writer instead of waiting for it. The channel closes
// when every file is built or ctx ends; cancel ctx to stop it early. build
// must not touch what the caller's loop touches.
func readAhead(ctx context.Context, files []translationFile,
	build func(translationFile) (index.TranslationImport, error)) <-chan built {
	out := make(chan built, readAheadFiles)
	go func() {
		defer close(out)
		for _, f := range files {
			imp, err := build(f)
			select {
			case out <- built{imp, err}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// bilingual imports a component without a template (TBX glossaries):
// every file carries source and target, and the source translation is
// the union of the files' source strings, in first-seen order.
func (ci *componentImport) bilingual(ctx context.Context) error {
	src := ci.sourceLanguage()
	h := sha1.New()
	for _, f := range ci.files {
		fmt.Fprintf(h, "%s %s\n", f.Path, f.Hash)
	}
	srcImp := index.TranslationImport{ComponentID: ci.c.ID, LanguageCode: src.Code, IsSource: true,
		Revision: hex.EncodeToString(h.Sum(nil))}
	// Translations commit in batches, so an import cut short leaves some
	// revisions behind; only skip when every one is current.
	current := ci.revisions[src.Code] == srcImp.Revision
	for _, f := range ci.files {
		if f.lang.Code != src.Code && ci.revisions[f.lang.Code] != f.Hash {
			current = false
		}
	}
	if current {
		ci.sum.Skipped += len(ci.files)
		return nil
	}
	var targets []translationFile
	for _, f := range ci.files {
		if f.lang.Code != src.Code {
			targets = append(targets, f)
		}
	}
	all := ci.parseFiles(targets)
	seen := map[int64]bool{}
	for _, p := range all {
		for _, u := range p.units {
			hash := index.IDHash(false, u.Source, u.Context)
			if seen[hash] {
				continue
			}
			seen[hash] = true
			srcImp.Units = append(srcImp.Units, index.ImportUnit{Context: u.Context, Source: u.Source,
				Target: u.Source, Explanation: u.Explanation, Flags: strings.Join(u.Flags, ", "),
				Location: u.Location, State: index.StateReadOnly})
		}
	}
	srcRes, err := ci.apply(ctx, srcImp)
	if err != nil {
		return err
	}
	batch := batcher{ci: ci}
	for _, p := range all {
		imp := index.TranslationImport{ComponentID: ci.c.ID, LanguageCode: p.f.lang.Code, Filename: p.f.Path,
			Revision: p.f.Hash, SourceTranslationID: srcRes.TranslationID,
			TakeUpstream: ci.c.ConflictPolicy == index.ConflictUpstreamWins}
		if p.err != nil {
			if err := batch.add(ctx, ci.failed(imp, p.err)); err != nil {
				return err
			}
			continue
		}
		if ci.revisions[p.f.lang.Code] == p.f.Hash {
			ci.sum.Skipped++
			continue
		}
		for _, u := range p.units {
			imp.Units = append(imp.Units, importUnit(u, ci.review))
		}
		imp.Base = ci.baseTexts(p.f.lang, p.f.Path)
		if err := batch.add(ctx, imp); err != nil {
			return err
		}
	}
	return batch.flush(ctx)
}

// parsedFile is one translation's file parsed, or the error that kept
// it from being read.
type parsedFile struct {
	f     translationFile
	units []formats.Unit
	err   error
}

// parseFiles parses files, in order, each in its language. A codec that
// reads several languages from one parse (formats.LanguagesDecoder: a
// String Catalog, whose every language is one file) reads each file once
// for all the languages it holds, rather than once per language.
func (ci *componentImport) parseFiles(files []translationFile) []parsedFile {
	out := make([]parsedFile, len(files))
	ld, _ := ci.codec.(formats.LanguagesDecoder)
	if ld == nil {
		for i, f := range files {
			units, err := ci.parse(f.Path, f.lang, false)
			out[i] = parsedFile{f, units, err}
		}
		return out
	}
	byPath := map[string][]int{}
	var paths []string
	for i, f := range files {
		if _, ok := byPath[f.Path]; !ok {
			paths = append(paths, f.Path)
		}
		byPath[f.Path] = append(byPath[f.Path], i)
	}
	for _, path := range paths {
		idx := byPath[path]
		fs := make([]formats.File, len(idx))
		for k, i := range idx {
			fs[k] = ci.svc.fileOf(&ci.c, files[i].lang, false)
		}
		var all [][]formats.Unit
		data, err := ci.repo.ReadFile(path)
		if err == nil {
			ci.sum.Parsed += len(idx) // one per translation, as parse counts
			if all, err = ld.DecodeLanguages(data, fs); err != nil {
				err = fmt.Errorf("%s: %w", path, err)
			}
		}
		for k, i := range idx {
			out[i] = parsedFile{f: files[i], err: err}
			if err == nil {
				out[i].units = all[k]
			}
		}
	}
	return out
}

// stateOf derives a unit's state from what its file says of it: a
// read-only flag, an empty target, the format's fuzzy or approved mark.
// Approved is only a state where review is on (review: the project's
// translation review); elsewhere an approved unit is translated, as the
// reference reads one.
func stateOf(u formats.Unit, review bool) index.State {
	for _, f := range u.Flags {
		if f == "read-only" {
			return index.StateReadOnly
		}
	}
	if index.IsBlank(u.Target) {
		return index.StateEmpty
	}
	switch {
	case u.Fuzzy:
		return index.StateFuzzy
	case u.Approved && review:
		return index.StateApproved
	}
	return index.StateTranslated
}

// parse reads one file of the component's format from the checkout, in
// the target language; template says it is the template.
func (ci *componentImport) parse(path string, target index.Language, template bool) ([]formats.Unit, error) {
	data, err := ci.repo.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ci.sum.Parsed++
	if ci.codec == nil {
		_, err := codecOf(&ci.c)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	units, err := ci.codec.Decode(data, ci.svc.fileOf(&ci.c, target, template))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return units, nil
}

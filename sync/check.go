package sync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// preparedClone is a clone CheckComponent made and left for the import
// of the component it checked.
type preparedClone struct {
	dir         string // the clone, under DataDir/tmp
	url, branch string
	made        time.Time
}

// preparedRetention is how long a clone waits for its import: the API
// creates the component and starts the import right after the check, so
// an older one belongs to a request that failed after checking.
const preparedRetention = 10 * time.Minute

// The reference's messages for what a check finds (Component.clean and
// friends), with the field each belongs to.
const (
	msgRepoFailed    = "Could not update repository: %s"
	msgNoMatch       = "The file mask did not match any files."
	msgFileMissing   = "File does not exist."
	msgTemplateParse = "Could not parse translation base file: %s"
	msgBranchMissing = "Could not update repository: the branch %q does not exist."
)

// CheckComponent checks a component's repository settings the way the
// reference validates a component before saving it: it clones the
// repository (bounded by Options.CheckTimeout), and checks that the
// branch exists, that the filemask matches files, and that the template
// and new_base exist, the template parsing. What the request can fix is
// returned as a *index.FieldError on the field at fault ("repo",
// "branch", "filemask", "language_regex", "template", "new_base"); other
// errors are internal. It returns c with Branch set to the remote's
// default branch when it was empty.
//
// The clone is kept for the import of the component (StartImport or
// ImportComponent, with the same slugs, URL and branch) to adopt, so that
// a new component is cloned once; Close or a later check removes it if
// no import comes.
func (s *Service) CheckComponent(ctx context.Context, c index.Component) (index.Component, error) {
	mask, err := checkedMask(c)
	if err != nil {
		return c, err
	}
	if index.IsLink(c.Repo) {
		return c, s.checkLinked(ctx, c, mask)
	}
	// The template need not match the filemask (Android's values/ beside
	// values-*/, jitsi's resources.properties beside resources_*): the
	// reference only requires it to exist and parse, checked below.
	s.sweepPrepared()
	tmp := filepath.Join(s.opts.DataDir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return c, err
	}
	dir, err := os.MkdirTemp(tmp, "check-")
	if err != nil {
		return c, err
	}
	kept := false
	defer func() {
		if !kept {
			os.RemoveAll(dir)
		}
	}()
	cctx, cancel := context.WithTimeout(ctx, s.opts.CheckTimeout)
	defer cancel()
	repo, err := vcs.Clone(cctx, vcs.CloneOptions{URL: c.Repo, Branch: c.Branch, Dir: dir, NoCheckout: true,
		Timeouts: s.opts.GitTimeouts, Guard: s.guard(c)})
	if err != nil {
		return c, s.cloneProblem(ctx, cctx, c, err)
	}
	if c.Branch == "" {
		c.Branch = repo.Branch()
	}
	if err := checkFiles(ctx, c, repo, mask); err != nil {
		return c, err
	}
	if err := s.checkTemplate(c, repo); err != nil {
		return c, err
	}
	s.mu.Lock()
	if old, ok := s.prepared[s.repoDir(c)]; ok {
		os.RemoveAll(old.dir)
	}
	s.prepared[s.repoDir(c)] = preparedClone{dir: dir, url: c.Repo, branch: c.Branch, made: time.Now()}
	s.mu.Unlock()
	kept = true
	return c, nil
}

// cloneProblem turns a failed clone into the field error the client can
// act on; a client gone away is not one.
func (s *Service) cloneProblem(ctx, cctx context.Context, c index.Component, err error) error {
	var private *index.PrivateAddressError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, vcs.ErrBranchNotFound):
		return index.FieldErr("branch", "invalid", fmt.Sprintf(msgBranchMissing, c.Branch))
	case cctx.Err() != nil:
		return index.FieldErr("repo", "invalid", fmt.Sprintf(msgRepoFailed,
			fmt.Sprintf("no answer within %s.", s.opts.CheckTimeout)))
	case errors.As(err, &private):
		return index.FieldErr("repo", "invalid", fmt.Sprintf(msgRepoFailed, private.Error()+"."))
	}
	// vcs has removed credentials from the message.
	return index.FieldErr("repo", "invalid", fmt.Sprintf(msgRepoFailed, err))
}

// checkTemplate checks that c's template, if any, parses.
func (s *Service) checkTemplate(c index.Component, repo *vcs.Repo) error {
	if c.Template == "" {
		return nil
	}
	codec, err := codecOf(&c)
	if err == nil {
		ci := &componentImport{svc: s, c: c, codec: codec, repo: repo, sum: &ImportSummary{}}
		_, err = ci.parse(c.Template, ci.sourceLanguage(), true)
	}
	if err != nil {
		return index.FieldErr("template", "invalid", fmt.Sprintf(msgTemplateParse, err))
	}
	return nil
}

// checkLinked is CheckComponent for a component linked to another
// (index.LinkScheme): no clone, the files are checked in the parent's
// checkout. The store judges the link again when it saves c.
func (s *Service) checkLinked(ctx context.Context, c index.Component, mask *Filemask) error {
	project, path, slug, ok := index.LinkTarget(c.Repo)
	if !ok {
		return index.FieldErr("repo", "invalid", index.MsgLinkInvalid)
	}
	parent, err := s.store.FindComponent(ctx, project, slug)
	switch {
	case errors.Is(err, index.ErrNotFound) || (err == nil && path != "" && path != parent.CategoryPath):
		return index.FieldErr("repo", "invalid", index.MsgLinkInvalid)
	case err != nil:
		return err
	case parent.ID == c.ID:
		return index.FieldErr("repo", "invalid", index.MsgLinkSelf)
	case parent.LinkedID != 0:
		return index.FieldErr("repo", "invalid", index.MsgLinkToLinked)
	}
	repo, mu, err := s.readCheckout(ctx, parent)
	if errors.Is(err, index.ErrNotFound) {
		return index.FieldErr("repo", "invalid", msgLinkNotCloned)
	}
	if err != nil {
		return err
	}
	defer mu.Unlock()
	if err := checkFiles(ctx, c, repo, mask); err != nil {
		return err
	}
	return s.checkTemplate(c, repo)
}

// msgLinkNotCloned refuses a link to a component not imported yet.
const msgLinkNotCloned = "The repository of the linked component is not available yet."

// checkFiles checks that the filemask matches files and that the
// template and new_base exist at the branch's head.
func checkFiles(ctx context.Context, c index.Component, repo *vcs.Repo, mask *Filemask) error {
	list, err := repo.Files(ctx, vcs.FilesOptions{Scopes: []vcs.Scope{mask.Scope()}, Match: mask.Match})
	if err != nil {
		return err
	}
	if len(list.Files) == 0 {
		return index.FieldErr("filemask", "invalid", msgNoMatch)
	}
	var fe index.FieldError
	for _, f := range []struct{ attr, path string }{{"template", c.Template}, {"new_base", c.NewBase}} {
		if f.path == "" {
			continue
		}
		_, err := repo.BlobHash(f.path)
		switch {
		case errors.Is(err, vcs.ErrNotExist):
			fe.Add(f.attr, "invalid", msgFileMissing)
		case err != nil:
			return err
		}
	}
	return fe.Err()
}

// sweepPrepared removes clones whose import never came.
func (s *Service) sweepPrepared() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for dir, p := range s.prepared {
		if time.Since(p.made) > preparedRetention {
			os.RemoveAll(p.dir)
			delete(s.prepared, dir)
		}
	}
}

// adoptPrepared moves the clone CheckComponent made for the checkout dir
// into place, when it is a clone of the component's URL and branch; the
// caller holds the component's lock.
func (s *Service) adoptPrepared(dir string, c index.Component) error {
	s.mu.Lock()
	p, ok := s.prepared[dir]
	if ok {
		delete(s.prepared, dir)
	}
	s.mu.Unlock()
	if !ok {
		return nil
	}
	if p.url != c.Repo || p.branch != c.Branch {
		return os.RemoveAll(p.dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	return os.Rename(p.dir, dir)
}

// TranslationFilename returns the file a new translation of c into the
// language with the given canonical code is written to: the filemask
// with the code in the component's language_code_style. When the
// codec is a formats.PathLanguages (Android's values-pt-rBR, Apple's
// pt-BR.lproj) and the style is the format's default (""), the format's
// path syntax names the language, as the reference's format-specific
// language formats do. It reports false when the name would not be read
// back as a translation (the code fails language_regex, the style is
// unknown, or the styled code is no language in the format's syntax).
func (s *Service) TranslationFilename(c index.Component, code string) (string, bool) {
	mask, err := componentMask(c)
	if err != nil {
		return "", false
	}
	var path string
	if mask.one != nil {
		// The one file holds every language: the new one goes into it.
		return mask.mask, mask.allows(strings.ReplaceAll(code, "_", "-"))
	}
	if mask.langs != nil && c.LanguageCode == "" {
		path = mask.Path(code)
	} else {
		styled, ok := s.langs.StyleCode(code, c.LanguageCode)
		if !ok {
			return "", false
		}
		path = mask.segmentPath(styled)
	}
	if _, ok := mask.Code(path); !ok {
		return "", false
	}
	return path, true
}

// RemoveCheckout cancels the component's tasks and deletes its checkout,
// for a component removed from the index. A missing checkout is no
// error.
func (s *Service) RemoveCheckout(ctx context.Context, c index.Component) error {
	for _, t := range s.tasks.ofComponent(c.ID) {
		t.cancel()
	}
	lock := s.componentLock(c.ID)
	lock.Lock()
	defer lock.Unlock()
	dir := s.repoDir(c)
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove checkout of %s/%s: %w", c.Project.Slug, c.Slug, err)
	}
	// The project's directory goes with its last component; Remove fails
	// harmlessly while it has others.
	os.Remove(filepath.Dir(dir))
	return ctx.Err()
}

// MoveCheckout moves a component's checkout after its slug or its
// project's slug changed from those of from to those of to (the same
// component). A missing checkout is no error: the next import clones.
func (s *Service) MoveCheckout(ctx context.Context, from, to index.Component) error {
	src, dst := s.repoDir(from), s.repoDir(to)
	if src == dst {
		return nil
	}
	lock := s.componentLock(to.ID)
	lock.Lock()
	defer lock.Unlock()
	if _, err := os.Stat(src); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		return fmt.Errorf("move checkout of %s/%s: %w", to.Project.Slug, to.Slug, err)
	}
	os.Remove(filepath.Dir(src))
	return ctx.Err()
}

package sync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// The cleanup add-ons (index.AddonCleanup, index.AddonCleanupBlank) run
// on a component's checkout after Tolk's commits (before any squash and
// push) and after an update moved it onto upstream, as the reference's
// pre/post-commit and post-update events: each reads every translation
// file but the template, takes out what it must through the format's
// Remove (only those entries' bytes change), and commits the files it
// changed as one commit with the component's add-on message. The index
// is not touched: a monolingual import reads only the template's keys
// (so a stale key is no string of the index), and a key missing from a
// file is an untranslated string, as a blank one was. A file that does
// not parse, or a commit that fails, is an alert on the component; the
// commit or update that ran the add-on goes on.

// cleanupLocked runs the cleanup add-ons that cover c, and those of
// links (the components linked to it), on c's checkout, and returns the
// commits they made; the caller holds the checkout's lock.
func (s *Service) cleanupLocked(ctx context.Context, repo *vcs.Repo, c index.Component, links []index.Component,
	jc *jobCache) []string {
	var made []string
	for _, comp := range append([]index.Component{c}, links...) {
		all, err := jc.covering(ctx, comp)
		if err != nil {
			s.addonAlert(ctx, index.AddonCleanup, comp, err)
			continue
		}
		for _, name := range []string{index.AddonCleanup, index.AddonCleanupBlank} {
			if !slices.ContainsFunc(all, func(a index.Addon) bool { return a.Name == name }) {
				continue
			}
			h, err := s.cleanupOne(ctx, repo, comp, name)
			if h != "" { // committed, whatever failed after
				made = append(made, h)
			}
			if err != nil {
				s.addonAlert(ctx, name, comp, err)
			}
		}
	}
	if len(made) > 0 {
		if err := s.recordHead(ctx, c, repo); err != nil {
			s.opts.Logger.Error("record head after cleanup", "component", c.ID, "err", err)
		}
	}
	return made
}

// cleanupOne runs add-on name on comp's translation files and commits
// what changed; "" when nothing did.
func (s *Service) cleanupOne(ctx context.Context, repo *vcs.Repo, comp index.Component, name string) (string, error) {
	if !comp.IsMonolingual() {
		return "", nil // installed on a project: its bilingual components are not for it
	}
	codec, err := codecOf(&comp)
	if err != nil {
		return "", err
	}
	var keep map[string]bool // the template's keys, for the generic cleanup
	if name == index.AddonCleanup {
		data, err := repo.ReadFile(comp.Template)
		if err != nil {
			return "", fmt.Errorf("template %s: %w", comp.Template, err)
		}
		units, err := codec.Decode(data, s.fileOf(&comp, s.sourceLanguage(&comp), true))
		if err != nil {
			return "", fmt.Errorf("%s: %w", comp.Template, err)
		}
		keep = make(map[string]bool, len(units))
		for _, u := range units {
			keep[u.Context] = true
		}
	}
	ts, err := s.store.FindTranslations(ctx, comp.ID)
	if err != nil {
		return "", err
	}
	files := map[string][]byte{}
	var errs []error
	for _, t := range ts {
		if t.IsSource || t.IsTemplate || t.Filename == comp.Template || files[t.Filename] != nil {
			continue
		}
		data, err := repo.ReadFile(t.Filename)
		if err != nil {
			continue // not written yet (a new translation's file comes with its commit)
		}
		f := s.fileOfTranslation(&comp, t)
		units, err := codec.Decode(data, f)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", t.Filename, err))
			continue
		}
		var drop []formats.Key
		for _, u := range units {
			if (keep != nil && !keep[u.Context]) || (keep == nil && blank(u.Target)) {
				drop = append(drop, formats.Key{Context: u.Context, Source: first(u.Source)})
			}
		}
		if len(drop) == 0 {
			continue
		}
		out, err := codec.Remove(data, f, drop)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", t.Filename, err))
			continue
		}
		if !bytes.Equal(out, data) {
			files[t.Filename] = out
		}
	}
	if len(files) == 0 {
		return "", errors.Join(errs...)
	}
	h, err := s.addonCommit(ctx, repo, comp, name, files)
	return h, errors.Join(append(errs, err)...)
}

// blank reports whether a target has no translation in any form.
func blank(target []string) bool {
	return !slices.ContainsFunc(target, func(s string) bool { return s != "" })
}

// addonCommit commits files as add-on name's work on comp, with the
// component's add-on message, by the committer.
func (s *Service) addonCommit(ctx context.Context, repo *vcs.Repo, comp index.Component, name string, files map[string][]byte) (string, error) {
	verbose := index.AddonVerbose[name]
	if verbose == "" {
		verbose = name
	}
	vars := MessageVars{ProjectName: comp.Project.Name, ProjectSlug: comp.Project.Slug, ComponentName: comp.Name,
		ComponentSlug: comp.Slug, AddonName: verbose, ComponentRemoteBranch: comp.Branch, SiteTitle: "Tolk",
		SiteURL: s.opts.SiteURL, URL: fmt.Sprintf("%s/projects/%s/%s/", s.opts.SiteURL, comp.Project.Slug, comp.Slug)}
	msg, err := RenderMessage(comp.AddonMessage, vars)
	if err != nil || msg == "" {
		msg, _ = RenderMessage(index.DefaultAddonMessage, vars)
	}
	committer := s.opts.Committer
	h, err := repo.Commit(ctx, vcs.CommitOptions{Files: files, Message: msg, Author: committer, Committer: &committer})
	if errors.Is(err, vcs.ErrNothingToCommit) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	s.opts.Logger.Info("add-on committed", "addon", name, "project", comp.Project.Slug, "component", comp.Slug,
		"files", len(files), "commit", h)
	// The reference logs an add-on's commits in its activity log only;
	// Tolk records them in the component's change log as the commit
	// they are (17), by nobody, as the squash add-on's.
	what := fmt.Sprintf("%d files", len(files))
	if len(files) == 1 {
		what = "1 file"
	}
	return h, s.store.RecordRepositoryChange(ctx, comp.ID, index.ActionCommit, 0,
		fmt.Sprintf("%s (%s): %s, %.12s", verbose, name, what, h))
}

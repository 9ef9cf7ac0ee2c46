package sync

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/tolk-project/tolk/index"
)

// The weblate.consistency.languages add-on (index.AddonLanguages): every
// language a translation of any of a project's components has is added
// to the project's components that lack it, as the API's new translation
// does (its units empty, its file written by the component's next
// commit, "Language added" recorded, credited to nobody: the add-on acts
// on its own, as the reference's add-on user does). As the reference's,
// a component's own source language is never added to it, and a
// component that does not accept new translations (new_lang "none") is
// left alone (logged); a language whose file name the component cannot
// make, or a write that fails, is an alert on that component. Components
// not imported yet are skipped: their import triggers the add-on again.

// languagesOnAdd runs the add-on in the background for c's project if it
// has one installed.
func (s *Service) languagesOnAdd(ctx context.Context, c index.Component) {
	addons, err := s.newJobCache().addons(ctx, c.ProjectID)
	if err != nil {
		s.opts.Logger.Error("find add-ons", "project", c.Project.Slug, "err", err)
		return
	}
	if slices.ContainsFunc(addons, func(a index.Addon) bool { return a.Name == index.AddonLanguages }) {
		s.QueueLanguageConsistency(c.ProjectID)
	}
}

// TranslationAdded hears that a translation was added to c through the
// API: the language consistency add-on of c's project, if any, adds the
// language to the other components (the reference's post_add event).
func (s *Service) TranslationAdded(c index.Component) {
	s.languagesOnAdd(s.life, c)
}

// QueueLanguageConsistency runs the add-on on a project in the
// background; it returns at once.
func (s *Service) QueueLanguageConsistency(projectID int64) {
	s.inBackground("languages:"+strconv.FormatInt(projectID, 10), func(ctx context.Context) {
		if _, err := s.LanguageConsistency(ctx, projectID); err != nil {
			s.opts.Logger.Error("language consistency add-on", "project", projectID, "err", err)
		}
	})
}

// LanguageConsistency adds every language of the project's translations
// to the components that lack it, and returns how many translations it
// added. Failures on one component are alerts on it (addonAlert) and do
// not stop the others; the error is for what stops the whole run.
func (s *Service) LanguageConsistency(ctx context.Context, projectID int64) (int, error) {
	comps, err := s.store.FindComponents(ctx, projectID)
	if err != nil {
		return 0, err
	}
	have := make(map[int64][]string, len(comps))
	var all []string
	for _, c := range comps {
		ts, err := s.store.FindTranslations(ctx, c.ID)
		if err != nil {
			return 0, err
		}
		for _, t := range ts {
			have[c.ID] = append(have[c.ID], t.LanguageCode)
			if !slices.Contains(all, t.LanguageCode) {
				all = append(all, t.LanguageCode)
			}
		}
	}
	slices.Sort(all)
	added := 0
	for _, c := range comps {
		codes, imported := have[c.ID]
		if !imported {
			continue // not imported yet
		}
		var missing []string
		for _, code := range all {
			if !slices.Contains(codes, code) && code != s.sourceLanguage(&c).Code {
				missing = append(missing, code)
			}
		}
		if len(missing) == 0 {
			continue
		}
		if c.NewLang == "none" {
			s.opts.Logger.Info("language consistency add-on: the component accepts no new translations",
				"project", c.Project.Slug, "component", c.Slug, "missing", missing)
			continue
		}
		var errs []error
		for _, code := range missing {
			if err := ctx.Err(); err != nil {
				return added, err
			}
			filename, ok := s.TranslationFilename(c, code)
			if !ok {
				errs = append(errs, fmt.Errorf("could not add %s: the component's file mask cannot name its file", code))
				continue
			}
			_, err := s.store.CreateTranslation(ctx, c.ID, code, filename, index.Actor{})
			var fe *index.FieldError
			switch {
			case errors.As(err, &fe):
				// Added meanwhile (by a user, or another process's run).
			case err != nil:
				errs = append(errs, fmt.Errorf("could not add %s: %w", code, err))
			default:
				added++
				s.opts.Logger.Info("language consistency add-on: translation added", "project", c.Project.Slug,
					"component", c.Slug, "language", code)
			}
		}
		if len(errs) > 0 {
			s.addonAlert(ctx, index.AddonLanguages, c, errors.Join(errs...))
		}
	}
	return added, nil
}

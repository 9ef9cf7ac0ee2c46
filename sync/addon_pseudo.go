package sync

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/tolk-project/tolk/index"
)

// The weblate.generate.pseudolocale add-on (index.AddonPseudolocale):
// the strings of its target translation become those of its source
// translation wrapped as configured (Pseudolocale.Forms), in state
// translated, each recorded as "Automatically translated" (6) by nobody,
// as the reference's add-on user. After an import that changed the
// component's strings, the strings not yet translated are filled (the
// reference's component_update: a changed source string leaves its
// translations needing editing, so they are filled again); when
// installed or triggered, every string up to translated, and read-only
// ones with include_readonly (the reference's daily run). Writes go one
// string at a time through the store's ordinary edit, so checks,
// statistics and pending state stay exact; the file follows with the
// next commit. A translation the configuration names that the component
// no longer has is an alert.

// PseudoStore is what the add-on reads and writes (part of
// AddonRunStore).
type PseudoStore interface {
	FindUnits(ctx context.Context, f index.UnitFilter) ([]index.Unit, int, error)
	UpdateUnit(ctx context.Context, id int64, actor index.Actor,
		decide func(u index.Unit, t index.Translation) (index.UnitUpdate, error)) (index.Unit, error)
}

// QueuePseudolocale runs add-on a on component c in the background
// (every string up to translated when all, else the untranslated ones);
// it returns at once.
func (s *Service) QueuePseudolocale(a index.Addon, c index.Component, all bool) {
	key := "pseudo:" + strconv.FormatInt(a.ID, 10) + ":" + strconv.FormatBool(all)
	s.inBackground(key, func(ctx context.Context) {
		if _, err := s.Pseudolocale(ctx, a, c, all); err != nil {
			s.addonAlert(ctx, index.AddonPseudolocale, c, err)
		}
	})
}

// Pseudolocale runs add-on a on c now and returns how many strings it
// wrote.
func (s *Service) Pseudolocale(ctx context.Context, a index.Addon, c index.Component, all bool) (int, error) {
	p := a.Pseudo
	ts, err := s.store.FindTranslations(ctx, c.ID)
	if err != nil {
		return 0, err
	}
	has := func(id int64) bool {
		return slices.ContainsFunc(ts, func(t index.Translation) bool { return t.ID == id })
	}
	switch {
	case !has(p.Source):
		return 0, fmt.Errorf("the source translation %d is not one of the component's", p.Source)
	case !has(p.Target):
		return 0, fmt.Errorf("the target translation %d is not one of the component's", p.Target)
	}
	sources := map[int64][]string{}
	if err := s.eachUnit(ctx, p.Source, func(u index.Unit) {
		if u.State >= index.StateTranslated {
			forms := u.Target
			if !slices.ContainsFunc(forms, func(f string) bool { return f != "" }) {
				forms = u.Source // a source translation's units carry the text as their source
			}
			sources[u.SourceUnitID] = forms
		}
	}); err != nil {
		return 0, err
	}
	pick := func(u index.Unit) bool {
		return u.State < index.StateTranslated ||
			(all && (u.State == index.StateTranslated || (p.IncludeReadOnly && u.State == index.StateReadOnly)))
	}
	var todo []index.Unit
	if err := s.eachUnit(ctx, p.Target, func(u index.Unit) {
		if _, ok := sources[u.SourceUnitID]; ok && pick(u) {
			todo = append(todo, u)
		}
	}); err != nil {
		return 0, err
	}
	updated := 0
	for _, u := range todo {
		if err := ctx.Err(); err != nil {
			return updated, err
		}
		want := p.Forms(sources[u.SourceUnitID], len(u.Target))
		if slices.Equal(want, u.Target) && u.State >= index.StateTranslated {
			continue
		}
		wrote := false
		_, err := s.store.UpdateUnit(ctx, u.ID, index.Actor{}, func(cur index.Unit, _ index.Translation) (index.UnitUpdate, error) {
			if !pick(cur) {
				return index.UnitUpdate{}, nil // translated by someone since it was listed: theirs stays
			}
			wrote = true
			state := index.StateTranslated
			if cur.State == index.StateReadOnly {
				state = index.StateReadOnly
			}
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: want, State: state,
				Action: index.ActionAutoTranslated}}, nil
		})
		if err != nil {
			return updated, fmt.Errorf("string %d: %w", u.ID, err)
		}
		if wrote {
			updated++
		}
	}
	if updated > 0 {
		s.opts.Logger.Info("pseudolocale add-on", "addon", a.ID, "project", c.Project.Slug, "component", c.Slug,
			"updated", updated)
	}
	return updated, nil
}

// eachUnit calls fn with every unit of a translation, in id order.
func (s *Service) eachUnit(ctx context.Context, translationID int64, fn func(index.Unit)) error {
	const size = 1000
	for page := 1; ; page++ {
		units, total, err := s.store.FindUnits(ctx, index.UnitFilter{TranslationID: translationID,
			Page: index.Page{Number: page, Size: size}})
		if err != nil {
			return err
		}
		for _, u := range units {
			fn(u)
		}
		if len(units) < size || page*size >= total {
			return nil
		}
	}
}

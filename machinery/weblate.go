package machinery

import (
	"context"

	"github.com/tolk-project/tolk/index"
)

// SameSourceFinder reads the translated strings of a project's other
// components (*sqlstore.DB implements it): see index.SameSourceFilter.
type SameSourceFinder interface {
	FindSameSource(ctx context.Context, f index.SameSourceFilter) ([]index.SameSourceMatch, error)
}

// weblateService is the reference's internal "Weblate" service: exact
// matches among the current translations of the project's other
// components (reference workspace §6.1, rank boost +1). Quality is 100
// for an exact match, as the reference's similarity measure gives it.
var weblateService = &Service{ID: "weblate", Name: "Weblate", MaxScore: 100, RankBoost: 1, Internal: true,
	newEngine: func(_ Config, env *env) (Engine, error) {
		if env.same == nil {
			return nil, ErrUnavailable
		}
		return &sameSource{find: env.same}, nil
	}}

type sameSource struct{ find SameSourceFinder }

func (s *sameSource) Translate(ctx context.Context, req Request) ([][]Translation, error) {
	matches, err := s.find.FindSameSource(ctx, index.SameSourceFilter{ProjectID: req.ProjectID,
		ExcludeComponentID: req.ComponentID, SourceLanguage: req.SourceLanguage, Language: req.TargetLanguage,
		Sources: req.Texts})
	if err != nil {
		return nil, err
	}
	byText := map[string][]Translation{}
	for _, m := range matches {
		seen := false
		for _, t := range byText[m.Source] {
			seen = seen || t.Text == m.Target[0]
		}
		if seen {
			continue // the same text from two components is one candidate
		}
		byText[m.Source] = append(byText[m.Source], Translation{Text: m.Target[0], Quality: 100,
			Service: weblateService.Name, Source: m.Source, Origin: m.ComponentName, ShowQuality: true})
	}
	out := make([][]Translation, len(req.Texts))
	for i, text := range req.Texts {
		out[i] = byText[text]
	}
	return out, nil
}

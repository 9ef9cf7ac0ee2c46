package machinery

import (
	"context"

	"github.com/tolk-project/tolk/index"
)

// Memory is the translation memory, as the "weblate-translation-memory"
// service reads it (reference workspace §5.3): for each text of the
// request, the memory's entries in its language pair whose quality by
// the reference's measure reaches the memory's threshold, best first,
// with Origin saying where each entry comes from. Lookups only read.
//
// The index's store is one (sqlstore.DB.LookupMemoryMany): cmd/tolk
// gives it as Options.Memory. Without one, installing the service is
// refused as unavailable on this server.
type Memory interface {
	LookupMemoryMany(ctx context.Context, qs []index.MemoryQuery) ([][]index.MemoryMatch, error)
}

// memoryService is the reference's internal "Weblate Translation
// Memory" service (rank boost +2).
var memoryService = &Service{ID: "weblate-translation-memory", Name: "Weblate Translation Memory",
	MaxScore: 100, RankBoost: 2, Internal: true,
	newEngine: func(_ Config, env *env) (Engine, error) {
		if env.memory == nil {
			return nil, ErrUnavailable
		}
		return memoryEngine{env.memory}, nil
	}}

type memoryEngine struct{ m Memory }

// Translate looks each text up in the project's memory (and the asking
// user's personal scope). A request for a unit compares contexts and
// leaves the unit itself out: the memory is a view of the translated
// strings, and a string's own translation is no suggestion for it. Each
// result's Origin names its scope as the reference's editor does
// ("Project: p/c", "Personal: p/c", "Shared: p/c", "File: x.tmx").
func (m memoryEngine) Translate(ctx context.Context, req Request) ([][]Translation, error) {
	qs := make([]index.MemoryQuery, len(req.Texts))
	for i, text := range req.Texts {
		qs[i] = index.MemoryQuery{ProjectID: req.ProjectID, SourceLanguage: req.SourceLanguage,
			TargetLanguage: req.TargetLanguage, Text: text, Context: req.Context, NoContext: req.UnitID == 0,
			Exclude: req.UnitID, UserID: req.UserID, Hidden: req.Hidden}
	}
	matches, err := m.m.LookupMemoryMany(ctx, qs)
	if err != nil {
		return nil, err
	}
	out := make([][]Translation, len(matches))
	for i, list := range matches {
		for _, mm := range list {
			tr := Translation{Text: mm.Target, Quality: mm.Quality, Service: memoryService.Name,
				Source: mm.Source, Origin: index.MemoryOriginDisplay(mm.MemoryEntry, req.ProjectID), ShowQuality: true}
			if row, imported := index.SplitMemoryID(mm.ID); !mm.Imported && !imported {
				tr.UnitID = row // a unit's entry
			}
			out[i] = append(out[i], tr)
		}
	}
	return out, nil
}

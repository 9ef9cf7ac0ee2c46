package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// MaxGlossaryTerms bounds the terms GlossaryTerms returns: a glossary a
// machine translation request carries whole (DeepL's) or in part (an
// LLM's prompt) must stay a request's size.
const MaxGlossaryTerms = 20000

// GlossaryTerms returns the translated and read-only terms of the
// project's glossary components whose source language is
// sourceLanguage, in language, each with the forbidden and read-only
// flags its format, component, source string and own flags give it (as
// check_glossary reads them: queryTerms, readTerms' query), component by
// component in unit order, at most MaxGlossaryTerms; none when language
// is the source language or for no project (0). It only reads.
func (db *DB) GlossaryTerms(ctx context.Context, projectID int64, sourceLanguage, language string) ([]index.GlossaryTerm, error) {
	if language == sourceLanguage || projectID == 0 {
		return nil, nil
	}
	comps, err := db.FindComponents(ctx, projectID)
	if errors.Is(err, index.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*index.Component, len(comps))
	for i := range comps {
		byID[comps[i].ID] = &comps[i]
	}
	query := func(q string, args ...any) (*sql.Rows, error) { return db.r.QueryContext(ctx, q, args...) }
	terms, err := queryTerms(query, glossaryKey{projectID, sourceLanguage, language}, MaxGlossaryTerms,
		func(_, componentID int64) (checks.Flags, error) {
			var formatFlags, checkFlags string
			if c := byID[componentID]; c != nil {
				checkFlags = c.CheckFlags
				if f := db.formatFlags; f != nil {
					formatFlags = f(c.FileFormat)
				}
			}
			return checks.Merge(lenientFlags(formatFlags), lenientFlags(checkFlags)), nil
		})
	if err != nil {
		return nil, formatError(err)
	}
	out := make([]index.GlossaryTerm, len(terms))
	for i, t := range terms {
		out[i] = index.GlossaryTerm{Source: index.SplitPlural(t.Source)[0], Target: index.SplitPlural(t.Target)[0],
			Forbidden: t.Forbidden, ReadOnly: t.ReadOnly}
	}
	return out, nil
}

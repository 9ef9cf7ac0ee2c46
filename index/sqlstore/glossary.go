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
// check_glossary reads them, readTerms), component by component in
// unit order; none when language is the source language or for no
// project (0). It only reads.
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
	var out []index.GlossaryTerm
	for _, c := range comps {
		if !c.IsGlossary || c.SourceLanguage != sourceLanguage || len(out) >= MaxGlossaryTerms {
			continue
		}
		var tid int64
		err := db.r.QueryRowContext(ctx, `SELECT id FROM translations WHERE component_id = ? AND language_code = ?`,
			c.ID, language).Scan(&tid)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, formatError(err)
		}
		var formatFlags string
		if f := db.formatFlags; f != nil {
			formatFlags = f(c.FileFormat)
		}
		base := checks.Merge(lenientFlags(formatFlags), lenientFlags(c.CheckFlags))
		if out, err = db.appendTerms(ctx, out, tid, base); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendTerms appends the terms of one glossary translation, whose
// format's and component's flags are base.
func (db *DB) appendTerms(ctx context.Context, out []index.GlossaryTerm, translationID int64, base checks.Flags) ([]index.GlossaryTerm, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT u.source, u.target, u.state, u.flags, u.extra_flags,
		coalesce((SELECT s.extra_flags FROM units s WHERE s.id = u.source_unit_id AND s.id != u.id), '')
		FROM units u WHERE u.translation_id = ? AND u.state >= ? ORDER BY u.id LIMIT ?`,
		translationID, index.StateTranslated, MaxGlossaryTerms-len(out))
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var source, target, flags, extra, sourceExtra string
		var state index.State
		if err := rows.Scan(&source, &target, &state, &flags, &extra, &sourceExtra); err != nil {
			return nil, formatError(err)
		}
		fl := base
		for _, layer := range []string{flags, sourceExtra, extra} {
			if layer != "" {
				fl = checks.Merge(fl, lenientFlags(layer))
			}
		}
		out = append(out, index.GlossaryTerm{Source: index.SplitPlural(source)[0], Target: index.SplitPlural(target)[0],
			Forbidden: fl.Has("forbidden"), ReadOnly: state == index.StateReadOnly || fl.Has("read-only")})
	}
	return out, formatError(rows.Err())
}

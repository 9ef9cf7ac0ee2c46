package sqlite

import (
	"context"

	"github.com/tolk-project/tolk/index"
)

const translationSelect = `SELECT t.id, t.component_id, t.language_code, t.filename, t.revision,
	t.is_source, t.is_template, t.load_error, ` + componentColumns + `, ` + languageColumnsL + `
	FROM translations t
	JOIN components c ON c.id = t.component_id
	JOIN projects p ON p.id = c.project_id
	LEFT JOIN languages l ON l.code = t.language_code`

const languageColumnsL = `coalesce(l.code, t.language_code), coalesce(l.name, t.language_code),
	coalesce(l.direction, 'ltr'), coalesce(l.population, 0), coalesce(l.aliases, ''),
	coalesce(l.plural_id, 0), coalesce(l.plural_source, 0), coalesce(l.plural_number, 2),
	coalesce(l.plural_formula, 'n != 1'), coalesce(l.plural_type, 1)`

func scanTranslation(s interface{ Scan(...any) error }) (index.Translation, error) {
	var t index.Translation
	var compFields componentScan
	var lang langScan
	dest := []any{&t.ID, &t.ComponentID, &t.LanguageCode, &t.Filename, &t.Revision,
		&t.IsSource, &t.IsTemplate, &t.LoadError}
	dest = append(dest, compFields.dest()...)
	dest = append(dest, lang.dest()...)
	if err := s.Scan(dest...); err != nil {
		return t, err
	}
	var err error
	if t.Component, err = compFields.component(); err != nil {
		return t, err
	}
	t.Language = lang.language()
	return t, nil
}

// FindTranslation returns the translation of a component into a language,
// with its component, project, language and stored statistics, or
// ErrNotFound.
func (db *DB) FindTranslation(ctx context.Context, projectSlug, componentSlug, languageCode string) (index.Translation, error) {
	t, err := scanTranslation(db.rdb.QueryRowContext(ctx, translationSelect+`
		WHERE p.slug = ? AND c.slug = ? AND t.language_code = ?`, projectSlug, componentSlug, languageCode))
	if err != nil {
		return t, formatError(err)
	}
	t.Stats, err = readStats(ctx, db.rdb, "t", itoa(t.ID))
	return t, formatError(err)
}

// FindTranslationByID returns a translation as FindTranslation does.
func (db *DB) FindTranslationByID(ctx context.Context, id int64) (index.Translation, error) {
	t, err := scanTranslation(db.rdb.QueryRowContext(ctx, translationSelect+` WHERE t.id = ?`, id))
	if err != nil {
		return t, formatError(err)
	}
	t.Stats, err = readStats(ctx, db.rdb, "t", itoa(t.ID))
	return t, formatError(err)
}

// FindTranslations returns the translations of a component ordered by
// language code, with their statistics.
func (db *DB) FindTranslations(ctx context.Context, componentID int64) ([]index.Translation, error) {
	rows, err := db.rdb.QueryContext(ctx, translationSelect+` WHERE t.component_id = ? ORDER BY t.language_code`, componentID)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.Translation
	for rows.Next() {
		t, err := scanTranslation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Stats, err = readStats(ctx, db.rdb, "t", itoa(out[i].ID)); err != nil {
			return nil, formatError(err)
		}
	}
	return out, nil
}

// TranslationRevisions returns the stored revision of every translation
// of a component by language code, so an importer can skip files whose
// content the index already reflects.
func (db *DB) TranslationRevisions(ctx context.Context, componentID int64) (map[string]string, error) {
	rows, err := db.rdb.QueryContext(ctx, `SELECT language_code, revision FROM translations
		WHERE component_id = ? AND load_error = ''`, componentID)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var code, rev string
		if err := rows.Scan(&code, &rev); err != nil {
			return nil, err
		}
		out[code] = rev
	}
	return out, rows.Err()
}

package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/tolk-project/tolk/index"
)

const translationColumns = `t.id, t.component_id, t.language_code, t.filename, t.revision,
	t.is_source, t.is_template, t.load_error, ` + componentColumns + `, ` + languageColumnsL

const translationFrom = `
	FROM translations t
	JOIN components c ON c.id = t.component_id
	JOIN projects p ON p.id = c.project_id
	LEFT JOIN languages l ON l.code = t.language_code`

const translationSelect = `SELECT ` + translationColumns + translationFrom

const languageColumnsL = `coalesce(l.code, t.language_code), coalesce(l.name, t.language_code),
	coalesce(l.direction, 'ltr'), coalesce(l.population, 0), coalesce(l.aliases, ''),
	coalesce(l.plural_id, 0), coalesce(l.plural_source, 0), coalesce(l.plural_number, 2),
	coalesce(l.plural_formula, 'n != 1'), coalesce(l.plural_type, 1)`

// scanTranslation reads a row of translationColumns; the language's
// plural rule is the one the component's format gives it (formatPlural,
// Options.FormatPlural; nil keeps the language's own).
func scanTranslation(s interface{ Scan(...any) error }, formatPlural func(string, index.Plural) index.Plural) (index.Translation, error) {
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
	if formatPlural != nil {
		t.Language.Plural = formatPlural(t.Component.FileFormat, t.Language.Plural)
	}
	return t, nil
}

// FindTranslation returns the translation of a component into a language,
// with its component, project, language and stored statistics, or
// ErrNotFound. The answer is cached until a write changes it; its slices
// must not be modified.
func (db *DB) FindTranslation(ctx context.Context, projectSlug, componentSlug, languageCode string) (index.Translation, error) {
	t, err := lookup(ctx, db, &db.translations, [3]string{projectSlug, componentSlug, languageCode}, nil, func() (index.Translation, error) {
		return db.findTranslation(ctx, `p.slug = ? AND c.slug = ? AND t.language_code = ?`,
			projectSlug, componentSlug, languageCode)
	})
	return db.withStoredStats(ctx, t, err)
}

// FindTranslationByID returns a translation as FindTranslation does,
// cached likewise: every unit read by id needs its translation.
func (db *DB) FindTranslationByID(ctx context.Context, id int64) (index.Translation, error) {
	t, err := lookup(ctx, db, &db.translationsByID, id, nil, func() (index.Translation, error) {
		return db.findTranslation(ctx, `t.id = ?`, id)
	})
	return db.withStoredStats(ctx, t, err)
}

// withStoredStats gives a translation found (err nil) its stored
// statistics. They are cached apart from the translation: every edit
// moves them, while the translation itself (its component, project and
// language) changes with configuration only, so an edit costs the next
// lookup one statistics row, not the translation's join.
func (db *DB) withStoredStats(ctx context.Context, t index.Translation, err error) (index.Translation, error) {
	if err != nil {
		return t, err
	}
	key := itoa(t.ID)
	t.Stats, err = lookup(ctx, db, &db.translationStats, key, func(index.Stats) dep { return statsDep("t", key) },
		func() (index.Stats, error) {
			s, err := readStats(ctx, db.r, "t", key)
			return s, formatError(err)
		})
	return t, err
}

// findTranslation reads the one translation matching where, without
// its statistics.
func (db *DB) findTranslation(ctx context.Context, where string, args ...any) (index.Translation, error) {
	t, err := scanTranslation(db.r.QueryRowContext(ctx, translationSelect+` WHERE `+where, args...), db.formatPlural)
	return t, formatError(err)
}

// FindTranslations returns the translations of a component ordered by
// language code, with their statistics.
func (db *DB) FindTranslations(ctx context.Context, componentID int64) ([]index.Translation, error) {
	rows, err := db.r.QueryContext(ctx, translationSelect+` WHERE t.component_id = ? ORDER BY t.language_code`, componentID)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.Translation
	for rows.Next() {
		t, err := scanTranslation(rows, db.formatPlural)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Stats, err = readStats(ctx, db.r, "t", itoa(out[i].ID)); err != nil {
			return nil, formatError(err)
		}
	}
	return out, nil
}

// TranslationRevisions returns the stored revision of every translation
// of a component by language code, so an importer can skip files whose
// content the index already reflects.
func (db *DB) TranslationRevisions(ctx context.Context, componentID int64) (map[string]string, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT language_code, revision FROM translations
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

// translationStatsColumns read the stored statistics row joined as s,
// as zeros when the translation has none (it never held a unit).
var translationStatsColumns = func() string {
	cols := strings.Split(statsColumns, ",")
	for i, c := range cols {
		cols[i] = "coalesce(s." + strings.TrimSpace(c) + ", 0)"
	}
	return strings.Join(cols, ", ") + ", coalesce(s.last_change, ''), coalesce(s.last_author, '')"
}()

// FindTranslationPage returns one page of the translations of a component
// (of every component when componentID is 0) in ascending id order, the
// reference's list order, and their number, leaving out the translations
// of the projects whose ids are hidden. Each carries its component,
// project, language and stored statistics including RecentChanges. A page
// past the end is empty; a zero Page returns them all.
func (db *DB) FindTranslationPage(ctx context.Context, componentID int64, pg index.Page, hidden ...int64) ([]index.Translation, int, error) {
	where, args := `(? = 0 OR t.component_id = ?)`, []any{componentID, componentID}
	count := `SELECT count(*) FROM translations t WHERE `
	if len(hidden) > 0 {
		cond, ids := notIn("c.project_id", hidden)
		where, args = where+" AND "+cond, append(args, ids...)
		count = `SELECT count(*) FROM translations t JOIN components c ON c.id = t.component_id WHERE `
	}
	var total int
	if err := db.r.QueryRowContext(ctx, count+where, args...).Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if total == 0 || pg.Offset() >= total {
		return nil, total, nil
	}
	out, err := db.translationPage(ctx, translationFrom, where, args, pg, total)
	return out, total, err
}

// translationPage reads one page of the translations from (which joins
// translationFrom's tables) where matches, in ascending id order, with
// their statistics; total is the number of matches.
func (db *DB) translationPage(ctx context.Context, from, where string, args []any, pg index.Page, total int) ([]index.Translation, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+translationColumns+`, `+translationStatsColumns+
		from+`
		LEFT JOIN stats s ON s.scope = 't' AND s.scope_key = CAST(t.id AS TEXT)
		WHERE `+where+` ORDER BY t.id LIMIT ? OFFSET ?`, withArgs(args, pageLimit(pg), pg.Offset())...)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	out := make([]index.Translation, 0, min(pageLimitCap(pg), total))
	for rows.Next() {
		var st index.Stats
		var last string
		t, err := scanTranslation(rowWithExtra{rows, append(statsFields(&st), &last, &st.LastAuthor)}, db.formatPlural)
		if err != nil {
			return nil, fmt.Errorf("scan translation: %w", err)
		}
		st.LastChange = parseTime(last)
		t.Stats = st
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, formatError(err)
	}
	if err := db.addRecentChanges(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// rowWithExtra scans the columns a scan function knows, then extra ones
// that follow them in the row.
type rowWithExtra struct {
	s     interface{ Scan(...any) error }
	extra []any
}

func (r rowWithExtra) Scan(dest ...any) error { return r.s.Scan(append(dest, r.extra...)...) }

// addRecentChanges fills RecentChanges of each translation with one
// grouped count, rather than one query per translation.
func (db *DB) addRecentChanges(ctx context.Context, ts []index.Translation) error {
	if len(ts) == 0 {
		return nil
	}
	args := make([]any, 0, len(ts)+1)
	args = append(args, formatTime(db.now().Add(-recentWindow)))
	byID := make(map[int64]*index.Translation, len(ts))
	for i := range ts {
		args = append(args, ts[i].ID)
		byID[ts[i].ID] = &ts[i]
	}
	rows, err := db.r.QueryContext(ctx, `SELECT translation_id, count(*) FROM changes
		WHERE id >= `+firstChangeAfter+` AND translation_id IN (?`+strings.Repeat(", ?", len(ts)-1)+`)
		GROUP BY translation_id`, args...)
	if err != nil {
		return formatError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return fmt.Errorf("scan recent changes: %w", err)
		}
		byID[id].Stats.RecentChanges = n
	}
	return formatError(rows.Err())
}

// FindUnitIDByHash returns the id of the unit of a translation with the
// given id_hash (the reference addresses a unit's editor page by it), or
// ErrNotFound.
func (db *DB) FindUnitIDByHash(ctx context.Context, translationID, idHash int64) (int64, error) {
	var id int64
	err := db.r.QueryRowContext(ctx, `SELECT id FROM units WHERE translation_id = ? AND id_hash = ?
		ORDER BY id LIMIT 1`, translationID, idHash).Scan(&id)
	return id, formatError(err)
}

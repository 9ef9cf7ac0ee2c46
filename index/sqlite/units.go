package sqlite

import (
	"context"

	"github.com/tolk-project/tolk/index"
)

const unitColumns = `id, translation_id, coalesce(source_unit_id, 0), position, context, source, target,
	previous_source, id_hash, content_hash, location, note, flags, explanation, extra_flags, state,
	pending, priority, num_words, has_suggestion, has_comment, has_failing_check, timestamp`

func scanUnit(s interface{ Scan(...any) error }) (index.Unit, error) {
	var u index.Unit
	var source, target, ts string
	err := s.Scan(&u.ID, &u.TranslationID, &u.SourceUnitID, &u.Position, &u.Context, &source, &target,
		&u.PreviousSource, &u.IDHash, &u.ContentHash, &u.Location, &u.Note, &u.Flags, &u.Explanation,
		&u.ExtraFlags, &u.State, &u.Pending, &u.Priority, &u.NumWords, &u.HasSuggestion, &u.HasComment,
		&u.HasFailingCheck, &ts)
	u.Source = index.SplitPlural(source)
	u.Target = index.SplitPlural(target)
	u.Labels = []string{}
	u.Timestamp = parseTime(ts)
	return u, err
}

// FindUnitByID returns one unit, or ErrNotFound.
func (db *DB) FindUnitByID(ctx context.Context, id int64) (index.Unit, error) {
	u, err := scanUnit(db.rdb.QueryRowContext(ctx, `SELECT `+unitColumns+` FROM units WHERE id = ?`, id))
	return u, formatError(err)
}

// FindUnits returns one page of a translation's units in ascending id
// order, and the number of units in the translation.
func (db *DB) FindUnits(ctx context.Context, f index.UnitFilter) ([]index.Unit, int, error) {
	var total int
	if err := db.rdb.QueryRowContext(ctx, `SELECT count(*) FROM units WHERE translation_id = ?`,
		f.TranslationID).Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if total == 0 || f.Page.Offset() >= total {
		return nil, total, nil
	}
	rows, err := db.rdb.QueryContext(ctx, `SELECT `+unitColumns+` FROM units WHERE translation_id = ?
		ORDER BY id LIMIT ? OFFSET ?`, f.TranslationID, f.Page.Size, f.Page.Offset())
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer rows.Close()
	out := make([]index.Unit, 0, min(f.Page.Size, total))
	for rows.Next() {
		u, err := scanUnit(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, u)
	}
	return out, total, rows.Err()
}

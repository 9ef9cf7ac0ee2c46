package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// insertChange records a change at the transaction's time and keeps the
// last_change (and, for content actions with an author, last_author) of
// every statistics scope it belongs to.
func insertChange(ctx context.Context, tx *Tx, c index.Change) error {
	ts := formatTime(tx.now)
	_, err := tx.ExecContext(ctx, `INSERT INTO changes (action, timestamp, project_id, component_id,
		translation_id, unit_id, language_code, user_id, author_id, target, details)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.Action, ts, nullID(c.ProjectID), nullID(c.ComponentID), nullID(c.TranslationID),
		nullID(c.UnitID), nullString(c.LanguageCode), nullID(c.UserID), nullID(c.AuthorID), c.Target, c.Details)
	if err != nil {
		return err
	}
	if c.TranslationID == 0 {
		return nil
	}
	author := ""
	if c.AuthorID != 0 && c.Action.IsContent() {
		if err := tx.QueryRowContext(ctx, `SELECT CASE WHEN full_name != '' THEN full_name ELSE username END
			FROM users WHERE id = ?`, c.AuthorID).Scan(&author); err != nil {
			return err
		}
	}
	for _, s := range changeScopes(c) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO stats (scope, scope_key, last_change, last_author)
			VALUES (?, ?, ?, ?) ON CONFLICT (scope, scope_key) DO UPDATE SET
			last_change = excluded.last_change,
			last_author = CASE WHEN excluded.last_author != '' THEN excluded.last_author ELSE stats.last_author END`,
			s.scope, s.key, ts, author); err != nil {
			return err
		}
	}
	return nil
}

type scopeKey struct {
	scope string
	key   string
}

func changeScopes(c index.Change) []scopeKey {
	return []scopeKey{
		{"t", itoa(c.TranslationID)}, {"c", itoa(c.ComponentID)},
		{"p", itoa(c.ProjectID)}, {"l", c.LanguageCode}, {"pl", itoa(c.ProjectID) + "/" + c.LanguageCode},
	}
}

func nullID(id int64) sql.NullInt64 { return sql.NullInt64{Int64: id, Valid: id != 0} }

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

const changeSelect = `SELECT ch.id, ch.action, ch.timestamp, coalesce(ch.project_id, 0),
	coalesce(ch.component_id, 0), coalesce(ch.translation_id, 0), coalesce(ch.unit_id, 0),
	coalesce(ch.user_id, 0), coalesce(ch.author_id, 0), ch.target, ch.details,
	coalesce(p.slug, ''), coalesce(c.slug, ''), coalesce(t.language_code, ''),
	coalesce(u.username, ''), coalesce(a.username, '')
	FROM changes ch
	LEFT JOIN projects p ON p.id = ch.project_id
	LEFT JOIN components c ON c.id = ch.component_id
	LEFT JOIN translations t ON t.id = ch.translation_id
	LEFT JOIN users u ON u.id = ch.user_id
	LEFT JOIN users a ON a.id = ch.author_id`

func scanChange(s interface{ Scan(...any) error }) (index.Change, error) {
	var c index.Change
	var ts string
	err := s.Scan(&c.ID, &c.Action, &ts, &c.ProjectID, &c.ComponentID, &c.TranslationID, &c.UnitID,
		&c.UserID, &c.AuthorID, &c.Target, &c.Details, &c.ProjectSlug, &c.ComponentSlug,
		&c.LanguageCode, &c.UserName, &c.AuthorName)
	c.Timestamp = parseTime(ts)
	return c, err
}

// FindChangeByID returns one change, or ErrNotFound.
func (db *DB) FindChangeByID(ctx context.Context, id int64) (index.Change, error) {
	c, err := scanChange(db.rdb.QueryRowContext(ctx, changeSelect+` WHERE ch.id = ?`, id))
	return c, formatError(err)
}

// FindChanges returns one page of the changes matching f in ascending
// timestamp (then id) order, and the total number of matches.
func (db *DB) FindChanges(ctx context.Context, f index.ChangeFilter) ([]index.Change, int, error) {
	var where []string
	var args []any
	add := func(cond string, arg ...any) {
		where = append(where, cond)
		args = append(args, arg...)
	}
	if f.TranslationID != 0 {
		add("ch.translation_id = ?", f.TranslationID)
	}
	if f.ComponentID != 0 {
		add("ch.component_id = ?", f.ComponentID)
	}
	if f.ProjectID != 0 {
		add("ch.project_id = ?", f.ProjectID)
	}
	if f.UnitID != 0 {
		add("ch.unit_id = ?", f.UnitID)
	}
	if len(f.Actions) > 0 {
		marks := make([]string, len(f.Actions))
		for i, a := range f.Actions {
			marks[i] = "?"
			args = append(args, a)
		}
		where = append(where, "ch.action IN ("+strings.Join(marks, ",")+")")
	}
	if f.UserName != "" {
		add("ch.user_id = (SELECT id FROM users WHERE username = ?)", f.UserName)
	}
	if !f.After.IsZero() {
		add("ch.timestamp > ?", formatTime(f.After))
	}
	if !f.Before.IsZero() {
		add("ch.timestamp < ?", formatTime(f.Before))
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := db.rdb.QueryRowContext(ctx, `SELECT count(*) FROM changes ch`+cond, args...).Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if total == 0 || f.Page.Offset() >= total {
		return nil, total, nil
	}
	rows, err := db.rdb.QueryContext(ctx, changeSelect+cond+` ORDER BY ch.timestamp, ch.id LIMIT ? OFFSET ?`,
		append(args, f.Page.Size, f.Page.Offset())...)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer rows.Close()
	out := make([]index.Change, 0, min(f.Page.Size, total))
	for rows.Next() {
		c, err := scanChange(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}

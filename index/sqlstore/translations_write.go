package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/tolk-project/tolk/index"
)

// errNotImported refuses a new translation of a component whose source
// strings are not in the index yet (its first import has not finished).
var errNotImported = index.Errorf(index.ErrInvalid,
	"The component has not been imported yet; try again once its import task has completed.")

// CreateTranslation adds the translation of a component into the
// language with the given code, whose file will be filename: one empty
// unit (state 0) for every unit of the source translation, linked to it,
// as an import of a file holding no translations would make them. It
// records "Language added" (48) by the actor and marks the file for the
// next commit to create (pending_files). It returns the new
// translation's id. A translation the component already has is a
// *index.FieldError on language_code.
func (db *DB) CreateTranslation(ctx context.Context, componentID int64, languageCode, filename string, by index.Actor) (int64, error) {
	var id int64
	err := db.write(ctx, func(tx *Tx) error {
		c, err := findComponentByID(tx, componentID)
		if err != nil {
			return err
		}
		var exists int
		if err := tx.QueryRow(`SELECT count(*) FROM translations WHERE component_id = ? AND language_code = ?`,
			componentID, languageCode).Scan(&exists); err != nil {
			return err
		}
		if exists > 0 {
			return index.FieldErr("language_code", "invalid", "Translation for this language already exists.")
		}
		var source int64
		err = tx.QueryRow(`SELECT id FROM translations WHERE component_id = ? AND is_source = 1`,
			componentID).Scan(&source)
		if errors.Is(err, sql.ErrNoRows) {
			return errNotImported
		}
		if err != nil {
			return err
		}
		if err := tx.QueryRow(`INSERT INTO translations (component_id, language_code, filename)
			VALUES (?, ?, ?) RETURNING id`, componentID, languageCode, filename).Scan(&id); err != nil {
			return err
		}
		// A monolingual file carries targets only; a bilingual one (TBX)
		// repeats each entry's flags, read-only terms included.
		bilingual := !c.IsMonolingual()
		if _, err := tx.Exec(`INSERT INTO units (translation_id, source_unit_id, position, context,
			source, target, id_hash, content_hash, location, flags, explanation, state, priority, num_words,
			num_chars, timestamp)
			SELECT ?, id, position, context, source, '', id_hash, content_hash, location,
				CASE WHEN ? = 1 THEN flags ELSE '' END, explanation,
				CASE WHEN ? = 1 AND flags LIKE '%read-only%' THEN CAST(? AS INTEGER) ELSE CAST(? AS INTEGER) END,
				priority, num_words, num_chars, ?
			FROM units WHERE translation_id = ? ORDER BY id`, id, bilingual, bilingual, index.StateReadOnly,
			index.StateEmpty, formatTime(tx.now), source); err != nil {
			return err
		}
		if err := noteTranslationUnits(tx, id); err != nil {
			return err
		}
		// Every unit of the new translation is new: count them all
		// (migration 0019), as unitInserter counts the ones it adds.
		if _, err := tx.Exec(`INSERT INTO list_counts (list, scope, bucket, n)
			SELECT 'ut', translation_id, id >> 10, count(*) FROM units WHERE translation_id = ?
			GROUP BY translation_id, id >> 10
			ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n`, id); err != nil {
			return err
		}
		ids := scopeIDs{translationID: id, componentID: componentID, projectID: c.ProjectID, languageCode: languageCode}
		if err := refreshTranslationStats(tx, ids); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO pending_files (component_id, path, operation, language_code,
			user_id, created) VALUES (?, ?, 'add', ?, ?, ?) ON CONFLICT (component_id, path, language_code)
			DO UPDATE SET operation = 'add', user_id = excluded.user_id, created = excluded.created`, componentID, filename, languageCode, nullID(by.UserID),
			formatTime(tx.now)); err != nil {
			return err
		}
		return insertChange(tx, index.Change{Action: index.ActionLanguageAdded, ProjectID: c.ProjectID,
			ComponentID: componentID, TranslationID: id, LanguageCode: languageCode,
			UserID: by.UserID, AuthorID: by.AuthorID})
	})
	return id, err
}

// DeleteTranslation removes the translation with the given id, its units
// and its statistics, records "Translation removed" (25) by the actor on
// its component, and marks its file for the next commit to remove
// (pending_files) — or, when the file was never committed, forgets that
// it was to be created. The source translation cannot be removed
// (ErrPermission). ErrNotFound when there is no such translation.
func (db *DB) DeleteTranslation(ctx context.Context, id int64, by index.Actor) error {
	return db.write(ctx, func(tx *Tx) error {
		var componentID int64
		var code string
		var isSource bool
		if err := tx.QueryRow(`SELECT component_id, language_code, is_source FROM translations
			WHERE id = ?`, id).Scan(&componentID, &code, &isSource); err != nil {
			return err
		}
		if isSource {
			return index.Errorf(index.ErrPermission, "Can not delete translation")
		}
		filename, err := removeTranslation(tx, id, by)
		if err != nil {
			return err
		}
		if filename == "" {
			return nil
		}
		// A row is one language's (migration 0054): the one file of a
		// String Catalog is every language's path.
		res, err := tx.Exec(`DELETE FROM pending_files WHERE component_id = ? AND path = ?
			AND language_code = ? AND operation = 'add'`, componentID, filename, code)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
		_, err = tx.Exec(`INSERT INTO pending_files (component_id, path, operation, language_code,
			user_id, created) VALUES (?, ?, 'delete', ?, ?, ?) ON CONFLICT (component_id, path, language_code)
			DO UPDATE SET operation = 'delete', user_id = excluded.user_id, created = excluded.created`,
			componentID, filename, code, nullID(by.UserID), formatTime(tx.now))
		return err
	})
}

// FindPendingFiles returns the file operations the next commit owes the
// component, by path.
func (db *DB) FindPendingFiles(ctx context.Context, componentID int64) ([]index.PendingFile, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT path, operation, language_code, coalesce(user_id, 0) FROM pending_files
		WHERE component_id = ? ORDER BY path, language_code`, componentID)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.PendingFile
	for rows.Next() {
		var f index.PendingFile
		if err := rows.Scan(&f.Path, &f.Operation, &f.LanguageCode, &f.UserID); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, formatError(rows.Err())
}

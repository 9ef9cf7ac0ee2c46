package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tolk-project/tolk/index"
)

// The reference's messages for a component name or slug taken in its
// project (Component.clean_unique_together).
const (
	componentNameTaken = "Component with this name already exists in the project."
	componentSlugTaken = "Component with this URL slug already exists in the project."
)

// componentSettings is the settings document stored for c: everything
// but what has a column of its own or belongs to another table.
func componentSettings(c index.Component) (string, error) {
	c.ID, c.ProjectID, c.Project, c.Locked, c.Import = 0, 0, index.Project{}, false, index.ImportStatus{}
	c.CategoryID, c.LinkedID, c.CategoryPath = 0, 0, "" // columns of their own
	body, err := json.Marshal(c)
	return string(body), err
}

// RecordImport stores how the component's last import or update went
// (Component.Import), replacing what the previous one stored. It
// returns ErrNotFound when the component does not exist.
func (db *DB) RecordImport(ctx context.Context, componentID int64, st index.ImportStatus) error {
	skipped := make([]skippedFileJSON, 0, len(st.Skipped))
	for _, sk := range st.Skipped {
		skipped = append(skipped, skippedFileJSON{Filename: sk.Filename, Reason: sk.Reason})
	}
	body, err := json.Marshal(skipped)
	if err != nil {
		return err
	}
	return db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE components SET import_error = ?, import_skipped = ? WHERE id = ?`,
			st.Error, string(body), componentID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return index.Errorf(index.ErrNotFound, "component %d not found", componentID)
		}
		return nil
	})
}

// CreateComponent adds a component to the project c.ProjectID and
// records "Component created" (51) by the actor, and returns it with its
// ID and project. It imports nothing: the caller starts the import. A
// name or slug the project already has is a *index.FieldError on that
// field; ErrNotFound when the project does not exist.
func (db *DB) CreateComponent(ctx context.Context, c index.Component, by index.Actor) (index.Component, error) {
	var saved index.Component
	err := db.write(ctx, func(tx *Tx) error {
		if err := checkComponentUnique(tx, c); err != nil {
			return err
		}
		if err := checkComponentCategory(tx, c); err != nil {
			return err
		}
		if err := resolveLink(tx, &c); err != nil {
			return err
		}
		settings, err := componentSettings(c)
		if err != nil {
			return err
		}
		var id int64
		if err := tx.QueryRow(`INSERT INTO components
			(project_id, slug, name, source_language, is_glossary, settings, category_id) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			c.ProjectID, c.Slug, c.Name, c.SourceLanguage, c.IsGlossary, settings, nullID(c.CategoryID)).Scan(&id); err != nil {
			return err
		}
		if err := setLinked(tx, id, c.LinkedID); err != nil {
			return err
		}
		if err := insertChange(tx, index.Change{Action: index.ActionComponentCreated, ProjectID: c.ProjectID,
			ComponentID: id, UserID: by.UserID, AuthorID: by.AuthorID, Target: c.Name,
			Details: `{"origin":"api"}`}); err != nil {
			return err
		}
		saved, err = findComponentByID(tx, id)
		return err
	})
	return saved, err
}

// checkComponentUnique answers a *index.FieldError when another
// component of c's project has c's name or slug, and ErrNotFound when
// the project does not exist.
func checkComponentUnique(tx *Tx, c index.Component) error {
	var project int
	if err := tx.QueryRow(`SELECT count(*) FROM projects WHERE id = ?`, c.ProjectID).Scan(&project); err != nil {
		return err
	}
	if project == 0 {
		return index.ErrNotFound
	}
	var fe index.FieldError
	for _, u := range []struct{ attr, column, value, msg string }{
		{"name", "name", c.Name, componentNameTaken}, {"slug", "slug", c.Slug, componentSlugTaken},
	} {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM components
			WHERE project_id = ? AND `+u.column+` = ? AND id != ?`, c.ProjectID, u.value, c.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			fe.Add(u.attr, "unique", u.msg)
		}
	}
	// A category at the component's level takes the slug too
	// (checkCategory).
	if _, taken := fe.Fields["slug"]; !taken {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM categories WHERE project_id = ?
			AND coalesce(category_id, 0) = ? AND slug = ?`, c.ProjectID, c.CategoryID, c.Slug).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			fe.Add("slug", "unique", componentSlugTaken)
		}
	}
	return fe.Err()
}

// UpdateComponent reads the component with the given id, lets update
// change its settings and stores the result, in one transaction, so that
// two concurrent partial updates never undo each other. It returns the
// component before and after, so that the caller can tell whether what
// the import depends on changed. update's error is returned as it is; a
// name or slug another component of the project has is a
// *index.FieldError. The project, ID and lock state cannot be changed
// here. ErrNotFound when there is no such component.
func (db *DB) UpdateComponent(ctx context.Context, id int64, update func(*index.Component) error) (before, after index.Component, err error) {
	var later bool // a background recheck (checks_recheck.go)
	err = db.write(ctx, func(tx *Tx) error {
		var err error
		if before, err = findComponentByID(tx, id); err != nil {
			return err
		}
		after = before
		after.EnforcedChecks = slices.Clone(before.EnforcedChecks)
		if err := update(&after); err != nil {
			return err
		}
		after.ID, after.ProjectID, after.Project, after.Locked = id, before.ProjectID, before.Project, before.Locked
		if err := checkComponentUnique(tx, after); err != nil {
			return err
		}
		if err := checkComponentCategory(tx, after); err != nil {
			return err
		}
		if err := resolveLink(tx, &after); err != nil {
			return err
		}
		settings, err := componentSettings(after)
		if err != nil {
			return err
		}
		if _, err = tx.Exec(`UPDATE components SET slug = ?, name = ?, source_language = ?,
			is_glossary = ?, settings = ?, category_id = ? WHERE id = ?`, after.Slug, after.Name, after.SourceLanguage,
			after.IsGlossary, settings, nullID(after.CategoryID), id); err != nil {
			return err
		}
		if err := setLinked(tx, id, after.LinkedID); err != nil {
			return err
		}
		if after.CategoryID != before.CategoryID {
			if after.CategoryPath, err = categoryPath(tx, after.CategoryID); err != nil {
				return err
			}
		}
		if before.Slug != after.Slug || before.CategoryID != after.CategoryID {
			// The links to it name its slug and category path.
			if err := relinkComponents(tx, after); err != nil {
				return err
			}
			if err := autoAssign(tx, id); err != nil {
				return err
			}
		}
		later, err = recheckComponent(tx, before, after, db.rechecks.inline)
		return err
	})
	if err == nil && later {
		db.recheckInBackground(id)
	}
	return before, after, err
}

// DeleteComponent removes the component with the given id with its
// translations, units, changes and statistics, and records "Component
// removed" (38) on its project by the actor. It returns the removed
// component, whose checkout the caller removes once this has committed.
// ErrNotFound when there is no such component.
func (db *DB) DeleteComponent(ctx context.Context, id int64, by index.Actor) (index.Component, error) {
	var c index.Component
	err := db.write(ctx, func(tx *Tx) error {
		var err error
		if c, err = findComponentByID(tx, id); err != nil {
			return err
		}
		if err := removeComponent(tx, id, c.ProjectID, c.Name, by); err != nil {
			return err
		}
		// The component's add-ons went with it, and their deliveries go.
		if err := forgetOrphanDeliveries(tx); err != nil {
			return err
		}
		return tx.reloadHooks()
	})
	return c, err
}

// dropComponentStats takes every translation of a component out of the
// project and language totals and deletes the component's own
// statistics rows, ahead of the component's removal.
func dropComponentStats(tx *Tx, componentID int64) error {
	ids, err := translationIDs(tx, `component_id = ?`, componentID)
	if err != nil {
		return err
	}
	for _, tid := range ids {
		if err := dropTranslationStats(tx, tid); err != nil {
			return err
		}
	}
	tx.forgetStamps()
	_, err = tx.Exec(`DELETE FROM stats WHERE scope = 'c' AND scope_key = ?`, itoa(componentID))
	return err
}

// dropTranslationStats takes a translation's statistics out of its
// component, project and language totals and deletes its own row, ahead
// of its removal.
func dropTranslationStats(tx *Tx, translationID int64) error {
	ids, err := translationScope(tx, translationID)
	if err != nil {
		return err
	}
	if err := applyTranslationStats(tx, ids, index.Stats{}); err != nil {
		return err
	}
	tx.forgetStamps()
	_, err = tx.Exec(`DELETE FROM stats WHERE scope = 't' AND scope_key = ?`, itoa(translationID))
	return err
}

// translationIDs returns the ids of the translations matching where.
func translationIDs(tx *Tx, where string, args ...any) ([]int64, error) {
	return queryIDs(tx, `SELECT id FROM translations WHERE `+where+` ORDER BY id`, args...)
}

// RemoveStaleTranslations removes the translations of a component whose
// language is not in keep: after an import, those whose file is gone
// from the repository (or no longer matches the filemask), as the
// reference removes them. The source translation is never removed, nor
// a translation added through the API whose file the next commit creates
// (pending_files). Each removal records "Translation removed" (25) as an
// automatic change. It returns the removed language codes.
func (db *DB) RemoveStaleTranslations(ctx context.Context, componentID int64, keep []string) ([]string, error) {
	var removed []string
	err := db.write(ctx, func(tx *Tx) error {
		removed = removed[:0] // a write may run again (writer.go)
		rows, err := tx.Query(`SELECT t.id, t.language_code FROM translations t
			WHERE t.component_id = ? AND t.is_source = 0 AND NOT EXISTS (SELECT 1 FROM pending_files f
				WHERE f.component_id = t.component_id AND f.language_code = t.language_code AND f.operation = 'add')
			ORDER BY t.id`, componentID)
		if err != nil {
			return err
		}
		var stale []int64
		for rows.Next() {
			var id int64
			var code string
			if err := rows.Scan(&id, &code); err != nil {
				rows.Close()
				return err
			}
			if !slices.Contains(keep, code) {
				stale = append(stale, id)
				removed = append(removed, code)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range stale {
			if _, err := removeTranslation(tx, id, index.Actor{}); err != nil {
				return err
			}
		}
		return nil
	})
	return removed, err
}

// removeTranslation deletes a translation with its units and statistics
// and records "Translation removed" (25) by the actor on its component
// (the change cannot point at the translation it outlives). It returns
// the translation's file name.
func removeTranslation(tx *Tx, id int64, by index.Actor) (string, error) {
	ids, err := translationScope(tx, id)
	if err != nil {
		return "", err
	}
	var filename string
	if err := tx.QueryRow(`SELECT filename FROM translations WHERE id = ?`, id).Scan(&filename); err != nil {
		return "", err
	}
	if err := dropTranslationStats(tx, id); err != nil {
		return "", err
	}
	tx.inconsistentLeft(ids.projectID, ids.componentID, ids.languageCode)
	if err := countBeforeDelete(tx); err != nil { // its units go by cascade
		return "", err
	}
	if _, err := tx.Exec(`DELETE FROM translations WHERE id = ?`, id); err != nil {
		return "", fmt.Errorf("delete translation %d: %w", id, err)
	}
	return filename, insertChange(tx, index.Change{Action: index.ActionTranslationRemoved,
		ProjectID: ids.projectID, ComponentID: ids.componentID, LanguageCode: ids.languageCode,
		UserID: by.UserID, AuthorID: by.AuthorID, Target: filename})
}

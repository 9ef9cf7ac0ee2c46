package sqlstore

import (
	"context"
	"fmt"

	"github.com/tolk-project/tolk/index"
)

// The reference's messages for a taken name or slug (its model's unique
// fields, as its serializer words them).
const (
	projectNameTaken = "Project with this Project name already exists."
	projectSlugTaken = "Project with this URL slug already exists."
)

// CreateProject adds a project and records "Project created" (50) by
// the actor. A creator who is not a superuser gets the Administration
// role in the new project, as the reference adds them to its team, so
// that they can go on to add components. A name or slug already taken is
// a *index.FieldError on that field.
func (db *DB) CreateProject(ctx context.Context, p index.Project, by index.Actor) (index.Project, error) {
	err := db.write(ctx, func(tx *Tx) error {
		if err := checkProjectUnique(tx, p); err != nil {
			return err
		}
		err := tx.QueryRow(`INSERT INTO projects (slug, name, web, instructions,
			translation_review, source_review, set_language_team, enable_hooks, language_aliases, access_control, hook_secret,
			use_shared_tm, contribute_shared_tm)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, p.Slug, p.Name, p.Web, p.Instructions,
			p.TranslationReview, p.SourceReview, p.SetLanguageTeam, p.EnableHooks, p.LanguageAliases,
			p.AccessControl, p.HookSecret, boolInt(p.UseSharedTM), boolInt(p.ContributeSharedTM)).Scan(&p.ID)
		if err != nil {
			return err
		}
		if by.UserID != 0 {
			var superuser bool
			if err := tx.QueryRow(`SELECT is_superuser FROM users WHERE id = ?`,
				by.UserID).Scan(&superuser); err != nil {
				return fmt.Errorf("creator: %w", err)
			}
			if !superuser {
				team, err := builtinTeam(tx, "Administration", p.ID, true)
				if err != nil {
					return err
				}
				if _, err := tx.Exec(`INSERT INTO team_members (team_id, user_id) VALUES (?, ?)`,
					team, by.UserID); err != nil {
					return err
				}
			}
		}
		return insertChange(tx, index.Change{Action: index.ActionProjectCreated, ProjectID: p.ID,
			UserID: by.UserID, AuthorID: by.AuthorID, Target: p.Name})
	})
	return p, err
}

// checkProjectUnique answers a *index.FieldError when another project
// (one with a different ID) has p's name or slug.
func checkProjectUnique(tx *Tx, p index.Project) error {
	var fe index.FieldError
	for _, c := range []struct{ attr, column, value, msg string }{
		{"name", "name", p.Name, projectNameTaken}, {"slug", "slug", p.Slug, projectSlugTaken},
	} {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM projects WHERE `+c.column+` = ? AND id != ?`,
			c.value, p.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			fe.Add(c.attr, "unique", c.msg)
		}
	}
	return fe.Err()
}

// UpdateProject reads the project with the given id, lets update change
// it and stores the result, in one transaction, so that two concurrent
// partial updates never undo each other. It returns the project before
// and after. update's error is returned as it is (a *index.FieldError
// for invalid input); a name or slug another project has is a
// *index.FieldError too. ErrNotFound when there is no such project.
func (db *DB) UpdateProject(ctx context.Context, id int64, update func(*index.Project) error) (before, after index.Project, err error) {
	err = db.write(ctx, func(tx *Tx) error {
		row := tx.QueryRow(`SELECT `+projectColumns+` FROM projects p WHERE p.id = ?`, id)
		if err := scanProject(row, &before); err != nil {
			return err
		}
		after = before
		if err := update(&after); err != nil {
			return err
		}
		after.ID = id
		if err := checkProjectUnique(tx, after); err != nil {
			return err
		}
		_, err := tx.Exec(`UPDATE projects SET slug = ?, name = ?, web = ?, instructions = ?,
			translation_review = ?, source_review = ?, set_language_team = ?, enable_hooks = ?,
			language_aliases = ?, access_control = ?, hook_secret = ?, use_shared_tm = ?, contribute_shared_tm = ?
			WHERE id = ?`, after.Slug, after.Name,
			after.Web, after.Instructions, after.TranslationReview, after.SourceReview, after.SetLanguageTeam,
			after.EnableHooks, after.LanguageAliases, after.AccessControl, after.HookSecret,
			boolInt(after.UseSharedTM), boolInt(after.ContributeSharedTM), id)
		if err != nil || before.Slug == after.Slug {
			return err
		}
		// Components linked to this project's components name it in
		// their weblate:// repo: rewrite them, as a component rename does.
		comps, err := componentsOf(tx, id)
		if err != nil {
			return err
		}
		ids := make([]int64, len(comps))
		for i, c := range comps {
			if err := relinkComponents(tx, c); err != nil {
				return err
			}
			ids[i] = c.ID
		}
		// Component lists' rules match the project's slug too.
		return autoAssign(tx, ids...)
	})
	return before, after, err
}

// DeleteProject removes the project with the given id and everything in
// it: components, translations, units, changes, grants and project
// tokens, and their statistics, the language totals included. It
// returns the removed components, whose checkouts the caller removes
// from disk once this has committed. The components of other projects
// linked to its components go too (removeComponent, recorded as
// automatic removals on their projects). ErrNotFound when there is no
// such project.
func (db *DB) DeleteProject(ctx context.Context, id int64) ([]index.Component, error) {
	var removed []index.Component
	err := db.write(ctx, func(tx *Tx) error {
		var err error
		if removed, err = componentsOf(tx, id); err != nil {
			return err
		}
		for _, c := range removed {
			if err := deleteLinkedComponents(tx, c.ID, index.Actor{}); err != nil {
				return err
			}
		}
		for _, c := range removed {
			if err := dropComponentStats(tx, c.ID); err != nil {
				return err
			}
		}
		res, err := tx.Exec(`DELETE FROM projects WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return index.ErrNotFound
		}
		pid := itoa(id)
		tx.forgetStamps()
		// '0' sorts right after '/': the range is every "<id>/<code>" key.
		if _, err = tx.Exec(`DELETE FROM stats WHERE (scope = 'p' AND scope_key = ?)
			OR (scope = 'pl' AND scope_key > ? AND scope_key < ?)`, pid, pid+"/", pid+"0"); err != nil {
			return err
		}
		// The project's add-ons went with it, and their deliveries go.
		if err := forgetOrphanDeliveries(tx); err != nil {
			return err
		}
		return tx.reloadHooks()
	})
	return removed, err
}

// componentsOf reads the components of a project inside a transaction.
func componentsOf(tx *Tx, projectID int64) ([]index.Component, error) {
	rows, err := tx.Query(`SELECT `+componentColumns+`
		FROM components c JOIN projects p ON p.id = c.project_id WHERE c.project_id = ? ORDER BY c.id`, projectID)
	if err != nil {
		return nil, err
	}
	return collectComponents(rows)
}

package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/tolk-project/tolk/index"
)

// Component lists (migration 0041).

// The reference's words for a name or slug another list has.
const (
	componentListNameTaken = "Component list with this Name already exists."
	componentListSlugTaken = "Component list with this URL slug already exists."
)

// FindComponentListPage returns one page of the component lists in
// ascending id order, with their components, and their number.
func (db *DB) FindComponentListPage(ctx context.Context, pg index.Page) ([]index.ComponentList, int, error) {
	var total int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM componentlists`).Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if total == 0 || pg.Offset() >= total {
		return nil, total, nil
	}
	rows, err := db.r.QueryContext(ctx, `SELECT id, name, slug, show_dashboard FROM componentlists
		ORDER BY id LIMIT ? OFFSET ?`, pageLimit(pg), pg.Offset())
	if err != nil {
		return nil, 0, formatError(err)
	}
	var out []index.ComponentList
	for rows.Next() {
		var l index.ComponentList
		if err := rows.Scan(&l.ID, &l.Name, &l.Slug, &l.ShowDashboard); err != nil {
			rows.Close()
			return nil, 0, formatError(err)
		}
		out = append(out, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, formatError(err)
	}
	for i := range out {
		if out[i].Components, err = listComponents(ctx, db.r, out[i].ID); err != nil {
			return nil, 0, formatError(err)
		}
		if out[i].AutoAssign, err = listRules(ctx, db.r, out[i].ID); err != nil {
			return nil, 0, formatError(err)
		}
	}
	return out, total, nil
}

// FindComponentList returns a component list with its components by
// slug, or ErrNotFound.
func (db *DB) FindComponentList(ctx context.Context, slug string) (index.ComponentList, error) {
	l, err := findComponentList(ctx, db.r, `slug = ?`, slug)
	return l, formatError(err)
}

// FindComponentListByID returns a component list with its components by
// id, or ErrNotFound.
func (db *DB) FindComponentListByID(ctx context.Context, id int64) (index.ComponentList, error) {
	l, err := findComponentList(ctx, db.r, `id = ?`, id)
	return l, formatError(err)
}

func findComponentList(ctx context.Context, q queryer, where string, arg any) (index.ComponentList, error) {
	var l index.ComponentList
	err := q.QueryRowContext(ctx, `SELECT id, name, slug, show_dashboard FROM componentlists WHERE `+where, arg).
		Scan(&l.ID, &l.Name, &l.Slug, &l.ShowDashboard)
	if errors.Is(err, sql.ErrNoRows) {
		return l, index.Errorf(index.ErrNotFound, "No component list matches the given query.")
	}
	if err != nil {
		return l, err
	}
	if l.Components, err = listComponents(ctx, q, l.ID); err != nil {
		return l, err
	}
	l.AutoAssign, err = listRules(ctx, q, l.ID)
	return l, err
}

// listComponents returns the components of a list with their projects.
func listComponents(ctx context.Context, q queryer, listID int64) ([]index.Component, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+componentColumns+` FROM componentlist_components lc
		JOIN components c ON c.id = lc.component_id JOIN projects p ON p.id = c.project_id
		WHERE lc.list_id = ? ORDER BY c.id`, listID)
	if err != nil {
		return nil, err
	}
	return collectComponents(rows)
}

// CreateComponentList adds a component list with its rules, and the
// components they match, and returns it; a name or slug taken is an
// *index.FieldError.
func (db *DB) CreateComponentList(ctx context.Context, l index.ComponentList) (index.ComponentList, error) {
	var saved index.ComponentList
	err := db.write(ctx, func(tx *Tx) error {
		if err := componentListFree(tx, l, 0); err != nil {
			return err
		}
		res, err := tx.Exec(`INSERT INTO componentlists (name, slug, show_dashboard) VALUES (?, ?, ?)`,
			l.Name, l.Slug, l.ShowDashboard)
		if err != nil {
			return err
		}
		id, err := tx.lastInsertID(res)
		if err != nil {
			return err
		}
		if err := storeRules(tx, id, nil, l.AutoAssign); err != nil {
			return err
		}
		saved, err = findComponentList(context.Background(), tx.queryer(), `id = ?`, id)
		return err
	})
	return saved, err
}

func componentListFree(tx *Tx, l index.ComponentList, self int64) error {
	var names, slugs int
	if err := tx.QueryRow(`SELECT
		(SELECT count(*) FROM componentlists WHERE name = ? AND id <> ?),
		(SELECT count(*) FROM componentlists WHERE slug = ? AND id <> ?)`, l.Name, self, l.Slug, self).
		Scan(&names, &slugs); err != nil {
		return err
	}
	fe := &index.FieldError{}
	if names > 0 {
		fe.Add("name", "unique", componentListNameTaken)
	}
	if slugs > 0 {
		fe.Add("slug", "unique", componentListSlugTaken)
	}
	return fe.Err()
}

// UpdateComponentList applies update to the stored list in one
// transaction and returns it.
func (db *DB) UpdateComponentList(ctx context.Context, id int64, update func(*index.ComponentList) error) (index.ComponentList, error) {
	var saved index.ComponentList
	err := db.write(ctx, func(tx *Tx) error {
		l, err := findComponentList(context.Background(), tx.queryer(), `id = ?`, id)
		if err != nil {
			return err
		}
		before := l.AutoAssign
		l.AutoAssign = slices.Clone(before)
		if err := update(&l); err != nil {
			return err
		}
		if err := componentListFree(tx, l, id); err != nil {
			return err
		}
		if err := storeRules(tx, id, before, l.AutoAssign); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE componentlists SET name = ?, slug = ?, show_dashboard = ? WHERE id = ?`,
			l.Name, l.Slug, l.ShowDashboard, id); err != nil {
			return err
		}
		saved, err = findComponentList(context.Background(), tx.queryer(), `id = ?`, id)
		return err
	})
	return saved, err
}

// DeleteComponentList removes a component list; the teams selecting
// through it lose its components.
func (db *DB) DeleteComponentList(ctx context.Context, id int64) error {
	return db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`DELETE FROM componentlists WHERE id = ?`, id)
		return err
	})
}

// LinkComponentList adds (or, with add false, removes) a component to a
// list; adding a listed one or removing an unlisted one changes nothing.
func (db *DB) LinkComponentList(ctx context.Context, listID, componentID int64, add bool) error {
	return db.write(ctx, func(tx *Tx) error {
		var err error
		if add {
			_, err = tx.Exec(`INSERT INTO componentlist_components (list_id, component_id) VALUES (?, ?)
				ON CONFLICT DO NOTHING`, listID, componentID)
		} else {
			_, err = tx.Exec(`DELETE FROM componentlist_components WHERE list_id = ? AND component_id = ?`,
				listID, componentID)
		}
		return err
	})
}

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
	if err := fillComponentLists(ctx, db.r, out); err != nil {
		return nil, 0, formatError(err)
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
	one := []index.ComponentList{l}
	err = fillComponentLists(ctx, q, one)
	return one[0], err
}

// fillComponentLists reads the components (with their projects, in id
// order) and the auto_assign rules of lists, in one query each per
// maxInList lists, not two per list.
func fillComponentLists(ctx context.Context, q queryer, lists []index.ComponentList) error {
	at := make(map[int64]*index.ComponentList, len(lists))
	ids := make([]int64, len(lists))
	for i := range lists {
		ids[i], at[lists[i].ID] = lists[i].ID, &lists[i]
	}
	for chunk := range slices.Chunk(ids, maxInList) {
		list, args := idList(chunk)
		rows, err := q.QueryContext(ctx, `SELECT `+componentColumns+`, lc.list_id FROM componentlist_components lc
			JOIN components c ON c.id = lc.component_id JOIN projects p ON p.id = c.project_id
			WHERE lc.list_id IN `+list+` ORDER BY lc.list_id, c.id`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var listID int64
			c, err := scanComponent(scanExtra{rows, &listID})
			if err != nil {
				rows.Close()
				return err
			}
			at[listID].Components = append(at[listID].Components, c)
		}
		if err := closeRows(rows); err != nil {
			return err
		}
		rows, err = q.QueryContext(ctx, `SELECT list_id, project_match, component_match FROM componentlist_rules
			WHERE list_id IN `+list+` ORDER BY list_id, position`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var listID int64
			var a index.AutoAssign
			if err := rows.Scan(&listID, &a.ProjectMatch, &a.ComponentMatch); err != nil {
				rows.Close()
				return err
			}
			at[listID].AutoAssign = append(at[listID].AutoAssign, a)
		}
		if err := closeRows(rows); err != nil {
			return err
		}
	}
	return nil
}

// closeRows closes rows and returns the error that ended their
// iteration, if any.
func closeRows(rows *sql.Rows) error {
	if err := rows.Close(); err != nil {
		return err
	}
	return rows.Err()
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

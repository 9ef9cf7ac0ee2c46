package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"

	"github.com/tolk-project/tolk/index"
)

// Labels of a project and the labels of its source units (reference
// workspace §7.1). A unit read carries its source unit's labels, read
// with it (withLabels): one query per unit or page, on the primary key
// of unit_labels. Label writes are rare and change what every
// translation's units show, so they touch everything (db.write, or
// Tx.widen inside a narrow write).

const labelColumns = `l.id, l.project_id, l.name, l.description, l.color`

func scanLabel(s interface{ Scan(...any) error }) (index.Label, error) {
	var l index.Label
	err := s.Scan(&l.ID, &l.ProjectID, &l.Name, &l.Description, &l.Color)
	return l, err
}

// FindLabels returns one page of a project's labels in id order and how
// many it has.
func (db *DB) FindLabels(ctx context.Context, projectID int64, p index.Page) ([]index.Label, int, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer tx.Rollback()
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM labels WHERE project_id = ?`, projectID).
		Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if p.Offset() < 0 || p.Size <= 0 || p.Offset() >= total {
		return nil, total, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+labelColumns+` FROM labels l WHERE l.project_id = ?
		ORDER BY l.id LIMIT ? OFFSET ?`, projectID, p.Size, p.Offset())
	if err != nil {
		return nil, 0, formatError(err)
	}
	out, err := scanLabels(rows)
	return out, total, formatError(err)
}

func scanLabels(rows *sql.Rows) ([]index.Label, error) {
	defer rows.Close()
	var out []index.Label
	for rows.Next() {
		l, err := scanLabel(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// CreateLabel adds a label to its project (l.ProjectID) once check
// allows it (check's error is returned as is); a name the project
// already has is index.ErrLabelExists. It returns the label with its id.
func (db *DB) CreateLabel(ctx context.Context, l index.Label, check func() error) (index.Label, error) {
	err := db.write(ctx, func(tx *Tx) error {
		if err := check(); err != nil {
			return err
		}
		if err := index.CheckLabel(&l); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM labels WHERE project_id = ? AND name = ?`,
			l.ProjectID, l.Name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return index.ErrLabelExists
		}
		var err error
		l.ID, err = insertLabel(tx, l)
		return err
	})
	return l, err
}

func insertLabel(tx *Tx, l index.Label) (int64, error) {
	res, err := tx.Exec(`INSERT INTO labels (project_id, name, description, color) VALUES (?, ?, ?, ?)`,
		l.ProjectID, l.Name, l.Description, l.Color)
	if err != nil {
		return 0, err
	}
	return tx.lastInsertID(res)
}

// ensureLabel returns the project's label of that name, adding it with
// color when missing.
func ensureLabel(tx *Tx, projectID int64, name, color string) (index.Label, error) {
	l, err := scanLabel(tx.QueryRow(`SELECT `+labelColumns+` FROM labels l WHERE l.project_id = ? AND l.name = ?`,
		projectID, name))
	if !errors.Is(err, sql.ErrNoRows) {
		return l, err
	}
	tx.widen()
	l = index.Label{ProjectID: projectID, Name: name, Color: color}
	l.ID, err = insertLabel(tx, l)
	return l, err
}

// DeleteLabel removes a label of a project, and with it from every unit
// it was on, once check allows it; a label of another project, or none,
// is ErrNotFound.
func (db *DB) DeleteLabel(ctx context.Context, projectID, id int64, check func() error) error {
	return db.write(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM labels WHERE id = ? AND project_id = ?`, id, projectID).
			Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return index.Errorf(index.ErrNotFound, "Not found.")
		}
		if err := check(); err != nil {
			return err
		}
		_, err := tx.Exec(`DELETE FROM labels WHERE id = ?`, id)
		return err
	})
}

// withLabels fills the Labels of units with their source units' labels,
// in label id order.
func withLabels(ctx context.Context, q queryer, units []index.Unit) error {
	if len(units) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(units))
	for i := range units {
		if id := labelHolder(&units[i]); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	list, args := idList(ids)
	rows, err := q.QueryContext(ctx, `SELECT ul.unit_id, `+labelColumns+` FROM unit_labels ul
		JOIN labels l ON l.id = ul.label_id WHERE ul.unit_id IN `+list+` ORDER BY ul.unit_id, l.id`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	byUnit := map[int64][]index.Label{}
	for rows.Next() {
		var unitID int64
		var l index.Label
		if err := rows.Scan(&unitID, &l.ID, &l.ProjectID, &l.Name, &l.Description, &l.Color); err != nil {
			return err
		}
		byUnit[unitID] = append(byUnit[unitID], l)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range units {
		if ls := byUnit[labelHolder(&units[i])]; ls != nil {
			units[i].Labels = ls
		}
	}
	return nil
}

// labelHolder is the unit whose labels u shows: its source unit.
func labelHolder(u *index.Unit) int64 {
	if u.SourceUnitID != 0 {
		return u.SourceUnitID
	}
	return u.ID
}

// projectLabels reads the labels of project projectID that ids name,
// each once, in the order named, in one query; an id the project has no
// label of is a FieldError on labels.
func projectLabels(tx *Tx, projectID int64, ids []int64) ([]index.Label, error) {
	var uniq []int64
	for _, id := range ids {
		if !slices.Contains(uniq, id) {
			uniq = append(uniq, id)
		}
	}
	out := make([]index.Label, 0, len(uniq))
	if len(uniq) == 0 {
		return out, nil
	}
	found := make(map[int64]index.Label, len(uniq))
	for chunk := range slices.Chunk(uniq, maxInList) {
		list, args := idList(chunk)
		rows, err := tx.Query(`SELECT `+labelColumns+` FROM labels l WHERE l.project_id = ? AND l.id IN `+list,
			append([]any{projectID}, args...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			l, err := scanLabel(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			found[l.ID] = l
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	for _, id := range uniq {
		l, ok := found[id]
		if !ok {
			return nil, index.FieldErr("labels", "does_not_exist", index.MsgLabelNotFound)
		}
		out = append(out, l)
	}
	return out, nil
}

// sameLabels accepts label ids sent to a translation's unit u when they
// are the labels it shows (see index.UnitUpdate.SameLabels).
func sameLabels(tx *Tx, u *index.Unit, projectID int64, ids []int64) error {
	sent, err := projectLabels(tx, projectID, ids)
	if err != nil {
		return err
	}
	shown := []index.Unit{*u}
	if err := withLabels(runCtx, tx.queryer(), shown); err != nil {
		return err
	}
	if len(sent) != len(shown[0].Labels) {
		return index.ErrSourceProperties
	}
	for _, l := range sent {
		if !slices.ContainsFunc(shown[0].Labels, func(h index.Label) bool { return h.ID == l.ID }) {
			return index.ErrSourceProperties
		}
	}
	return nil
}

// setLabels gives source unit u exactly the labels ids name, which must
// be labels of project projectID (else a FieldError on labels), and
// records "Label added" (86) and "Label removed" (87) for each one
// added or taken away.
func (e *unitEditor) setLabels(u *index.Unit, projectID int64, ids []int64) error {
	want, err := projectLabels(e.tx, projectID, ids)
	if err != nil {
		return err
	}
	var add, remove []index.Label
	for _, l := range want {
		if !slices.ContainsFunc(u.Labels, func(h index.Label) bool { return h.ID == l.ID }) {
			add = append(add, l)
		}
	}
	for _, h := range u.Labels {
		if !slices.ContainsFunc(want, func(l index.Label) bool { return l.ID == h.ID }) {
			remove = append(remove, h)
		}
	}
	for _, l := range remove {
		e.tx.widen()
		if _, err := e.tx.Exec(`DELETE FROM unit_labels WHERE unit_id = ? AND label_id = ?`, u.ID, l.ID); err != nil {
			return err
		}
		if err := e.labelChange(index.ActionLabelRemove, u.ID, l.Name); err != nil {
			return err
		}
	}
	if err := e.addLabels(u, add); err != nil {
		return err
	}
	slices.SortFunc(want, func(a, b index.Label) int { return int(a.ID - b.ID) })
	u.Labels = want
	return nil
}

// addLabels puts labels on source unit u, recording "Label added" (86)
// for each it did not have.
func (e *unitEditor) addLabels(u *index.Unit, labels []index.Label) error {
	for _, l := range labels {
		e.tx.widen() // every translation's unit shows it
		res, err := e.tx.Exec(`INSERT INTO unit_labels (unit_id, label_id) VALUES (?, ?) ON CONFLICT DO NOTHING`,
			u.ID, l.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			continue
		}
		if err := e.labelChange(index.ActionLabelAdd, u.ID, l.Name); err != nil {
			return err
		}
		u.Labels = append(u.Labels, l)
	}
	return nil
}

// labelChange records a label added to or removed from a unit, the
// label's name as the target and in the details.
func (e *unitEditor) labelChange(action index.Action, unitID int64, name string) error {
	details, err := json.Marshal(map[string]string{"label": name})
	if err != nil {
		return err
	}
	return e.change(action, unitID, name, string(details))
}

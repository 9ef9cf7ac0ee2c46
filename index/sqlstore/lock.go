package sqlstore

import (
	"context"

	"github.com/tolk-project/tolk/index"
)

// SetComponentLock locks or unlocks a component and records "Component
// locked" (14) or "Component unlocked" (15) by actor, with the
// reference's details {"auto": false}, when that changes anything:
// locking a locked component records nothing. It returns whether the
// component changed, or ErrNotFound.
func (db *DB) SetComponentLock(ctx context.Context, componentID int64, locked bool, actor index.Actor) (bool, error) {
	var changed bool
	err := db.write(ctx, func(tx *Tx) (err error) {
		changed, err = setComponentLock(tx, componentID, locked, actor)
		return err
	})
	return changed, err
}

func setComponentLock(tx *Tx, componentID int64, locked bool, actor index.Actor) (bool, error) {
	var projectID int64
	var was bool
	if err := tx.QueryRow(`SELECT project_id, locked FROM components WHERE id = ?`, componentID).
		Scan(&projectID, &was); err != nil {
		return false, err
	}
	if was == locked {
		return false, nil
	}
	if _, err := tx.Exec(`UPDATE components SET locked = ? WHERE id = ?`, locked, componentID); err != nil {
		return false, err
	}
	action := index.ActionUnlock
	if locked {
		action = index.ActionLock
	}
	return true, insertChange(tx, index.Change{Action: action, ProjectID: projectID, ComponentID: componentID,
		UserID: actor.UserID, AuthorID: actor.AuthorID, Details: `{"auto":false}`})
}

// SetProjectLock locks or unlocks every component of a project in one
// transaction, as SetComponentLock does each, and returns how many
// changed, or ErrNotFound for an unknown project.
func (db *DB) SetProjectLock(ctx context.Context, projectID int64, locked bool, actor index.Actor) (int, error) {
	var n int
	err := db.write(ctx, func(tx *Tx) error {
		var one int
		if err := tx.QueryRow(`SELECT 1 FROM projects WHERE id = ?`, projectID).Scan(&one); err != nil {
			return err
		}
		ids, err := queryIDs(tx, `SELECT id FROM components WHERE project_id = ? ORDER BY id`, projectID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			changed, err := setComponentLock(tx, id, locked, actor)
			if err != nil {
				return err
			}
			if changed {
				n++
			}
		}
		return nil
	})
	return n, err
}

// ProjectLocked reports whether a project is locked: it has components
// and every one is locked, as the reference's Project.locked says.
func (db *DB) ProjectLocked(ctx context.Context, projectID int64) (bool, error) {
	var locked bool
	err := db.r.QueryRowContext(ctx, `SELECT count(*) > 0
		AND count(*) = coalesce(sum(CASE WHEN locked != 0 THEN 1 ELSE 0 END), 0)
		FROM components WHERE project_id = ?`, projectID).Scan(&locked)
	return locked, formatError(err)
}

package sqlstore

import (
	"context"

	"github.com/tolk-project/tolk/index"
)

// ForceSync marks every unit of the component's translations pending, so
// that the next commit writes each of their files from the index, and
// records action by userID (0: nobody) with target as its text, in one
// transaction: "Forced synchronization of translations" (83) for the
// file-sync operation, "Repository reset" (19) for reset-keep. It
// returns how many units it marked. The
// source translation is left out, as the reference leaves it (its file
// is the repository's, not the index's), and so are translations without
// a file or whose file failed to parse: a commit cannot rewrite those.
// A component that does not exist is an error wrapping index.ErrNotFound.
func (db *DB) ForceSync(ctx context.Context, componentID, userID int64, action index.Action, target string) (int64, error) {
	var n int64
	err := db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE units SET pending = 1, pending_since = ?
			WHERE pending = 0 AND translation_id IN (SELECT id FROM translations
				WHERE component_id = ? AND is_source = 0 AND filename != '' AND load_error = '')`,
			formatTime(tx.now), componentID)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		return componentChange(tx, componentID, action, userID, target)
	})
	return n, err
}

// ForceScan forgets the revision of every translation of the component,
// so that the next import reads every file again instead of skipping
// those whose blob it has seen, and records "Forced rescan of
// translations" (84) by userID (0: nobody), in one transaction. A
// component that does not exist is an error wrapping index.ErrNotFound.
func (db *DB) ForceScan(ctx context.Context, componentID, userID int64) error {
	return db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`UPDATE translations SET revision = '' WHERE component_id = ?`,
			componentID); err != nil {
			return err
		}
		return componentChange(tx, componentID, index.ActionForceScan, userID, "")
	})
}

// componentChange records a change of a component as a whole (its
// repository, not one of its translations) by userID (0: nobody), with
// target as its text.
func componentChange(tx *Tx, componentID int64, action index.Action,
	userID int64, target string) error {
	ch := index.Change{Action: action, ComponentID: componentID, UserID: userID, Target: target}
	if err := tx.QueryRow(`SELECT project_id FROM components WHERE id = ?`, componentID).
		Scan(&ch.ProjectID); err != nil {
		return err
	}
	return insertChange(tx, ch)
}

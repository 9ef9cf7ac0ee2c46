package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/tolk-project/tolk/index"
)

// SharedCheckouts reports whether other processes may share the index,
// each with checkouts of its own, so that a component's head commit and
// the objects of its local commits are to be recorded (index.GitHead).
// True on PostgreSQL. SQLite's file belongs to one process, which owns
// the only checkouts: recording would copy every file Tolk commits into
// the database for nobody to read, so the git_heads tables stay empty.
func (db *DB) SharedCheckouts() bool { return db.jobs != nil }

// GitHead returns the component's recorded head (without its objects),
// or false when none is recorded.
func (db *DB) GitHead(ctx context.Context, componentID int64) (index.GitHead, bool, error) {
	h := index.GitHead{ComponentID: componentID}
	err := db.r.QueryRowContext(ctx, `SELECT head, base FROM git_heads WHERE component_id = ?`, componentID).
		Scan(&h.Head, &h.Base)
	if err = formatError(err); errors.Is(err, index.ErrNotFound) {
		return index.GitHead{}, false, nil
	}
	return h, err == nil, err
}

// GitObjects returns the objects recorded for the component's local
// commits, in no order.
func (db *DB) GitObjects(ctx context.Context, componentID int64) ([]index.GitObject, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT hash, type, data FROM git_objects WHERE component_id = ?`, componentID)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.GitObject
	for rows.Next() {
		var o index.GitObject
		if err := rows.Scan(&o.Hash, &o.Type, &o.Data); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, formatError(rows.Err())
}

// RecordGitHead records the component's head, adding its objects (or
// replacing those recorded, with h.Replace), in one transaction. It does
// nothing when the checkouts are not shared (SharedCheckouts).
func (db *DB) RecordGitHead(ctx context.Context, h index.GitHead) error {
	if !db.SharedCheckouts() {
		return nil
	}
	// No cache holds these rows.
	return db.writeNarrow(ctx, func(tx *Tx) error { return recordGitHead(ctx, tx, h) })
}

func recordGitHead(ctx context.Context, tx *Tx, h index.GitHead) error {
	if h.Replace {
		if _, err := tx.ExecContext(ctx, `DELETE FROM git_objects WHERE component_id = ?`, h.ComponentID); err != nil {
			return err
		}
	}
	if len(h.Objects) > 0 {
		put, err := tx.prepare(ctx, `INSERT INTO git_objects (component_id, hash, type, data) VALUES (?, ?, ?, ?)
			ON CONFLICT (component_id, hash) DO NOTHING`)
		if err != nil {
			return err
		}
		for _, o := range h.Objects {
			if _, err := put.ExecContext(ctx, h.ComponentID, o.Hash, o.Type, o.Data); err != nil {
				return fmt.Errorf("record object %s: %w", o.Hash, err)
			}
		}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO git_heads (component_id, head, base) VALUES (?, ?, ?)
		ON CONFLICT (component_id) DO UPDATE SET head = excluded.head, base = excluded.base`,
		h.ComponentID, h.Head, h.Base)
	return err
}

package sqlstore

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

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
		var data []byte
		if err := rows.Scan(&o.Hash, &o.Type, &data); err != nil {
			return nil, err
		}
		if o.Data, err = decompressObject(data); err != nil {
			return nil, fmt.Errorf("read object %s: %w", o.Hash, err)
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
	return db.writeNarrow(ctx, func(tx *Tx) error { return recordGitHead(tx, h) })
}

func recordGitHead(tx *Tx, h index.GitHead) error {
	if h.Replace {
		if _, err := tx.Exec(`DELETE FROM git_objects WHERE component_id = ?`, h.ComponentID); err != nil {
			return err
		}
	}
	if err := putObjects(tx, h.ComponentID, h.Objects); err != nil {
		return err
	}
	_, err := tx.Exec(`INSERT INTO git_heads (component_id, head, base) VALUES (?, ?, ?)
		ON CONFLICT (component_id) DO UPDATE SET head = excluded.head, base = excluded.base`,
		h.ComponentID, h.Head, h.Base)
	return err
}

// objectsPerInsert is how many objects one INSERT stores: a commit of
// every translation of a big component records thousands, and a round
// trip each was most of the record's time.
const objectsPerInsert = 64

// putObjects stores objects, compressed (compressObject), a statement
// per objectsPerInsert of them.
func putObjects(tx *Tx, componentID int64, objs []index.GitObject) error {
	var zw *zlib.Writer
	for len(objs) > 0 {
		n := min(len(objs), objectsPerInsert)
		var q strings.Builder
		q.WriteString(`INSERT INTO git_objects (component_id, hash, type, data) VALUES `)
		args := make([]any, 0, 4*n)
		for i, o := range objs[:n] {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?)")
			data, w, err := compressObject(zw, o.Data)
			if err != nil {
				return fmt.Errorf("record object %s: %w", o.Hash, err)
			}
			zw = w
			args = append(args, componentID, o.Hash, o.Type, data)
		}
		q.WriteString(` ON CONFLICT (component_id, hash) DO NOTHING`)
		if _, err := tx.Exec(q.String(), args...); err != nil {
			return fmt.Errorf("record objects: %w", err)
		}
		objs = objs[n:]
	}
	return nil
}

// compressObject compresses an object's content as git compresses its
// loose objects (zlib, at git's own level for them: best speed):
// translation files shrink several times, which is what the database
// writes, keeps and sends to every process that catches up. zw, when
// not nil, is reused; the writer used is returned for the next call.
func compressObject(zw *zlib.Writer, data []byte) ([]byte, *zlib.Writer, error) {
	var buf bytes.Buffer
	buf.Grow(len(data)/3 + 64)
	if zw == nil {
		var err error
		if zw, err = zlib.NewWriterLevel(&buf, zlib.BestSpeed); err != nil {
			return nil, nil, err
		}
	} else {
		zw.Reset(&buf)
	}
	if _, err := zw.Write(data); err != nil {
		return nil, zw, err
	}
	if err := zw.Close(); err != nil {
		return nil, zw, err
	}
	return buf.Bytes(), zw, nil
}

// decompressObject undoes compressObject.
func decompressObject(data []byte) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(zr)
}

package sqlstore

import (
	"context"
	"strings"
)

// unitInsertBatch is how many units one multi-row INSERT carries: enough
// to divide the per-statement cost of database/sql and the driver across
// many rows, well under SQLite's limit on parameters.
const unitInsertBatch = 64

// unitParams is the number of parameters per unit row.
const unitParams = 16

const unitInsertHead = `INSERT INTO units (translation_id, position, context, source, target,
	previous_source, id_hash, content_hash, location, note, flags, explanation, state, num_words,
	num_chars, timestamp, source_unit_id) VALUES `

const unitInsertRow = `(?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func unitInsertSQL(rows int) string {
	return unitInsertHead + strings.Repeat(unitInsertRow+", ", rows-1) + unitInsertRow
}

// unitInserter adds units within one import transaction. Units whose new
// id nobody needs (those of a translation created by this import, which
// records no change per unit) are queued and sent unitInsertBatch at a
// time; add flushes the queue first, so ids still follow file order.
type unitInserter struct {
	tx      *Tx
	one     *txStmt
	many    *txStmt
	pending []any
}

// newUnitInserter prepares its statements once per transaction (Tx.prepare),
// so that the files of one batch share them.
func newUnitInserter(ctx context.Context, tx *Tx) (*unitInserter, error) {
	insertOne := unitInsertSQL(1)
	if tx.w.d.returning {
		insertOne += " RETURNING id"
	}
	one, err := tx.prepare(ctx, insertOne)
	if err != nil {
		return nil, err
	}
	many, err := tx.prepare(ctx, unitInsertSQL(unitInsertBatch))
	if err != nil {
		return nil, err
	}
	return &unitInserter{tx: tx, one: one, many: many,
		pending: make([]any, 0, unitInsertBatch*unitParams)}, nil
}

// queue adds a unit whose id is not needed; row holds unitParams values.
func (ui *unitInserter) queue(ctx context.Context, row ...any) error {
	ui.pending = append(ui.pending, row...)
	if len(ui.pending) < unitInsertBatch*unitParams {
		return nil
	}
	return ui.flush(ctx)
}

// add inserts a unit now and returns its id.
func (ui *unitInserter) add(ctx context.Context, row ...any) (int64, error) {
	if err := ui.flush(ctx); err != nil {
		return 0, err
	}
	if ui.tx.w.d.returning {
		var id int64
		err := ui.one.QueryRowContext(ctx, row...).Scan(&id)
		return id, err
	}
	r, err := ui.one.ExecContext(ctx, row...)
	if err != nil {
		return 0, err
	}
	return ui.tx.lastInsertID(r)
}

// flush sends the queued units.
func (ui *unitInserter) flush(ctx context.Context) error {
	rows := len(ui.pending) / unitParams
	var err error
	switch {
	case rows == 0:
		return nil
	case rows == unitInsertBatch:
		_, err = ui.many.ExecContext(ctx, ui.pending...)
	default:
		_, err = ui.tx.ExecContext(ctx, unitInsertSQL(rows), ui.pending...)
	}
	ui.pending = ui.pending[:0]
	return err
}

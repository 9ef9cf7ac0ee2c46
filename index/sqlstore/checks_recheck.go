package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	gosync "sync"

	"github.com/tolk-project/tolk/index"
)

// A change of what a component's checks read (its check_flags, format,
// source language, glossary switch: recheckComponent) rechecks every
// unit of the component. In the write that changes the setting, a
// 200,000-unit component held the single writer, and every other
// component's edits, for the whole recheck. So a component over
// inlineRecheckUnits units is rechecked after that write, in the
// background, recheckBatch units per write through the writer: other
// writes are served between the batches, each batch settles its units
// whole (rows, has_failing_check, statistics), and the counts equal a
// recount after every batch. Until the last batch the units not reached
// yet show what they failed under the old settings.
//
// The recheck's place is a row of component_rechecks (migration 0060),
// written by the write that changes the settings and moved on by each
// batch's write, in the same transaction as the checks that batch
// settled: a recheck cut short by Close, a crash or a kill resumes at
// the next start (resumeRechecks) after the last batch that committed,
// and a change while one runs sets its place back to the start.

const (
	// defaultInlineRecheck: a component with at most this many units
	// is rechecked in the write that changes its settings, a few
	// hundred milliseconds at most.
	defaultInlineRecheck = 20000
	// defaultRecheckBatch units are settled per write by a background
	// recheck.
	defaultRecheckBatch = 1000
)

// rechecker runs the background rechecks of components; mu guards
// running.
type rechecker struct {
	mu gosync.Mutex
	// running holds the components being rechecked; true says a change
	// arrived meanwhile, so the recheck starts again when done.
	running map[int64]bool
	wg      gosync.WaitGroup
	// inline and batch are defaultInlineRecheck and
	// defaultRecheckBatch when 0; tests lower them (inline < 0: every
	// recheck in the background).
	inline, batch int
	// afterBatch, when not nil, runs after each batch's write but the
	// last (tests stop a recheck midway with it).
	afterBatch func()
}

// recheckInBackground starts the background recheck of a component, or
// has the running one look at its place again once it ends (the write
// that sets it back to the start may come just as it removes it).
func (db *DB) recheckInBackground(componentID int64) {
	r := &db.rechecks
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running == nil {
		r.running = map[int64]bool{}
	}
	if _, ok := r.running[componentID]; ok {
		r.running[componentID] = true
		return
	}
	r.running[componentID] = false
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			err := db.recheckUnits(componentID)
			if err != nil && !errors.Is(err, errClosed) && db.log != nil {
				db.log.Error("recheck of a component's units", "component", componentID, "err", err)
			}
			r.mu.Lock()
			again := r.running[componentID] && err == nil
			if !again {
				delete(r.running, componentID)
				r.mu.Unlock()
				return
			}
			r.running[componentID] = false
			r.mu.Unlock()
		}
	}()
}

// resumeRechecks starts the background rechecks an earlier process left
// unfinished (component_rechecks), once the writer runs.
func (db *DB) resumeRechecks(ctx context.Context) error {
	rows, err := db.r.QueryContext(ctx, `SELECT component_id FROM component_rechecks ORDER BY component_id`)
	if err != nil {
		return err
	}
	ids, err := scanIDs(rows)
	if err != nil {
		return err
	}
	for _, id := range ids {
		db.recheckInBackground(id)
	}
	return nil
}

// markRecheck records that a component's units are to be rechecked in
// the background from the start, in the write that changed its
// settings.
func markRecheck(tx *Tx, componentID int64) error {
	_, err := tx.Exec(`INSERT INTO component_rechecks (component_id, translation_id, after_unit_id)
		VALUES (?, 0, 0) ON CONFLICT (component_id) DO UPDATE SET translation_id = 0, after_unit_id = 0`,
		componentID)
	return err
}

// recheckUnits marks the units of a component for settling, a batch per
// write from the place component_rechecks keeps, until none is left;
// the writer settles what a write marked (runWrite). It ends when the
// component has no place left (rechecked, or removed).
func (db *DB) recheckUnits(componentID int64) error {
	ctx := context.Background() // a write after Close answers errClosed
	batch := db.rechecks.batch
	if batch <= 0 {
		batch = defaultRecheckBatch
	}
	for done := false; !done; {
		select {
		case <-db.closing:
			return errClosed // enqueue may still take a write when both are ready
		default:
		}
		err := db.write(ctx, func(tx *Tx) error {
			var err error
			done, err = recheckBatch(tx, componentID, batch)
			return err
		})
		if err != nil {
			return err
		}
		if hook := db.rechecks.afterBatch; hook != nil && !done {
			hook()
		}
	}
	return nil
}

// recheckBatch marks the next batch units of a component's recheck and
// moves its place past them; done says nothing was left, and the place
// is gone.
func recheckBatch(tx *Tx, componentID int64, batch int) (done bool, err error) {
	var tid, after int64
	err = tx.QueryRow(`SELECT translation_id, after_unit_id FROM component_rechecks WHERE component_id = ?`,
		componentID).Scan(&tid, &after)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	for {
		if tid != 0 {
			ids, err := queryIDs(tx, `SELECT id FROM units WHERE translation_id = ? AND id > ? ORDER BY id LIMIT ?`,
				tid, after, batch)
			if err != nil {
				return false, err
			}
			if n := len(ids); n > 0 {
				tx.recheck(false, index.Actor{}, ids...)
				_, err := tx.Exec(`UPDATE component_rechecks SET translation_id = ?, after_unit_id = ?
					WHERE component_id = ?`, tid, ids[n-1], componentID)
				return false, err
			}
		}
		// This translation is done (or none was begun): the next one.
		next, err := queryIDs(tx, `SELECT id FROM translations WHERE component_id = ? AND id > ? ORDER BY id LIMIT 1`,
			componentID, tid)
		if err != nil {
			return false, err
		}
		if len(next) == 0 {
			break
		}
		tid, after = next[0], 0
	}
	_, err = tx.Exec(`DELETE FROM component_rechecks WHERE component_id = ?`, componentID)
	return true, err
}

// recheckNow says whether a component is small enough to be rechecked
// in the write that changed its settings (see above).
func recheckNow(tx *Tx, componentID int64, inline int) (bool, error) {
	if inline == 0 {
		inline = defaultInlineRecheck
	}
	var total int64
	err := tx.QueryRow(`SELECT coalesce(sum(total), 0) FROM stats WHERE scope = 'c' AND scope_key = ?`,
		itoa(componentID)).Scan(&total)
	return total <= int64(inline), err
}

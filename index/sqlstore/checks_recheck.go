package sqlstore

import (
	"context"
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
// yet show what they failed under the old settings. A change while a
// recheck runs has it start again once done. A recheck cut short by
// Close is not resumed at the next start (the settings are; the next
// write of each unit settles it).

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
}

// recheckInBackground starts the background recheck of a component, or
// has the running one start again.
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

// recheckUnits marks the units of a component for settling, batch by
// batch, one write each; the writer settles what a write marked
// (runWrite).
func (db *DB) recheckUnits(componentID int64) error {
	ctx := context.Background() // a write after Close answers errClosed
	batch := db.rechecks.batch
	if batch <= 0 {
		batch = defaultRecheckBatch
	}
	rows, err := db.r.QueryContext(ctx, `SELECT id FROM translations WHERE component_id = ? ORDER BY id`, componentID)
	if err != nil {
		return err
	}
	translations, err := scanIDs(rows)
	if err != nil {
		return err
	}
	for _, tid := range translations {
		for after := int64(0); ; {
			n := 0
			err := db.write(ctx, func(tx *Tx) error {
				ids, err := queryIDs(tx, `SELECT id FROM units WHERE translation_id = ? AND id > ? ORDER BY id LIMIT ?`,
					tid, after, batch)
				if n = len(ids); n > 0 {
					after = ids[n-1]
					tx.recheck(false, index.Actor{}, ids...)
				}
				return err
			})
			if err != nil {
				return err
			}
			if n < batch {
				break
			}
		}
	}
	return nil
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

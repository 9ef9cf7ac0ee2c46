package sqlstore

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/index"
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

// unitInserter adds units within one write. Units whose new id nobody
// needs (those of a translation created by this import, which records no
// change per unit) are queued and sent unitInsertBatch at a time; add
// flushes the queue first, so ids still follow file order. Queued units
// are noted for the trigram index when the caller says (noted), added
// ones at once.
//
// Every unit inserted is counted in Tx.newUnits, which the write stores
// into list_counts ('ut', migration 0002; and 'mu', migration 0063, for
// a unit the memory lists) once at its end (storeUnitCounts). Migration
// 0019 dropped the trigger that did this per row: on SQLite it was a
// tenth of an import.
type unitInserter struct {
	tx      *Tx
	one     *txStmt
	many    *txStmt
	pending []any
	// The units inserted and not noted yet for the trigram index
	// (noted): ids lo to hi on SQLite, ids on PostgreSQL.
	lo, hi int64
	ids    []int64
}

// newUnitInserter prepares its statements once per transaction (Tx.prepare),
// so that the files of one batch share them.
func newUnitInserter(tx *Tx) (*unitInserter, error) {
	insertOne, insertMany := unitInsertSQL(1), unitInsertSQL(unitInsertBatch)
	if tx.w.d.returning {
		insertOne += " RETURNING id"
		insertMany += manyReturning
	}
	one, err := tx.prepare(insertOne)
	if err != nil {
		return nil, err
	}
	many, err := tx.prepare(insertMany)
	if err != nil {
		return nil, err
	}
	return &unitInserter{tx: tx, one: one, many: many,
		pending: make([]any, 0, unitInsertBatch*unitParams)}, nil
}

// manyReturning ends a multi-row insert on an engine that returns ids
// (PostgreSQL): with each row's translation and whether it is a memory
// entry (memoryRow), as nothing promises the rows come back in the order
// sent.
const manyReturning = " RETURNING translation_id, id, state >= 10 AND target != ''"

// memoryRow says whether a unit's row (as queue takes it) is one the
// memory lists, as the trigger of migration 0063 tells for updates: a
// state of needs editing or above and a target. (Whether its
// translation is a source one is the reader's test: keyset.go.)
func memoryRow(row []any) bool {
	var state index.State
	switch s := row[11].(type) {
	case index.State:
		state = s
	case int64: // the import's rows (reconcileUnits)
		state = index.State(s)
	}
	target, _ := row[4].(string)
	return state >= index.StateFuzzy && target != ""
}

// queue adds a unit whose id is not needed; row holds unitParams values,
// the first the translation's id (an int64).
func (ui *unitInserter) queue(row ...any) error {
	ui.pending = append(ui.pending, row...)
	if len(ui.pending) < unitInsertBatch*unitParams {
		return nil
	}
	return ui.flush()
}

// add inserts a unit now and returns its id; row is as for queue.
func (ui *unitInserter) add(row ...any) (int64, error) {
	if err := ui.flush(); err != nil {
		return 0, err
	}
	var id int64
	if ui.tx.w.d.returning {
		if err := ui.one.QueryRow(row...).Scan(&id); err != nil {
			return 0, err
		}
	} else {
		r, err := ui.one.Exec(row...)
		if err != nil {
			return 0, err
		}
		if id, err = ui.tx.lastInsertID(r); err != nil {
			return 0, err
		}
	}
	ui.tx.countNewUnit(row[0].(int64), id, memoryRow(row))
	// Noted at once with the queue's: the caller may update it next.
	if ui.tx.w.d.returning {
		ui.ids = append(ui.ids, id)
	} else if err := ui.inserted(id, id); err != nil {
		return 0, err
	}
	return id, ui.note()
}

// flush sends the queued units.
func (ui *unitInserter) flush() error {
	rows := len(ui.pending) / unitParams
	if rows == 0 {
		return nil
	}
	defer func() { ui.pending = ui.pending[:0] }()
	if ui.tx.w.d.returning {
		return ui.flushReturning(rows)
	}
	var err error
	var last int64
	if rows == unitInsertBatch {
		r, e := ui.many.Exec(ui.pending...)
		if err = e; err == nil {
			last, err = r.LastInsertId()
		}
	} else {
		r, e := ui.tx.Exec(unitInsertSQL(rows), ui.pending...)
		if err = e; err == nil {
			last, err = r.LastInsertId()
		}
	}
	if err != nil {
		return err
	}
	// SQLite gives a row without an id one more than the largest in the
	// table (https://sqlite.org/autoinc.html: only a table whose largest
	// id is 2^63-1 gets random ones), so the rows of one INSERT have
	// consecutive ids ending at the last one's.
	first := last - int64(rows) + 1
	for i := range rows {
		row := ui.pending[i*unitParams : (i+1)*unitParams]
		ui.tx.countNewUnit(row[0].(int64), first+int64(i), memoryRow(row))
	}
	return ui.inserted(first, last)
}

// inserted takes the SQLite ids lo to hi, just inserted, for the next
// note: ids that follow the ones waiting join them, others note those
// first. A translation's units are one run of ids, noted by one
// statement rather than one per INSERT (0.26 s of the writer's 3.4 s of
// CPU in a corpus import's profile at load 15).
func (ui *unitInserter) inserted(lo, hi int64) error {
	if ui.hi != 0 && lo == ui.hi+1 {
		ui.hi = hi
		return nil
	}
	if err := ui.note(); err != nil {
		return err
	}
	ui.lo, ui.hi = lo, hi
	return nil
}

// noted flushes the queue and notes every unit inserted so far for the
// trigram index. The caller calls it before the write updates or
// deletes any unit, and at its end, as the notes must come first (see
// below).
func (ui *unitInserter) noted() error {
	if err := ui.flush(); err != nil {
		return err
	}
	return ui.note()
}

// note notes the units inserted and not noted yet.
func (ui *unitInserter) note() error {
	if len(ui.ids) > 0 {
		ids := ui.ids
		ui.ids = nil
		return noteUnitIDs(ui.tx, ids)
	}
	if ui.hi == 0 {
		return nil
	}
	lo, hi := ui.lo, ui.hi
	ui.lo, ui.hi = 0, 0
	return noteUnitRange(ui.tx, lo, hi)
}

// flushReturning sends the queued units on an engine that returns their
// ids, and counts them.
func (ui *unitInserter) flushReturning(rows int) error {
	var rs *sql.Rows
	var err error
	if rows == unitInsertBatch {
		rs, err = ui.many.Query(ui.pending...)
	} else {
		rs, err = ui.tx.Query(unitInsertSQL(rows)+manyReturning, ui.pending...)
	}
	if err != nil {
		return err
	}
	ids := make([]int64, 0, rows)
	for rs.Next() {
		var translationID, id int64
		var memory bool
		if err := rs.Scan(&translationID, &id, &memory); err != nil {
			rs.Close()
			return err
		}
		ui.tx.countNewUnit(translationID, id, memory)
		ids = append(ids, id)
	}
	if err := errors.Join(rs.Err(), rs.Close()); err != nil {
		return err
	}
	if len(ids) != rows {
		return fmt.Errorf("insert of %d units returned %d ids", rows, len(ids))
	}
	ui.ids = append(ui.ids, ids...)
	return nil
}

// New units are noted for the trigram index (trigram_pending.go) by the
// code that inserted them, right after the statement, not by a trigger
// per row (migration 0059); on PostgreSQL the note is queued (execLater:
// a round trip of its own per added string before), and sent ahead of
// every statement after it. Every unit INSERT is unitInserter's or
// CreateTranslation's, and each notes what it inserted before anything
// else can update or delete those rows, as the trigger did (a write
// that queues units calls unitInserter.noted before it touches units
// again, as reconcileUnits does before it deletes). A note says
// the index holds no row for the id (indexed 0) unless the id is noted
// already: an id reused after a removal keeps its removal's note, whose
// row the index still holds.

// noteUnitRange notes the units with ids lo to hi, all inserted by the
// current write (SQLite numbers a statement's rows consecutively, and
// unitInserter joins only runs that follow each other).
func noteUnitRange(tx *Tx, lo, hi int64) error {
	return tx.execLater(`INSERT INTO unit_trigrams_pending (unit_id, indexed)
		SELECT id, 0 FROM units WHERE id BETWEEN ? AND ? ON CONFLICT DO NOTHING`, lo, hi)
}

// noteUnitIDs notes the units of ids, just inserted (PostgreSQL, whose
// sequence numbers the rows of concurrent writers apart).
func noteUnitIDs(tx *Tx, ids []int64) error {
	return tx.execLater(`INSERT INTO unit_trigrams_pending (unit_id, indexed)
		SELECT unnest(CAST(? AS BIGINT[])), 0 ON CONFLICT DO NOTHING`, ids)
}

// noteTranslationUnits notes every unit of a translation whose units
// were all just inserted (CreateTranslation).
func noteTranslationUnits(tx *Tx, translationID int64) error {
	return tx.execLater(`INSERT INTO unit_trigrams_pending (unit_id, indexed)
		SELECT id, 0 FROM units WHERE translation_id = ? ON CONFLICT DO NOTHING`, translationID)
}

// noteRelinked notes a unit whose source unit a re-import changed, its
// text unchanged: has:glossary matches a unit on its source unit's
// source (glossary_matches.go), and the step that indexes the note
// matches it again. The source unit may be one no write changed (a
// bilingual file's string the template lacked when the file was read):
// neither it nor its translation units would be noted otherwise
// (TestRelinkNotesGlossary). On SQLite the note keeps the key's row
// (indexed 2, migration 0065); an earlier note of the id stands.
func noteRelinked(tx *Tx, id int64) error {
	indexed := 2
	if tx.db.dialect.name == "postgres" {
		indexed = 1 // a unit's key is in its one row there (migration 0062)
	}
	return tx.execLater(`INSERT INTO unit_trigrams_pending (unit_id, indexed) VALUES (?, ?)
		ON CONFLICT (unit_id) DO NOTHING`, id, indexed)
}

// unitBucket is a list_counts row of a translation's units: 'ut' (or
// 'mu' with memory), translationID, bucket.
type unitBucket struct {
	translationID, bucket int64
	memory                bool
}

// countNewUnit counts a unit the current write inserted, and again in
// the memory's list when memory (memoryRow).
func (tx *Tx) countNewUnit(translationID, id int64, memory bool) {
	if tx.newUnits == nil {
		tx.newUnits = make(map[unitBucket]int64)
	}
	tx.newUnits[unitBucket{translationID, id >> bucketBits, false}]++
	if memory {
		tx.newUnits[unitBucket{translationID, id >> bucketBits, true}]++
	}
}

// countBeforeDelete stores the units the current write has inserted
// before it deletes units, itself or by a cascade: the delete triggers
// of migration 0002 subtract from the list_counts rows of the deleted
// units, which the buckets of units inserted by this write do not have
// until storeUnitCounts runs. It costs nothing when none are waiting.
func countBeforeDelete(tx *Tx) error { return storeUnitCounts(tx) }

// unitCountRows is the most list_counts rows one statement of
// storeUnitCounts adds to.
const unitCountRows = 16

// unitCountUpserts[n] adds to n list_counts rows of units.
var unitCountUpserts = func() (q [unitCountRows + 1]string) {
	for n := 1; n <= unitCountRows; n++ {
		q[n] = `INSERT INTO list_counts (list, scope, bucket, n) VALUES ` + valueRows("(?, ?, ?, ?)", n) + `
			ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n`
	}
	return q
}()

// storeUnitCounts adds the units the current write inserted to their
// list_counts rows, a few rows per statement (an import of one file
// touches one or two buckets), and forgets them.
func storeUnitCounts(tx *Tx) error {
	if len(tx.newUnits) == 0 {
		return nil
	}
	// In list_counts' key order ('mu' before 'ut'), so that writers
	// lock rows in one order.
	keys := slices.SortedFunc(maps.Keys(tx.newUnits), func(a, b unitBucket) int {
		return cmp.Or(-cmp.Compare(boolInt(a.memory), boolInt(b.memory)), cmp.Compare(a.translationID, b.translationID),
			cmp.Compare(a.bucket, b.bucket))
	})
	for chunk := range slices.Chunk(keys, unitCountRows) {
		args := make([]any, 0, 4*len(chunk))
		for _, k := range chunk {
			list := "ut"
			if k.memory {
				list = "mu"
			}
			args = append(args, list, k.translationID, k.bucket, tx.newUnits[k])
		}
		if _, err := tx.Exec(unitCountUpserts[len(chunk)], args...); err != nil {
			return fmt.Errorf("count the units of translation %d: %w", chunk[0].translationID, err)
		}
	}
	// A unit inserted and then made no entry by this write left its
	// 'mu' row at -1 (the trigger of migration 0063 upserts), which the
	// insert's count just brought to 0: such rows go, as the triggers'
	// do.
	var memory []int64
	for _, k := range keys {
		if k.memory && !slices.Contains(memory, k.translationID) {
			memory = append(memory, k.translationID)
		}
	}
	if len(memory) > 0 {
		list, args := idList(memory)
		if _, err := tx.Exec(`DELETE FROM list_counts WHERE list = 'mu' AND scope IN `+list+` AND n = 0`, args...); err != nil {
			return err
		}
	}
	clear(tx.newUnits)
	return nil
}

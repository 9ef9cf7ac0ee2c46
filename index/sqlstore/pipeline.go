package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/tolk-project/tolk/index"
)

// Pipelined statements. On PostgreSQL every statement is a round trip:
// the writer sends it and waits, doing nothing, until the server
// answers (0.05–0.3 ms on one machine, more across a network), and a
// unit edit's batch was a dozen of them in sequence (issue 31). Most of
// them need no answer before the next is sent: the locks a batch takes
// and its replay of write_log, an edit's UPDATE and its change's
// INSERT, a batch's statistics, counts and write_log entry. Those are
// queued (execLater, queryRowLater) and sent together, as one pgx
// batch (one round trip, the statements run in order), when the write
// next needs an answer: before any statement run at once (Exec, Query,
// QueryRow, a prepared statement, a savepoint), at the write's end
// (runWrite), or with the batch's closing statements (runBatch).
//
// A queued statement's error is the write's: it is returned by the
// flush that sends it, and kept (laterErr) for the write's end when the
// flush happens inside a QueryRow, which cannot return it; the
// statements after it in the transaction fail too, so no write goes on
// as if it had run. On SQLite, whose statements are calls inside the
// process, queued statements run at once.

// laterStmt is a statement waiting to be sent; scan, when not nil,
// reads its one row.
type laterStmt struct {
	query string
	args  []any
	scan  func(pgx.Row) error
	rows  func(pgx.Rows) error
}

// execLater runs query, whose result the write does not read, with the
// next statement that needs an answer (see Pipelined statements). On
// SQLite it runs it at once and returns its error.
func (tx *Tx) execLater(query string, args ...any) error {
	if tx.conn == nil {
		_, err := tx.Exec(query, args...)
		return err
	}
	return tx.queue(laterStmt{query: query, args: args})
}

// queryRowLater is execLater for a query whose one row scan reads once
// it is sent (by flush). On SQLite it runs it at once.
func (tx *Tx) queryRowLater(query string, scan func(pgx.Row) error, args ...any) error {
	if tx.conn == nil {
		return scan(tx.QueryRow(query, args...))
	}
	return tx.queue(laterStmt{query: query, args: args, scan: scan})
}

// queryLater is queryRowLater for a query of several rows, which read
// reads (and must not close) once it is sent. It must not be called
// on SQLite, whose writes have no use for it.
func (tx *Tx) queryLater(query string, read func(pgx.Rows) error, args ...any) error {
	if tx.conn == nil {
		return fmt.Errorf("sqlstore: queryLater on %s", tx.w.d.name)
	}
	return tx.queue(laterStmt{query: query, args: args, rows: read})
}

// queue appends s to the statements waiting to be sent (PostgreSQL),
// after the gathered change rows when s may read them (gatherBlind): a
// statement queued after a change runs after it, whatever else the
// write or an earlier one still has queued (Gathered changes).
func (tx *Tx) queue(s laterStmt) error {
	if len(tx.gathered) > 0 && !blind(s.query) {
		if err := tx.spillChanges(); err != nil {
			return err
		}
	}
	tx.later = append(tx.later, s)
	return nil
}

// dropLater forgets the statements a failed write queued and their
// error: the write is rolled back (to its savepoint) without them.
func (tx *Tx) dropLater() {
	clear(tx.later)
	tx.later, tx.laterErr = tx.later[:0], nil
	tx.earlierFrom, tx.earlierTo = 0, 0
}

// flush sends the queued statements in one round trip and returns the
// first error among them, which it also keeps in laterErr.
func (tx *Tx) flush() error {
	if len(tx.later) == 0 {
		return tx.laterErr
	}
	if tx.flushing {
		// A statement's callback sends nothing: the connection is
		// reading this batch's answers, and the batch's statements are
		// reused for the next flush.
		return errors.New("sqlstore: flush from a queued statement's callback")
	}
	tx.flushing = true
	defer func() { tx.flushing = false }()
	// The statements are the transaction's own pgx values, kept for its
	// next flush (Batch.Queue allocates one a statement). Each is set
	// whole: pgx keeps a statement's description in it (an unexported
	// field), which must start empty for a new text.
	n := len(tx.later)
	if cap(tx.pgQueued) < n {
		tx.pgQueued = make([]pgx.QueuedQuery, n, 2*n)
		tx.pgAt = make([]*pgx.QueuedQuery, n, 2*n)
	}
	qs, at := tx.pgQueued[:n], tx.pgAt[:n]
	// The statements sent are read from sending (answer), and those a
	// callback queues go to later, the other buffer.
	tx.sending, tx.later = tx.later, tx.sending[:0]
	defer func() {
		clear(qs) // their arguments
		clear(tx.sending)
		tx.sending = tx.sending[:0]
	}()
	if tx.answerFn == nil {
		tx.answerFn = tx.answer // one function for every statement of tx
	}
	d := tx.w.d
	for i, s := range tx.sending {
		qs[i] = pgx.QueuedQuery{SQL: d.rebind(s.query), Arguments: d.args(s.args), Fn: tx.answerFn}
		at[i] = &qs[i]
	}
	tx.pgBatch = pgx.Batch{QueuedQueries: at}
	tx.answered = 0
	mark, from, to := tx.mark, tx.earlierFrom, tx.earlierTo
	tx.mark, tx.earlierFrom, tx.earlierTo = 0, 0, 0
	err := tx.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("sqlstore: pipelined statements on a %T connection", dc)
		}
		return c.Conn().SendBatch(runCtx, &tx.pgBatch).Close()
	})
	if done := tx.answered; err != nil && (done < mark || from <= done && done < to) {
		tx.earlierFailed = true
	}
	if err != nil && tx.laterErr == nil {
		tx.laterErr = err
	}
	return err
}

// answer reads the answer of the flush's next statement, sending[answered],
// and counts it, so that an error is known to be the current write's or
// an earlier one's (flush: mark, and the earlier writes' change rows
// queued after the write's savepoint, earlierFrom to earlierTo,
// spillChanges). Statements run in order, pgx calls every statement's
// function in order and none after one failed, and those after an error
// are not run: the next function called is the next statement's. One
// function for every statement (tx.answerFn): pgx's Exec, QueryRow and
// Query wrap each a closure in one of theirs, two allocations a
// statement, a dozen statements a PATCH (issue 31).
func (tx *Tx) answer(br pgx.BatchResults) error {
	s := &tx.sending[tx.answered]
	switch {
	case s.scan != nil:
		if err := s.scan(br.QueryRow()); err != nil {
			return err
		}
	case s.rows != nil:
		rows, _ := br.Query() // its error is the rows'
		defer rows.Close()    // also when the reader panics (runWrite recovers)
		if err := s.rows(rows); err != nil {
			return err
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	default:
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	tx.answered++
	return nil
}

// Gathered changes. In a pipelined batch (several writes, PostgreSQL)
// each edit sent its own change INSERT: a statement each, with its
// fixed cost on the server (bind, executor start and end, the
// RETURNING's set_config; ≈ 63 µs a call at concurrency 8) and in pgx,
// though a batch of ≈ 2.5 edits at concurrency 8 could send one
// (issue 31). The rows of the batch's changes without webhooks
// (insertChange) are gathered instead, and written many to a statement
// (queueChangeRows: power-of-two VALUES lists, one prepared statement a
// size), queued (spillChanges) when:
//
//   - the batch closes (runBatch, before the statistics and the lists'
//     fold, which reads tolk.new_changes the INSERTs note);
//   - a statement is run at once (flushAll: Exec, Query, QueryRow, a
//     prepared statement, a reader's queryer), or one that might read
//     the changes table is queued (queue, gatherBlind): it runs after
//     every change made before it;
//   - a change a webhook wants is written (at once: its outbox rows
//     need its id), so that ids keep the order the changes were made
//     in. A bulk editor's changes (insertChanges: propagation's, an
//     upload's) are gathered too.
//
// An edit's own round trip (its UPDATE, its same-target lookups) reads
// no change and leaves the rows gathered. The rows of earlier writes go
// before the current write's savepoint when it waits in later (mark);
// when it was sent already they go after it, and a rollback to it
// gathers them again (regather, dropGathered(true)); an error among
// them is an earlier write's (earlierFrom, flush). A failed write's own
// rows are dropped with it. On SQLite, and in a batch of one write or
// one run apart, nothing is gathered: insertChange queues its row as
// before.

// gatherBlind are the statements an edit's round trips queue that read
// no change, nor call or fire what does (blind): its savepoint, author's
// name (readUnitForEdit, at each change of author in a batch), UPDATE
// and change, its checks' lookups and reads, propagation's reads of the
// peers and their checks; gatherBlindPrefixes begin the check rows'
// writes and a bulk editor's units' (editRows.write), whose IN and
// VALUES lists vary. The batch's statistics and user_activity upserts
// (flushStats) read no change either but are left out: queued before a
// write that is not narrow and at the batch's close (after its spill),
// they keep the batch's change rows, and the rows the INSERTs lock,
// before theirs as each write's own INSERT did before.
var gatherBlind = func() map[string]bool {
	m := map[string]bool{}
	for _, q := range []string{`SAVEPOINT write`, unitEditSQL, authorNameQuery,
		pgUnitByTarget, pgUnitsByTarget, unitRowQuery, unitChecksQuery, pgPeerChecks,
		pgSameTargets, pgSameTargetsPairs, pgSameTargetsWhole,
		pgSameStrings, pgSameStringsPairs, pgSameStringsWhole} {
		m[q] = true
	}
	for i := range changesInserts {
		m[changesInserts[i]], m[countedChangesInserts[i]] = true, true
	}
	return m
}()

var gatherBlindPrefixes = []string{`DELETE FROM checks WHERE name = ? AND unit_id IN `,
	`INSERT INTO checks (unit_id, name, dismissed) VALUES `, `UPDATE units SET has_failing_check = ? WHERE id IN `,
	editRowsUpdate}

// blind reports whether query reads no change (gatherBlind), so that
// the gathered rows may wait past it.
func blind(query string) bool {
	return gatherBlind[query] || slices.ContainsFunc(gatherBlindPrefixes, func(p string) bool {
		return strings.HasPrefix(query, p)
	})
}

// flushAll is flush for a statement run at once, which may read the
// changes table: the gathered change rows are sent first.
func (tx *Tx) flushAll() error {
	if err := tx.spillChanges(); err != nil {
		return err
	}
	return tx.flush()
}

// startGathering marks the start of a write of a pipelined batch: the
// rows gathered so far are the earlier writes'.
func (tx *Tx) startGathering() {
	tx.gather, tx.gatherFrom = true, len(tx.gathered)
	tx.regather = tx.regather[:0]
}

// dropGathered forgets the rows a failed write gathered; rolledBack
// says its savepoint was rolled back to, undoing the earlier writes'
// rows sent after it, which are gathered again.
func (tx *Tx) dropGathered(rolledBack bool) {
	clear(tx.gathered[tx.gatherFrom:])
	tx.gathered = tx.gathered[:tx.gatherFrom]
	if rolledBack && len(tx.regather) > 0 {
		tx.gathered = append(slices.Clone(tx.regather), tx.gathered...)
	}
	tx.gatherFrom = len(tx.gathered)
	tx.regather = tx.regather[:0]
}

// spillChanges queues the gathered change rows (Gathered changes): the
// earlier writes' before the current write's savepoint when it is
// still queued, else after it (kept in regather, and the statements
// that hold them in earlierFrom..earlierTo: an error in them is an
// earlier write's, flush), the current write's at the end.
func (tx *Tx) spillChanges() error {
	if len(tx.gathered) == 0 {
		return nil
	}
	rows := tx.gathered
	tx.gathered = nil // queueChangeRows must not gather them again
	defer func() {
		clear(rows)
		tx.gathered, tx.gatherFrom = rows[:0], 0
	}()
	earlier, own := rows[:tx.gatherFrom], rows[tx.gatherFrom:]
	if len(earlier) > 0 && tx.mark > 0 {
		// Before the savepoint (at mark-1): out of the current write's
		// reach, and an error in them an earlier write's (flush).
		tail := slices.Clone(tx.later[tx.mark-1:])
		tx.later = tx.later[:tx.mark-1]
		if err := queueChangeRows(tx, earlier); err != nil {
			return err
		}
		tx.mark = len(tx.later) + 1
		tx.later = append(tx.later, tail...)
	} else if len(earlier) > 0 {
		// The earlier rows share statements with the write's own: an
		// error in any of them runs the batch apart, which finds whose
		// it was.
		tx.regather = append(tx.regather, earlier...)
		tx.earlierFrom = len(tx.later)
		err := queueChangeRows(tx, rows)
		tx.earlierTo = len(tx.later)
		return err
	}
	return queueChangeRows(tx, own)
}

// flushed flushes, for the statements that cannot return its error
// (QueryRow): it is kept in laterErr for the write's end.
func (tx *Tx) flushed() *Tx {
	if len(tx.later) > 0 || len(tx.gathered) > 0 {
		tx.flushAll()
	}
	return tx
}

// scanOne is a queryRowLater scan into dest.
func scanOne(dest ...any) func(pgx.Row) error {
	return func(r pgx.Row) error { return r.Scan(dest...) }
}

// flushingQueryer is a Tx's queryer (Tx.queryer): the helpers that reads
// share run their statements after the write's queued ones.
type flushingQueryer struct{ tx *Tx }

func (q flushingQueryer) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if q.tx.wc != nil { // SQLite: nothing is queued
		return q.tx.wc.ExecContext(ctx, query, args...)
	}
	if err := q.tx.flushAll(); err != nil {
		return nil, err
	}
	return q.tx.cached().ExecContext(ctx, query, args...)
}

func (q flushingQueryer) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if q.tx.wc != nil {
		return q.tx.wc.QueryContext(ctx, query, args...)
	}
	if err := q.tx.flushAll(); err != nil {
		return nil, err
	}
	return q.tx.cached().QueryContext(ctx, query, args...)
}

func (q flushingQueryer) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if q.tx.wc != nil {
		return q.tx.wc.QueryRowContext(ctx, query, args...)
	}
	return q.tx.flushed().cached().QueryRowContext(ctx, query, args...)
}

// readUnitForEdit is findUnitAndTranslation for a write that edits the
// unit: on PostgreSQL it reads with the unit, in the same round trip,
// what the edit reads next (pipeline.go): the author's name for the
// statistics (authorName), the source unit's extra flags and the unit's
// check rows for its settling (sourceExtraFlags, checkSettler.existing).
// A unit edit read these one round trip each. On SQLite the same in one
// statement (readUnitForEditSQLite).
func readUnitForEdit(tx *Tx, id, authorID int64) (index.Unit, index.Translation, error) {
	if tx.conn == nil {
		return readUnitForEditSQLite(tx, id, authorID)
	}
	if u, t, ok := tx.pre.take(tx, id, authorID); ok {
		return u, t, nil // prefetched with the batch's BEGIN (prefetch.go)
	}
	if authorID != 0 && tx.author.id != authorID {
		if err := queueAuthorName(tx, authorID, &tx.author); err != nil {
			return index.Unit{}, index.Translation{}, err
		}
	}
	u, err := readUnitAndChecks(tx, id)
	if err != nil {
		return u, index.Translation{}, err
	}
	t, err := cachedTranslation(tx, u.TranslationID)
	if err != nil {
		return u, t, fmt.Errorf("translation %d of unit %d: %v", u.TranslationID, id, err)
	}
	tx.pre.record(id, &t) // what the batch's later edits' prefetched reads must not overlap
	return u, t, nil
}

// knownAuthor is a user's name as statistics show it (authorName).
type knownAuthor struct {
	id   int64
	name string
}

// queueAuthorName queues the read of user id's name into a, which says
// id once it is read (a user not found leaves a.id 0: authorName says
// what it lacks).
func queueAuthorName(tx *Tx, id int64, a *knownAuthor) error {
	a.id = 0
	return tx.queryRowLater(authorNameQuery, func(r pgx.Row) error {
		err := r.Scan(&a.name)
		if err == nil {
			a.id = id
		} else if errors.Is(err, pgx.ErrNoRows) {
			err = nil
		}
		return err
	}, id)
}

// readUnitAndChecks reads unit id with its check rows and its source
// unit's extra flags (kept for sourceExtraFlags and checkSettler.existing)
// in one round trip with the write's queued statements: an edit's unit
// (readUnitForEdit), where they were three (propagation's peers' units
// are read together, readPeersForEdit). PostgreSQL only.
func readUnitAndChecks(tx *Tx, id int64) (index.Unit, error) {
	var r unitRead
	if err := queueUnitRead(tx, id, &r); err != nil {
		return r.u, err
	}
	if err := tx.flush(); err != nil {
		return r.u, err
	}
	if !r.found {
		return r.u, sql.ErrNoRows
	}
	r.keep(tx, id)
	return r.u, nil
}

// unitRead is what queueUnitRead reads of a unit.
type unitRead struct {
	u      index.Unit
	found  bool
	src    int64 // the source unit's id, whose extra flags are flags
	flags  string
	checks []index.UnitCheck
	guess  *targetGuess // the prefetch's same-target lookups (queueTargetGuess)
}

// targetGuess is an edit's same-target lookups sent ahead, with the
// batch's first round trip (queuePrefetch), on the target the edit
// expects to save (UpdateUnitExpecting): the translated units of the
// unit's translation, the unit itself left out, whose target is that
// one or the unit's target when read. An edit's settle looked these up
// (sameTarget: the units sharing its new target, and those sharing the
// one it left) in a round trip of its own, and its other statements
// waited for nothing else: taken, the edit's statements ride with the
// batch's next round trip (the next edit's, or COMMIT), and a batch of
// n hinted edits, in translations apart and of strings no other
// component shares (whose inconsistent check reads them in a round trip
// of its own), costs two round trips where it cost 2 + n (issue 31;
// TestBatchApartRoundTrips).
//
// The answer is taken only with the unit's prefetched read (take): by
// the prefetch's rule, no earlier write of the batch wrote a unit of the
// translation, and no other process can until COMMIT; the write's own
// unit the answer leaves out, as the settle does (it never counts a unit
// as sharing its own target), and a write that edits another unit of
// the translation drops the guess (recheckUnit). It answers the write's
// first settle only (settleRound takes it), and only where the settle
// asks exactly for the guessed targets, in the unit's translation
// (guessed): an edit whose rules saved another target (an autofix)
// looks up as before, the round trip it cost anyway.
type targetGuess struct {
	unit     int64
	target   string    // the target expected
	read     *unitRead // the unit's prefetched read: its translation, its old target
	answered bool
	rows     []targetRow
}

// targetRow is a unit a same-target lookup finds.
type targetRow struct {
	id             int64
	source, target string
}

// pgTargetGuess is targetGuess's lookup: pgUnitByTarget's for two
// targets, the expected one and the unit's own (unless the same), in
// the unit's translation, by the unit's id (the prefetch knows no more
// of the unit). One statement for the two lookups an edit made; each
// branch one probe of unit_targets' key. Not one join on "prefix IN
// (the two)": its generic plan probed by translation alone and filtered
// the translation's rows (629 µs a call at concurrency 1 in tolk-bench's
// writes, pg_stat_statements; TestTargetGuessPlan).
const pgTargetGuess = `SELECT u.id, u.source, u.target FROM units o
	JOIN unit_targets s ON s.translation_id = o.translation_id AND s.prefix = substr(CAST(? AS text), 1, 64)
	JOIN units u ON u.id = s.unit_id AND u.target = ?
	WHERE o.id = ? AND u.id != o.id AND u.state >= ?
	UNION ALL
	SELECT u.id, u.source, u.target FROM units o
	JOIN unit_targets s ON s.translation_id = o.translation_id AND s.prefix = substr(o.target, 1, 64)
	JOIN units u ON u.id = s.unit_id AND u.target = o.target
	WHERE o.id = ? AND o.target != ? AND u.id != o.id AND u.state >= ?`

// queueTargetGuess queues g's lookup (pgTargetGuess).
func queueTargetGuess(tx *Tx, g *targetGuess) error {
	return tx.queryLater(pgTargetGuess, func(rows pgx.Rows) error {
		for rows.Next() {
			var r targetRow
			if err := rows.Scan(&r.id, &r.source, &r.target); err != nil {
				return err
			}
			g.rows = append(g.rows, r)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		g.answered = true
		return nil
	}, g.target, g.target, g.unit, index.StateTranslated, g.unit, g.target, index.StateTranslated)
}

// guessed answers a same-target lookup of translation tid's units
// (unitsByTarget's) from the settle's targetGuess, calling row as
// the lookup would, but for the guessed unit itself; false when the
// guess cannot answer it: none taken, another translation, or a target
// that is neither the one expected nor the unit's old one. unit is the
// unit whose lookup it is, which must be the guessed one: another
// unit's would miss the guessed unit's row. 0 is a lookup whose rows
// only pick units to settle again, which the guessed unit, settled,
// never is (rechecks).
func (s *checkSettler) guessed(tid, unit int64, targets []string, row func(id int64, source, target string) error) (bool, error) {
	g := s.guess
	if g == nil || g.read.u.TranslationID != tid || (unit != 0 && unit != g.unit) {
		return false, nil
	}
	for _, t := range targets {
		if t != g.target && t != index.JoinPlural(g.read.u.Target) {
			return false, nil
		}
	}
	if s.tx.db != nil && s.tx.db.paths != nil {
		s.tx.db.paths.guessTaken.Add(1)
	}
	for _, r := range g.rows {
		if slices.Contains(targets, r.target) {
			if err := row(r.id, r.source, r.target); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}

// flushForAnswers flushes when a queued statement's answer is awaited
// (awaitsAnswers), and returns the error an earlier flushed() kept
// (laterErr): a write that needs no answer leaves its statements for
// the batch's next round trip.
func (tx *Tx) flushForAnswers() error {
	if tx.awaitsAnswers() || tx.laterErr != nil {
		return tx.flush()
	}
	return nil
}

// awaitsAnswers says whether a queued statement's answer is still to be
// read (queryRowLater, queryLater): a write that needs the answers
// flushes; one that needs none leaves its statements for the next
// round trip.
func (tx *Tx) awaitsAnswers() bool {
	for i := range tx.later {
		if tx.later[i].scan != nil || tx.later[i].rows != nil {
			return true
		}
	}
	return false
}

// unitRowQuery and unitChecksQuery are queueUnitRead's statements.
const (
	unitRowQuery    = `SELECT ` + editUnitColumns + ` FROM units WHERE id = ?`
	unitChecksQuery = `SELECT name, dismissed FROM checks WHERE unit_id = ?`
)

// queueUnitRead queues the statements of readUnitAndChecks into r, read
// once they are sent (the batch's prefetch sends them with its BEGIN).
func queueUnitRead(tx *Tx, id int64, r *unitRead) error {
	if err := queueUnitRow(tx, id, r); err != nil {
		return err
	}
	return tx.queryLater(unitChecksQuery, func(rows pgx.Rows) error {
		for rows.Next() {
			var c index.UnitCheck
			var dismissed int64
			if err := rows.Scan(&c.Name, &dismissed); err != nil {
				return err
			}
			c.Dismissed = dismissed != 0
			r.checks = append(r.checks, c)
		}
		return rows.Err()
	}, id)
}

// queueUnitRow queues queueUnitRead's read of the unit's row, with its
// source unit's id and extra flags.
func queueUnitRow(tx *Tx, id int64, r *unitRead) error {
	return tx.queryRowLater(unitRowQuery, func(row pgx.Row) error {
		var err error
		r.u, err = scanUnit(intBools{row, []any{&r.src, &r.flags}})
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		r.found = err == nil
		return err
	}, id)
}

// keep gives the write what the settling of unit id reads next.
func (r *unitRead) keep(tx *Tx, id int64) {
	if tx.extraFlags == nil {
		tx.extraFlags = map[int64]string{}
	}
	tx.extraFlags[r.src] = r.flags
	if tx.unitChecks == nil {
		tx.unitChecks = map[int64][]index.UnitCheck{}
	}
	tx.unitChecks[id] = r.checks
}

// readPeersForEdit reads the units ids propagation is about to edit in
// peer components (propagateUnits), by id: on PostgreSQL each with what
// its settling reads next (queueUnitRead; several units' check rows one
// statement, queuePeerReads), all in one round trip with the write's
// queued statements, where each peer's was a round trip of its own; on
// SQLite the units alone, as before. A unit not found is sql.ErrNoRows.
func readPeersForEdit(tx *Tx, ids []int64) (map[int64]*index.Unit, error) {
	out := make(map[int64]*index.Unit, len(ids))
	if tx.conn == nil {
		for _, id := range ids {
			if out[id] != nil {
				continue
			}
			u, err := findUnitTx(tx, id)
			if err != nil {
				return nil, err
			}
			out[id] = &u
		}
		return out, nil
	}
	reads := make(map[int64]*unitRead, len(ids))
	var distinct []int64
	for _, id := range ids {
		if reads[id] == nil {
			reads[id] = &unitRead{}
			distinct = append(distinct, id)
		}
	}
	if len(distinct) == 1 {
		if err := queueUnitRead(tx, distinct[0], reads[distinct[0]]); err != nil {
			return nil, err
		}
	} else if err := queuePeerReads(tx, distinct, reads); err != nil {
		return nil, err
	}
	if err := tx.flush(); err != nil {
		return nil, err
	}
	for id, r := range reads {
		if !r.found {
			return nil, sql.ErrNoRows
		}
		r.keep(tx, id)
		out[id] = &r.u
	}
	return out, nil
}

// pgPeerChecks is the check rows' statement of queueUnitRead for several
// units (queuePeerReads), their ids an array: one statement for an edit's
// nine peers where it made nine. Its plan is the generic one after a few
// runs (pg_stat_statements: no planning an edit). The units' own rows are
// not read so: their statement of an array (id = ANY) was planned anew
// at every run (115 µs of planning, where nine probes by id cost 62 µs
// to run; BenchmarkPropagatedEdit/propagating9, session 12).
const pgPeerChecks = `SELECT unit_id, name, dismissed FROM checks WHERE unit_id = ANY(CAST(? AS bigint[]))
	ORDER BY unit_id, name`

// queuePeerReads queues the reads of the units ids into reads[id], as
// queueUnitRead reads one: each unit's row, and their check rows in one
// statement (pgPeerChecks).
func queuePeerReads(tx *Tx, ids []int64, reads map[int64]*unitRead) error {
	for _, id := range ids {
		if err := queueUnitRow(tx, id, reads[id]); err != nil {
			return err
		}
	}
	return tx.queryLater(pgPeerChecks, func(rows pgx.Rows) error {
		for rows.Next() {
			var id, dismissed int64
			var c index.UnitCheck
			if err := rows.Scan(&id, &c.Name, &dismissed); err != nil {
				return err
			}
			c.Dismissed = dismissed != 0
			if r := reads[id]; r != nil {
				r.checks = append(r.checks, c)
			}
		}
		return rows.Err()
	}, ids)
}

// intBools scans a pgx row into the destinations a database/sql scan
// takes, followed by more: the schema keeps booleans as integers, which
// database/sql converts and pgx does not.
type intBools struct {
	row  pgx.Row
	more []any
}

func (r intBools) Scan(dest ...any) error {
	// At most two allocations whatever the booleans: a unit's row has five,
	// each an integer and two appends of its own, which were a dozen
	// allocations a unit read (the writer's, issue 31).
	n := 0
	for _, d := range dest {
		if _, ok := d.(*bool); ok {
			n++
		}
	}
	all := make([]any, len(dest), len(dest)+len(r.more))
	var store []int64 // the booleans' integers
	if n > 0 {
		store = make([]int64, n)
	}
	j := 0
	for i, d := range dest {
		if _, ok := d.(*bool); ok {
			all[i] = &store[j]
			j++
		} else {
			all[i] = d
		}
	}
	err := r.row.Scan(append(all, r.more...)...)
	j = 0
	for _, d := range dest {
		if b, ok := d.(*bool); ok {
			*b = store[j] != 0
			j++
		}
	}
	return err
}

// queryEach runs query and calls row with the Scan of each of its rows;
// on PostgreSQL the query is sent with the write's queued statements,
// in one round trip (pipeline.go), not after them.
func (tx *Tx) queryEach(query string, row func(scan func(...any) error) error, args ...any) error {
	if tx.conn == nil {
		rows, err := tx.Query(query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := row(rows.Scan); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	err := tx.queryLater(query, func(rows pgx.Rows) error {
		for rows.Next() {
			if err := row(intBools{row: rows}.Scan); err != nil {
				return err
			}
		}
		return rows.Err()
	}, args...)
	if err != nil {
		return err
	}
	return tx.flush()
}

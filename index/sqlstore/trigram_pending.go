package sqlstore

import (
	"context"
	"errors"
	"strconv"
	"strings"
	gosync "sync"
	"sync/atomic"
	"time"
)

// The trigram index's upkeep (migration 0044). A write that changes a
// unit's text (an edit, an import, a removal) only notes the unit's id
// in unit_trigrams_pending, by trigger; this step moves the noted units
// into the index later, in batches through the writer, between the
// other writes. Measured before (migration 0033's triggers tokenized
// the text inside every write): the index was 150-190 µs of a unit
// PATCH's 730-910 µs, and the full corpus import took 8.2× its ceiling,
// since each write flushed an FTS5 segment of its own; on PostgreSQL
// every update of a unit, its state alone included, evaluated the GIN
// index's SQL expression, about 1 ms.
//
// Searches never wait for the step: they read the index's candidates
// and every noted unit, and match them all exactly (trigramFilter; but
// search_shared.go, which trusts the links of units not noted), so
// an answer is the same before the step ran, after, and after a crash
// between the two (the notes are rows, committed with the write that
// made them; the step resumes at the next start). What that costs a
// search is reading the noted units; the step keeps them few: it runs
// when the writer pauses (trigramQuiet), and one batch a second under
// writes that never pause (trigramMaxWait). After a full import they
// are every unit for the seconds the step takes to index them, and a
// search meanwhile reads them all, as every search did before the
// index.
//
// On PostgreSQL the step's writes have a writer of their own
// (upkeepWriter), beside the writers: an edit no longer waits behind a
// batch of the step, only, by its trigger, for the commit of a batch
// that holds the note of the unit it edits (pgIndexTrigrams). The
// batch sizes and pauses below still bound that wait and the step's
// share of the server (at 100× its statements read their rows from
// disk); "the writer" below is SQLite's.
//
// Why not index in the write itself, off the request's path (after the
// commit)? The index is written by the one writer either way; a batch
// costs the writer one FTS5 segment for hundreds of units where each
// edit's own write cost one for one unit, and the edit's answer never
// waits for it.

const (
	// trigramQuiet: the step runs once the writer has committed nothing
	// for this long, until no unit is left noted: a burst of edits is
	// indexed in one batch, and an import (a long run of writes) is not
	// slowed by the index it would otherwise pay for as it goes.
	trigramQuiet = 50 * time.Millisecond
	// trigramMaxWait: under writes that never pause, the step runs one
	// batch this long after the first write it has not served, so the
	// notes a search reads stay about what the writer took in during
	// it (a few thousand units at the corpus's edit rates), and the rest
	// once the writes pause. Not past trigramBulk notes: that many in
	// a second are an import (or a removal), which the step would only
	// slow; it waits for the import's end.
	trigramMaxWait = time.Second
	trigramBulk    = 20000
	// trigramBulkQuiet: with trigramBulk notes, the step waits for a
	// pause this long (an import's writes are apart by its parsing,
	// which a loaded machine stretches past trigramQuiet), and stops
	// between batches at the next write: it never chases an import.
	trigramBulkQuiet = time.Second
	// trigramBatch units are indexed per write once the writer paused:
	// about 20-40 ms of the writer on the corpus's text, the most an
	// edit arriving then waits behind it; trigramBusyBatch under writes
	// that never pause, where an edit is always waiting (fewer per
	// write cost more segments to merge, more per write a longer wait).
	trigramBatch     = 1000
	trigramBusyBatch = 250
)

// trigramIndexer runs the step; kick is signalled after each commit.
type trigramIndexer struct {
	kick chan struct{}
	wg   gosync.WaitGroup
	// held stops the step, for tests that look at the notes the step
	// has not taken yet (indexTrigrams still runs it); mu is held while
	// the step runs, so that hold returns once none does.
	mu   gosync.Mutex
	held bool
	// batch is trigramBatch when 0 (tests lower it).
	batch int
	// bulkUntil (Unix nanoseconds) is when the last bulk writer's
	// mark runs out (bulkWriting).
	bulkUntil atomic.Int64
	// glossary is when has:glossary's term lists were last compared.
	glossary glossaryWatch
	// glossaryUnits is glossaryRefreshUnits when 0 (tests lower it);
	// onGlossaryPart, when set, is called in the write of each part of
	// source units of a refresh, with how many units it matches at most
	// (tests).
	glossaryUnits  int
	onGlossaryPart func(units int)
	// onLinkRead, when set, is called in each PostgreSQL batch once its
	// units and their source units are read, before it writes their
	// rows (tests: TestTrigramLinkRace).
	onLinkRead func()
}

// bulkWriting tells the step that a bulk writer is at work: an
// automatic translation job, which writes a batch, reads and translates
// the next (tens of milliseconds: longer than trigramQuiet) and writes
// again. The step waits for the writer to pause trigramBulkQuiet, as
// during an import, instead of taking the writer in each of the job's
// short gaps: on PostgreSQL it indexed each batch the job had written
// while the job's next batch waited for the writer, as long again as
// the batch's own write (AutoTranslateJellyfin under load 13: 1.3 s of
// the writer's 2.9 s in a 5.1 s job; session 7). The units are indexed
// once the job ends (or pauses), and searches meanwhile match them
// exactly as they do any noted unit.
func (db *DB) bulkWriting() {
	db.trigrams.bulkUntil.Store(time.Now().Add(trigramBulkQuiet).UnixNano())
}

// bulkWriter says whether a bulk writer's mark is on (bulkWriting).
func (t *trigramIndexer) bulkWriter() bool { return time.Now().UnixNano() < t.bulkUntil.Load() }

// How far one run of the step goes (indexTrigrams).
type trigramRun int

const (
	trigramAll       trigramRun = iota // until no unit is left noted
	trigramUntilBusy                   // ... or another write committed meanwhile
	trigramOne                         // one batch
)

// startTrigramIndexer starts the step, which runs at once for the notes
// an earlier process left.
func (db *DB) startTrigramIndexer() {
	t := &db.trigrams
	t.kick = make(chan struct{}, 1)
	t.kick <- struct{}{}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		for {
			select {
			case <-t.kick:
			case <-db.closing:
				return
			}
			bulk := t.bulkWriter() || db.trigramsBulk()
			quiet, ok := t.waitQuiet(db.closing, bulk)
			if !ok {
				return
			}
			if !bulk && t.bulkWriter() {
				t.kickSelf() // one began while the step waited: wait for it
				continue
			}
			run := trigramUntilBusy
			if !quiet {
				run = trigramOne
			}
			t.mu.Lock()
			var err error
			if !t.held && (quiet || !bulk) {
				if quiet && db.glossaryMoved() {
					// has:glossary's term lists (glossary_matches.go),
					// before the notes, which it leaves to the batches.
					err = db.refreshGlossaryMatches(context.Background(), false)
				}
				if err == nil {
					err = db.indexTrigrams(context.Background(), run)
				}
			}
			t.mu.Unlock()
			if err != nil && !errors.Is(err, errClosed) && db.log != nil {
				db.log.Error("trigram index upkeep", "err", err)
			}
			if !quiet {
				t.kickSelf() // the rest when the writes pause
			}
		}
	}()
}

// trigramsBulk says whether trigramBulk units or more are noted. The
// step asks before each run (once a second under steady edits). On
// PostgreSQL it asks the statistics' count of live rows first, and
// counts only when they say bulk: the queue is written and emptied all
// the time, and the count's scan read its dead rows, every row the
// step took since autovacuum's last pass (1,500 blocks, 3-5 ms a call
// beside tolk-bench's edits after the corpus's import; BATCH12). The
// statistics lag the writes by up to ten seconds (a backend that went
// idle reports its counts after PGSTAT_IDLE_INTERVAL): another
// process's import is told bulk that late (this process's imports say so
// themselves, bulkWriting), and a queue just emptied is counted for
// that long; a wrong answer only times the step, as it did before bulk
// notes were told apart, and the step asks again at its next run.
func (db *DB) trigramsBulk() bool {
	var n int
	if db.dialect.name == "postgres" {
		err := db.r.QueryRowContext(context.Background(),
			`SELECT pg_stat_get_live_tuples(CAST('unit_trigrams_pending' AS regclass))`).Scan(&n)
		if err != nil || n < trigramBulk {
			return false
		}
	}
	err := db.r.QueryRowContext(context.Background(), `SELECT count(*) FROM
		(SELECT 1 FROM unit_trigrams_pending LIMIT ?) n`, trigramBulk).Scan(&n)
	return err == nil && n >= trigramBulk
}

// waitQuiet waits until no commit came for trigramQuiet (quiet) or
// trigramMaxWait passed; with bulk notes, until none came for
// trigramBulkQuiet, however long that takes. ok is false when closing
// closed.
func (t *trigramIndexer) waitQuiet(closing <-chan struct{}, bulk bool) (quiet, ok bool) {
	wait := trigramQuiet
	var deadline <-chan time.Time
	if bulk {
		wait = trigramBulkQuiet
	} else {
		d := time.NewTimer(trigramMaxWait)
		defer d.Stop()
		deadline = d.C
	}
	for {
		pause := time.NewTimer(wait)
		select {
		case <-t.kick:
			pause.Stop()
		case <-pause.C:
			return true, true
		case <-deadline:
			pause.Stop()
			return false, true
		case <-closing:
			pause.Stop()
			return false, false
		}
	}
}

func (t *trigramIndexer) kickSelf() {
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// hold stops the step from running on its own, and returns once it is
// not running (tests).
func (t *trigramIndexer) hold() {
	t.mu.Lock()
	t.held = true
	t.mu.Unlock()
}

// kickTrigrams tells the step that a write committed.
func (db *DB) kickTrigrams() { db.trigrams.kickSelf() }

// IndexTrigrams runs the trigram index's upkeep now, has:glossary's
// (refreshGlossaryMatches, comparing every project's term list, as a
// process's first run does) and then the notes until no unit is left
// noted, and returns how long it took. The upkeep runs on its own
// after every write; tolk-bench calls this after a full import to time
// what the index costs it.
func (db *DB) IndexTrigrams(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	err := db.refreshGlossaryMatches(ctx, true)
	if err == nil {
		err = db.indexTrigrams(ctx, trigramAll)
	}
	return time.Since(start), err
}

// indexTrigrams indexes the noted units, a batch per write, as far as
// run says. Its writes do not signal the step (writeRequest.upkeep): a
// signal while it runs is another write's.
func (db *DB) indexTrigrams(ctx context.Context, run trigramRun) error {
	var noted bool
	if err := db.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM unit_trigrams_pending)`).Scan(&noted); err != nil || !noted {
		return err
	}
	batch := db.trigrams.batch
	switch {
	case batch > 0:
	case run == trigramOne:
		batch = trigramBusyBatch
	default:
		batch = trigramBatch
	}
	for {
		left := false
		err := db.enqueue(&writeRequest{ctx: ctx, narrow: true, upkeep: true, shared: true, fn: func(tx *Tx) (err error) {
			left, err = indexTrigramBatch(tx, batch)
			return err
		}})
		if err != nil || !left || run == trigramOne || (run == trigramUntilBusy && len(db.trigrams.kick) > 0) {
			return err
		}
	}
}

// indexTrigramBatch moves the first limit noted units into the index
// and says whether notes may be left: a full batch, or one that noted
// units anew (pgIndexTrigrams). A short batch took every note there
// was; a note written since is another write's, and that write kicks
// the step. It touches no cached answer: a search finds the same units
// before and after.
func indexTrigramBatch(tx *Tx, limit int) (left bool, err error) {
	if tx.db.dialect.name == "postgres" {
		return pgIndexTrigrams(tx, limit)
	}
	var n int
	var lo, hi int64
	if err := tx.QueryRow(`SELECT count(*), coalesce(min(unit_id), 0), coalesce(max(unit_id), 0)
		FROM (SELECT unit_id FROM unit_trigrams_pending ORDER BY unit_id LIMIT ?) b`, limit).Scan(&n, &lo, &hi); err != nil || n == 0 {
		return false, err
	}
	// A contentless FTS5 table deletes by rowid, one at a time: a
	// rowid IN (…) would read the whole table. unit_key_trigrams
	// (migration 0062) holds a row exactly when unit_trigrams does; a
	// note says whether the key's row is stale too (indexed 1) or only
	// the text's (2, an edit: migration 0065), whose key row stays.
	var stale, staleKeys []int64
	if err := tx.queryEach(`SELECT unit_id, indexed FROM unit_trigrams_pending
		WHERE unit_id BETWEEN ? AND ? AND indexed != 0`, func(scan func(...any) error) error {
		var id, indexed int64
		if err := scan(&id, &indexed); err != nil {
			return err
		}
		stale = append(stale, id)
		if indexed == 1 {
			staleKeys = append(staleKeys, id)
		}
		return nil
	}, lo, hi); err != nil {
		return false, err
	}
	for _, id := range stale {
		if _, err := tx.Exec(`DELETE FROM unit_trigrams WHERE rowid = ?`, id); err != nil {
			return false, err
		}
	}
	for _, id := range staleKeys {
		if _, err := tx.Exec(`DELETE FROM unit_key_trigrams WHERE rowid = ?`, id); err != nil {
			return false, err
		}
	}
	// A unit's rows hold its whole text on SQLite: links as PostgreSQL
	// has (migration 0089) made the common needles' searches slower
	// (migration 0090), and SQLite's index is not the one whose size
	// blocks 100x.
	if _, err := tx.Exec(sqliteBatchTexts, lo, hi); err != nil {
		return false, err
	}
	if _, err := tx.Exec(sqliteBatchKeys, lo, hi); err != nil {
		return false, err
	}
	if err := matchNotedGlossary(tx, `u.id IN (SELECT unit_id FROM unit_trigrams_pending WHERE unit_id BETWEEN ? AND ?)`,
		lo, hi); err != nil {
		return false, err
	}
	_, err = tx.Exec(`DELETE FROM unit_trigrams_pending WHERE unit_id BETWEEN ? AND ?`, lo, hi)
	return n == limit, err
}

// The SQLite step's statements that read a batch's units, each from the
// notes of ids lo to hi (its two first arguments). CROSS JOIN keeps the
// notes the outer loop, each unit found by its primary key: with JOIN
// SQLite may scan units over the whole range instead (every unit from
// the lowest noted id to the highest), which took 2.4-2.6 s a batch at
// 10x the corpus when the edits were far apart, against 0.08 ms
// (session 8's SCALE slice). TestTrigramBatchPlans holds the plans.
const (
	// sqliteBatchTexts writes the batch's text rows.
	sqliteBatchTexts = `INSERT INTO unit_trigrams (rowid, text)
		SELECT u.id, tolk_unit_text(u.context, u.source, u.target)
		FROM unit_trigrams_pending p CROSS JOIN units u ON u.id = p.unit_id WHERE p.unit_id BETWEEN ? AND ?`
	// sqliteBatchKeys writes the batch's key rows where they are stale.
	sqliteBatchKeys = `INSERT INTO unit_key_trigrams (rowid, key)
		SELECT u.id, tolk_unit_text(u.context, '', '')
		FROM unit_trigrams_pending p CROSS JOIN units u ON u.id = p.unit_id
		WHERE p.unit_id BETWEEN ? AND ? AND p.indexed != 2`
)

// pgInsertRows is how many units one INSERT of the PostgreSQL step
// carries.
const pgInsertRows = 100

// pgIndexTrigrams is the step's batch on PostgreSQL: the text folded by
// lower() as ILIKE folds it (and as tolk_trigram_codes, migration 0077,
// folds a needle), cut into its distinct trigram codes here rather than
// by an SQL function.
//
// It runs beside other processes' scoped writes (writeRequest.shared),
// so it locks the notes it takes and only those: a note another
// transaction is writing is skipped (its edit is not committed; it is
// taken by a later batch), and an edit that notes a unit this batch
// holds waits for the batch's commit, then notes it anew — so the
// batch never removes a note younger than the text it read. Two
// processes' steps take disjoint notes.
//
// The links it makes (migration 0089) are kept exact across processes
// by the source units' rows of unit_trigrams: a batch links a unit only
// to a source unit whose row it holds FOR SHARE, read after the lock,
// and a batch that indexes a source unit anew deletes its row before it
// notes the units linked to it. So the step that next indexes a source
// unit waits for the commit of any batch linking to it, and then sees
// the links. Without the lock a step of another process could index the
// source unit's new text between this batch's read and its commit,
// noting its linked units by a statement that could not see this
// batch's link: the unit stayed linked to a text it does not hold,
// neither noted, and the site-wide source search counted it
// (TestTrigramLinkRace). The lock is on the index's row, not the unit's:
// only steps write unit_trigrams, so no edit waits on it directly, and a
// row another step is rewriting is skipped (the unit is then indexed with
// its whole text, as one whose source unit is noted). A step's DELETE
// may now wait for another step's commit, holding its notes meanwhile:
// an edit that notes one of them waits for both batches.
func pgIndexTrigrams(tx *Tx, limit int) (left bool, err error) {
	ids, err := queryIDs(tx, `SELECT unit_id FROM unit_trigrams_pending ORDER BY unit_id LIMIT ? FOR UPDATE SKIP LOCKED`, limit)
	if err != nil || len(ids) == 0 {
		return false, err
	}
	// First the batch's own rows: a row another batch holds (it links a
	// unit to this one) is deleted once that batch committed, so the
	// statement below sees its links.
	if _, err := tx.Exec(`DELETE FROM unit_trigrams WHERE unit_id = ANY(?)`, ids); err != nil {
		return false, err
	}
	// The units linked to a source unit whose row is rewritten or
	// deleted here are indexed anew in a later batch, with their source
	// if it is no longer the source unit's (migration 0089); until then
	// they are noted, and searches read them. A unit of this batch is
	// linked afresh below.
	// A short batch took every note it could: it leaves notes only if it
	// wrote some here (a note it skipped is locked by a write that kicks
	// the step when it commits).
	res, err := tx.Exec(`INSERT INTO unit_trigrams_pending (unit_id, indexed)
		SELECT unit_id, 1 FROM unit_trigrams WHERE source_unit_id = ANY(?) AND NOT unit_id = ANY(?)
		ON CONFLICT (unit_id) DO NOTHING`, ids, ids)
	if err != nil {
		return false, err
	}
	linked, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	// The rows of the source units the batch may link to, before their
	// text is read (see above); never waited for. A noted source unit is
	// never linked to, so its row is not locked (a lock writes the row).
	held, err := queryIDs(tx, `SELECT unit_id FROM unit_trigrams WHERE unit_id IN
		(SELECT source_unit_id FROM units WHERE id = ANY(?) AND source_unit_id != id)
		AND NOT EXISTS (SELECT 1 FROM unit_trigrams_pending q WHERE q.unit_id = unit_trigrams.unit_id)
		FOR SHARE SKIP LOCKED`, ids)
	if err != nil {
		return false, err
	}
	// The key (migration 0062) is bounded alone, as SQLite's
	// tolk_unit_text(context, '', '') is. A unit whose source and key are
	// its source unit's is linked to it and indexed on its target alone
	// (migration 0089): when the source unit is in this batch, or is not
	// noted and its row is held (above), its row holds that source and
	// key once this batch commits. One statement, so that the source
	// unit's text and note are read at one moment.
	rows, err := tx.Query(`SELECT u.id, s.id, EXISTS (SELECT 1 FROM unit_trigrams_pending q WHERE q.unit_id = s.id),
			octet_length(u.context), octet_length(u.source), octet_length(u.target),
			lower(u.context), lower(u.source), lower(u.target)
		FROM units u LEFT JOIN units s ON s.id = u.source_unit_id AND s.id != u.id AND s.source = u.source AND s.context = u.context
			AND (s.source_unit_id IS NULL OR s.source_unit_id = s.id)
		WHERE u.id = ANY(?)`, ids)
	if err != nil {
		return false, err
	}
	// Whether the source unit is of this batch is asked here, of a set:
	// "s.id = ANY(?)" in the query compared each unit's with the whole
	// batch (16 s of PostgreSQL's time over the corpus's step at load
	// 30, against 4 s for the query without it).
	batch := make(map[int64]bool, len(ids))
	for _, id := range ids {
		batch[id] = true
	}
	locked := make(map[int64]bool, len(held))
	for _, id := range held {
		locked[id] = true
	}
	var args []any
	for rows.Next() {
		var id int64
		var link *int64
		var linkNoted bool
		var keyLen, sourceLen, targetLen int
		var key, source, target string
		if err := rows.Scan(&id, &link, &linkNoted, &keyLen, &sourceLen, &targetLen, &key, &source, &target); err != nil {
			rows.Close()
			return false, err
		}
		if link != nil && !batch[*link] && (linkNoted || !locked[*link]) {
			link = nil
		}
		if link != nil {
			// Its row holds the target alone, so only the target counts
			// toward the bound: a long source is its source unit's row's.
			key, source, keyLen, sourceLen = "", "", 0, 0
		}
		text, keyText := longUnitMark, longUnitMark
		if keyLen+sourceLen+targetLen <= maxIndexedText {
			text = key + "\n" + source + "\n" + target
		}
		if keyLen <= maxIndexedText {
			keyText = key
		}
		args = append(args, id, pgTrigramCodes(text), pgTrigramCodes(keyText), link)
	}
	if err := rows.Close(); err != nil {
		return false, err
	}
	if h := tx.db.trigrams.onLinkRead; h != nil {
		h()
	}
	for len(args) > 0 {
		chunk := args[:min(len(args), 4*pgInsertRows)]
		args = args[len(chunk):]
		values := strings.Repeat("(?, ?::integer[], ?::integer[], ?::bigint), ", len(chunk)/4)
		if _, err := tx.Exec(`INSERT INTO unit_trigrams (unit_id, trigrams, key_trigrams, source_unit_id) VALUES `+
			strings.TrimSuffix(values, ", "), chunk...); err != nil {
			return false, err
		}
	}
	if err := matchNotedGlossary(tx, `u.id = ANY(?)`, ids); err != nil {
		return false, err
	}
	_, err = tx.Exec(`DELETE FROM unit_trigrams_pending WHERE unit_id = ANY(?)`, ids)
	return len(ids) == limit || linked > 0, err
}

// pgTrigramCodes is a PostgreSQL array literal of the distinct codes
// (trigramCode) of text's trigrams, in order of first use. It walks the
// runes once, packing each trigram's code as trigramCode does, and
// deduplicates by code alone: no string per trigram.
func pgTrigramCodes(text string) string {
	var b strings.Builder
	b.WriteByte('{')
	seen := make(map[int32]bool, len(text))
	var h uint64
	n := 0
	for _, r := range text {
		// The last three runes, as trigramCode packs them: the oldest
		// shifted out of the 63 bits.
		h = (h<<21 | uint64(r)) & (1<<63 - 1)
		if n++; n < minTrigramRunes {
			continue
		}
		c := foldTrigram(h)
		if seen[c] {
			continue
		}
		if len(seen) > 0 {
			b.WriteByte(',')
		}
		seen[c] = true
		b.WriteString(strconv.FormatInt(int64(c), 10))
	}
	b.WriteByte('}')
	return b.String()
}

// trigramCode is the integer PostgreSQL's trigram index keeps for the
// trigram t (three runes), as tolk_trigram_codes computes it (migration
// 0077): the code points packed into 63 bits, folded to 31 — exact for
// ASCII, and a shared code elsewhere only adds candidates.
func trigramCode(t string) int32 {
	var h uint64
	for _, r := range t {
		h = h<<21 | uint64(r)
	}
	return foldTrigram(h)
}

// foldTrigram folds a trigram's packed code points (63 bits) to the 31
// of its code.
func foldTrigram(h uint64) int32 {
	return int32((h ^ h>>32) & 0x7fffffff)
}

package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/tolk-project/tolk/index"
)

// insertChange records a change at the transaction's time and keeps the
// last_change (and, for content actions with an author, last_author) of
// every statistics scope it belongs to.
//
// Invariant: change timestamps never decrease in id order. A new change
// takes the largest id yet and tx.now, which DB.write holds at or after
// the last change's timestamp; migration 0002 repaired older rows. So
// ordering by id equals the API's ordering by (timestamp, id), and
// FindChanges counts and pages changes by id (keyset.go). Every change
// must be written here, at tx.now.
func insertChange(tx *Tx, c index.Change) error {
	// The outbox rows of the webhooks that want this change go in its
	// transaction, so that a crash loses neither. Without hooks in the
	// project this is one map lookup, and the change's INSERT waits for
	// the write's next statement, or in a pipelined batch is gathered
	// with the batch's other changes' (pipeline.go: Gathered changes).
	hooks := tx.hookSet().match(&c)
	tx.countActivity(&c)
	if len(hooks) == 0 && tx.gather {
		tx.gathered = append(tx.gathered, c)
	} else if err := writeChange(tx, &c, hooks); err != nil {
		return err
	}
	return changeInserted(tx, c)
}

// writeChange writes change c's row for insertChange: queued, or at
// once with the outbox rows of hooks, the webhooks that want it.
func writeChange(tx *Tx, c *index.Change, hooks []int64) error {
	insert, err := tx.prepare(tx.changesInsert(1))
	if err != nil {
		return err
	}
	values := changeValues(nil, c, formatTime(tx.now))
	if len(hooks) == 0 {
		return insert.execLater(values...)
	}
	res, err := insert.Exec(values...)
	if err != nil {
		return err
	}
	id, err := tx.lastInsertID(res)
	if err != nil {
		return err
	}
	return queueEvents(tx, id, c, hooks)
}

// changeValues appends the values of change c's row at time ts to args,
// in insertChange's column order.
func changeValues(args []any, c *index.Change, ts string) []any {
	return append(args, c.Action, ts, nullID(c.ProjectID), nullID(c.ComponentID),
		nullID(c.TranslationID), nullID(c.UnitID), nullString(c.LanguageCode), nullID(c.UserID),
		nullID(c.AuthorID), c.Target, c.Details)
}

// insertChanges records cs in order, as insertChange records each, up to
// maxBulkRows rows per statement: an upload records a change per string,
// and each statement is a run of the list_counts trigger (and on
// PostgreSQL was a round trip: they are queued, execLater). A change
// some webhook wants is inserted alone, as its outbox rows need its id.
func insertChanges(tx *Tx, cs []index.Change) error {
	if tx.gather {
		// A pipelined batch's: gathered with its other changes
		// (pipeline.go), as a propagating edit's peers' are.
		for _, c := range cs {
			if err := insertChange(tx, c); err != nil {
				return err
			}
		}
		return nil
	}
	hooks := tx.hookSet()
	for len(cs) > 0 {
		n := 0
		for n < len(cs) && n < maxBulkRows && len(hooks.match(&cs[n])) == 0 {
			n++
		}
		if n == 0 {
			if err := insertChange(tx, cs[0]); err != nil {
				return err
			}
			cs = cs[1:]
			continue
		}
		n = bulkRows(n)
		if err := queueChangeRows(tx, cs[:n]); err != nil {
			return err
		}
		for _, c := range cs[:n] {
			tx.countActivity(&c)
			if err := changeInserted(tx, c); err != nil {
				return err
			}
		}
		cs = cs[n:]
	}
	return nil
}

// queueChangeRows queues the INSERTs of cs at tx.now, in order, up to
// maxBulkRows rows a statement (power-of-two lists), with the write's
// next round trip (pipeline.go): nothing reads the rows before it,
// which sends them first. It records nothing else of them
// (changeInserted, countActivity): the caller has or will.
func queueChangeRows(tx *Tx, cs []index.Change) error {
	ts := formatTime(tx.now)
	for len(cs) > 0 {
		n := bulkRows(min(len(cs), maxBulkRows))
		// The arguments are the queued statement's until it is sent.
		args := make([]any, 0, 11*n)
		for i := range cs[:n] {
			args = changeValues(args, &cs[i], ts)
		}
		if err := tx.execLater(tx.changesInsert(n), args...); err != nil {
			return err
		}
		cs = cs[n:]
	}
	return nil
}

// changesInsert returns the statement that inserts n changes (n a
// power of two up to maxBulkRows), in changeValues' column order. In a
// batch that defers the lists' counts (PostgreSQL's scoped writes,
// writers.go) it notes the rows' keys for the batch's fold itself, in
// place of the changes_list_insert trigger and its delta rows
// (migration 0096): every change such a batch inserts must be inserted
// by it.
func (tx *Tx) changesInsert(n int) string {
	i := bits.Len(uint(n)) - 1
	if tx.deferCounts {
		return countedChangesInserts[i]
	}
	return changesInserts[i]
}

// changesInserts[i] inserts 1<<i changes; countedChangesInserts[i] also
// notes them in tolk.new_changes (migration 0096).
var changesInserts, countedChangesInserts = func() (plain, counted [bulkSizes]string) {
	for i := range plain {
		plain[i] = `INSERT INTO changes (action, timestamp, project_id, component_id,
			translation_id, unit_id, language_code, user_id, author_id, target, details)
			VALUES ` + valueRows("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", 1<<i)
		counted[i] = `WITH c AS (` + plain[i] + `
			RETURNING id, translation_id, component_id, project_id, unit_id)
		SELECT set_config('tolk.new_changes', coalesce(current_setting('tolk.new_changes', true), '') ||
			string_agg(concat_ws(',', id, coalesce(translation_id, 0), coalesce(component_id, 0),
				coalesce(project_id, 0), coalesce(unit_id, 0)), ',') || ',', true) FROM c`
	}
	return plain, counted
}()

// maxBulkRows is the most rows a bulk statement (insertChanges,
// updateUnits) writes.
const maxBulkRows = 64

// bulkSizes is the number of bulkRows' sizes: 1, 2, 4 ... maxBulkRows.
const bulkSizes = 7

// bulkRows is the number of rows, of n waiting, the next bulk statement
// writes: a power of two, so that few statement texts (and prepared
// statements) serve every count.
func bulkRows(n int) int {
	return 1 << (bits.Len(uint(n)) - 1)
}

// valueRows is the VALUES list of n rows, each row (such as "(?, ?)").
func valueRows(row string, n int) string {
	return strings.Repeat(row+", ", n-1) + row
}

// changeInserted keeps the last_change and last_author of the scopes of
// change c, just inserted at tx.now.
func changeInserted(tx *Tx, c index.Change) error {
	ts := formatTime(tx.now)
	if c.TranslationID == 0 {
		return nil
	}
	author := ""
	if c.AuthorID != 0 && c.Action.IsContent() {
		var err error
		if author, err = tx.authorName(c.AuthorID); err != nil {
			return err
		}
	}
	var upsert *txStmt
	for _, s := range changeScopes(c) {
		tx.touch(statsDep(s.scope, s.key))
		if o := tx.owe(s.scope, s.key); o != nil {
			o.lastChange = ts
			if author != "" {
				o.lastAuthor = author
			}
			continue
		}
		if last, ok := tx.stamped[s]; ok && (author == "" || author == last) {
			// The row holds this transaction's time, and this author,
			// since an earlier change of the write: writing it again
			// would change nothing. (PostgreSQL would keep every version
			// of the row until the commit, and walk them all on each
			// update: an import of 20,000 units took minutes.)
			continue
		}
		if upsert == nil {
			var err error
			if upsert, err = tx.prepare(`INSERT INTO stats (scope, scope_key, last_change, last_author)
				VALUES (?, ?, ?, ?) ON CONFLICT (scope, scope_key) DO UPDATE SET
				last_change = excluded.last_change,
				last_author = CASE WHEN excluded.last_author != '' THEN excluded.last_author ELSE stats.last_author END`); err != nil {
				return err
			}
		}
		if _, err := upsert.Exec(s.scope, s.key, ts, author); err != nil {
			return err
		}
		if _, ok := tx.stamped[s]; !ok || author != "" {
			tx.stamped[s] = author
		}
	}
	touchChanges(tx, c)
	return nil
}

// authorNameQuery reads the name statistics show for a user.
const authorNameQuery = `SELECT CASE WHEN full_name != '' THEN full_name ELSE username END FROM users WHERE id = ?`

// authorName is the name statistics show for the author with the given
// id, read once per write: an upload records a change per string, all by
// one author.
func (tx *Tx) authorName(id int64) (string, error) {
	if tx.author.id == id {
		return tx.author.name, nil
	}
	var name string
	if err := tx.QueryRow(authorNameQuery, id).Scan(&name); err != nil {
		return "", err
	}
	tx.author.id, tx.author.name = id, name
	return name, nil
}

// touchChanges records that the write added change c to the lists of
// its scopes.
func touchChanges(tx *Tx, c index.Change) {
	tx.touch(depOf(depChanges, "t"+itoa(c.TranslationID)), depOf(depChanges, "c"+itoa(c.ComponentID)),
		depOf(depChanges, "p"+itoa(c.ProjectID)), depOf(depChanges, "*"))
}

type scopeKey struct {
	scope string
	key   string
}

func changeScopes(c index.Change) []scopeKey {
	return []scopeKey{
		{"t", itoa(c.TranslationID)}, {"c", itoa(c.ComponentID)},
		{"p", itoa(c.ProjectID)}, {"l", c.LanguageCode}, {"pl", itoa(c.ProjectID) + "/" + c.LanguageCode},
	}
}

func nullID(id int64) sql.NullInt64 { return sql.NullInt64{Int64: id, Valid: id != 0} }

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// changeSelect reads changes ch with the slugs and names they refer to.
// Only the component is joined (its category's path needs two of its
// columns); the others are scalar subqueries, each planned alone. With
// all five joined, PostgreSQL's join search (an order for six relations,
// a Memoize considered for each) took 1.3-3 ms to plan a page of 50
// changes that runs in 0.3 ms, and at 10x the corpus (2,400 changes) the
// page was planned at every read: its generic plan, priced for a third
// of the table, lost to the custom one. The list of all changes read
// without the page cache took 2.2 ms at 1x and 16 ms at 10x (issue 31).
const changeSelect = `SELECT ch.id, ch.action, ch.timestamp, coalesce(ch.project_id, 0),
	coalesce(ch.component_id, 0), coalesce(ch.translation_id, 0), coalesce(ch.unit_id, 0),
	coalesce(ch.user_id, 0), coalesce(ch.author_id, 0), ch.target, ch.details,
	coalesce((SELECT p.slug FROM projects p WHERE p.id = ch.project_id), ''), coalesce(c.slug, ''),
	coalesce((SELECT t.language_code FROM translations t WHERE t.id = ch.translation_id), ''),
	coalesce((SELECT u.username FROM users u WHERE u.id = ch.user_id), ''),
	coalesce((SELECT a.username FROM users a WHERE a.id = ch.author_id), ''),
	coalesce(` + categoryPathColumn + `, '')
	FROM changes ch
	LEFT JOIN components c ON c.id = ch.component_id`

func scanChange(s interface{ Scan(...any) error }) (index.Change, error) {
	var c index.Change
	var ts string
	err := s.Scan(&c.ID, &c.Action, &ts, &c.ProjectID, &c.ComponentID, &c.TranslationID, &c.UnitID,
		&c.UserID, &c.AuthorID, &c.Target, &c.Details, &c.ProjectSlug, &c.ComponentSlug,
		&c.LanguageCode, &c.UserName, &c.AuthorName, &c.CategoryPath)
	c.Timestamp = parseTime(ts)
	return c, err
}

// FindChangeByID returns one change, or ErrNotFound.
func (db *DB) FindChangeByID(ctx context.Context, id int64) (index.Change, error) {
	c, err := scanChange(db.r.QueryRowContext(ctx, changeSelect+` WHERE ch.id = ?`, id))
	return c, formatError(err)
}

// FindChanges returns one page of the changes matching f in ascending
// timestamp (then id) order, and the total number of matches.
//
// Cost: a list of all changes or of one project, component, translation or
// unit, bounded by After and Before or not, costs the same for any page,
// through list_counts (keyset.go): time bounds become id bounds because
// timestamps never decrease in id order (see insertChange), and only the
// two buckets the bounds cut are recounted, fewer than 2,048 index entries.
// A filter on Actions, UserName or HiddenProjects, or on two scopes at
// once, counts the matching changes of its scope and reads the page with
// OFFSET, so that cost grows with the scope's changes and with the page
// number. Either way a page read since the last write is answered from
// memory (genCache); the changes returned are shared and must not be
// modified.
func (db *DB) FindChanges(ctx context.Context, f index.ChangeFilter) ([]index.Change, int, error) {
	key := changePageKey(f)
	return pageOf(ctx, db, &db.changePages, key, changesDep(f), changeStrings, func() (page[index.Change], error) {
		if p, ok := db.appendedChangesPage(ctx, f, key); ok {
			return p, nil
		}
		return readPage(db.findChanges(ctx, f))
	})
}

// appendedChangesPage answers, on a miss of the page cache, a full page
// of a counted list of changes (no filter but its scope, no time
// bounds) that only narrow writes made stale since it was read: they
// append changes, which take ids above every other, and neither change
// nor remove any (every write that does touches everything). The rows
// of a full page are then the same and only the list's total moved,
// which list_counts sums in one small query; pageOf keeps the page
// again with it, and with the rows' generation. Every edit makes the list of all changes stale, and
// reading its page again cost readers of that list more than half their
// throughput under 500 edits a second.
func (db *DB) appendedChangesPage(ctx context.Context, f index.ChangeFilter, key string) (page[index.Change], bool) {
	if !f.After.IsZero() || !f.Before.IsZero() || f.Page.Size <= 0 {
		return page[index.Change]{}, false
	}
	p, at, ok := db.changePages.get(key)
	if !ok || len(p.rows) != f.Page.Size || db.clock.global.Load() > at {
		return page[index.Change]{}, false
	}
	l := changeList(f)
	if where, _ := changeWhere(f); where != l.where {
		return page[index.Change]{}, false
	}
	total, err := l.total(ctx, db.r)
	// A total that fell means changes were removed, by a write the clock
	// may not show yet: read the page.
	if err != nil || total < p.total || db.clock.global.Load() > at {
		return page[index.Change]{}, false
	}
	p.total = total
	return p, true
}

// changesDep is what a page of changes depends on: the changes of the
// narrowest scope f names, or of everything.
func changesDep(f index.ChangeFilter) dep {
	switch {
	case f.TranslationID != 0:
		return depOf(depChanges, "t"+itoa(f.TranslationID))
	case f.ComponentID != 0:
		return depOf(depChanges, "c"+itoa(f.ComponentID))
	case f.ProjectID != 0:
		return depOf(depChanges, "p"+itoa(f.ProjectID))
	}
	return depOf(depChanges, "*")
}

// changePageKey identifies f's page in the page cache.
func changePageKey(f index.ChangeFilter) string {
	b := make([]byte, 0, 96)
	for _, n := range []int64{f.ProjectID, f.ComponentID, f.TranslationID, f.UnitID, f.After.Unix(),
		int64(f.After.Nanosecond()), f.Before.Unix(), int64(f.Before.Nanosecond()), int64(f.Page.Number), int64(f.Page.Size), int64(len(f.Actions))} {
		b = strconv.AppendInt(b, n, 10)
		b = append(b, ',')
	}
	for _, a := range f.Actions {
		b = strconv.AppendInt(b, int64(a), 10)
		b = append(b, ',')
	}
	b = append(b, hiddenKey(f.HiddenProjects)...)
	b = append(b, '/')
	return string(append(b, f.UserName...))
}

func (db *DB) findChanges(ctx context.Context, f index.ChangeFilter) ([]index.Change, int, error) {
	// One read transaction, so the total and the page see one snapshot.
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer tx.Rollback()
	// A filter that narrows no more than its scope and time bounds do is a
	// counted list.
	untimed := f
	untimed.After, untimed.Before = time.Time{}, time.Time{}
	where, _ := changeWhere(untimed)
	l := changeList(f)
	var changes []index.Change
	var total int
	if where == l.where {
		changes, total, err = findChangesByKey(ctx, tx, f, l)
	} else {
		where, args := changeWhere(f)
		changes, total, err = findChangesFiltered(ctx, tx, f, where, args)
	}
	return changes, total, formatError(err)
}

// changeWhere turns a filter into a WHERE clause over changes ch.
func changeWhere(f index.ChangeFilter) (string, []any) {
	var where []string
	var args []any
	add := func(cond string, arg ...any) {
		where = append(where, cond)
		args = append(args, arg...)
	}
	if f.TranslationID != 0 {
		add("ch.translation_id = ?", f.TranslationID)
	}
	if f.ComponentID != 0 {
		add("ch.component_id = ?", f.ComponentID)
	}
	if f.ProjectID != 0 {
		add("ch.project_id = ?", f.ProjectID)
	}
	if f.UnitID != 0 {
		add("ch.unit_id = ?", f.UnitID)
	}
	if len(f.Actions) > 0 {
		marks := make([]string, len(f.Actions))
		for i, a := range f.Actions {
			marks[i] = "?"
			args = append(args, a)
		}
		where = append(where, "ch.action IN ("+strings.Join(marks, ",")+")")
	}
	if f.UserName != "" {
		add("ch.user_id = (SELECT id FROM users WHERE username = ?)", f.UserName)
	}
	if len(f.HiddenProjects) > 0 {
		cond, ids := notIn("ch.project_id", f.HiddenProjects)
		add("(ch.project_id IS NULL OR "+cond+")", ids...)
	}
	// Time bounds are id bounds (see firstChangeAfter).
	if !f.After.IsZero() {
		add("ch.id >= "+firstChangeAfter, formatTime(f.After))
	}
	if !f.Before.IsZero() {
		add("ch.id < coalesce("+firstChangeFrom+", "+strconv.FormatInt(noBound, 10)+")", formatTime(f.Before))
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

// changeList returns the narrowest counted list that holds f's matches,
// its time bounds aside.
func changeList(f index.ChangeFilter) keyList {
	l := keyList{list: "c", from: "changes ch", id: "ch.id", hi: noBound}
	var scope index.ChangeFilter
	switch {
	case f.UnitID != 0:
		l.list, l.scope, scope.UnitID = "cu", f.UnitID, f.UnitID
	case f.TranslationID != 0:
		l.list, l.scope, scope.TranslationID = "ct", f.TranslationID, f.TranslationID
	case f.ComponentID != 0:
		l.list, l.scope, scope.ComponentID = "cc", f.ComponentID, f.ComponentID
	case f.ProjectID != 0:
		l.list, l.scope, scope.ProjectID = "cp", f.ProjectID, f.ProjectID
	}
	l.where, l.args = changeWhere(scope)
	return l
}

// findChangesByKey reads a page of a counted list of changes within f's
// time bounds.
func findChangesByKey(ctx context.Context, q queryer, f index.ChangeFilter, l keyList) ([]index.Change, int, error) {
	// Timestamps never decrease in id order, so the changes after After
	// are those from the first of them on, by id, and likewise for Before.
	if !f.After.IsZero() {
		lo, found, err := firstChangeAt(ctx, q, firstChangeAfter, f.After)
		if err != nil || !found {
			return nil, 0, err
		}
		l.lo = lo
	}
	if !f.Before.IsZero() {
		hi, found, err := firstChangeAt(ctx, q, firstChangeFrom, f.Before)
		if err != nil {
			return nil, 0, err
		}
		if found {
			l.hi = hi
		}
	}
	total, first, ok, err := l.locate(ctx, q, f.Page.Offset())
	if err != nil || !ok || f.Page.Size <= 0 {
		return nil, total, err
	}
	// By the same invariant, id order is (timestamp, id) order, and the
	// scope's index (changes_*_list, migration 0002) is in id order.
	cond, condArgs := l.after(first)
	rows, err := q.QueryContext(ctx, changeSelect+cond+` ORDER BY ch.id LIMIT ?`, withArgs(condArgs, f.Page.Size)...)
	if err != nil {
		return nil, 0, err
	}
	changes, err := scanChanges(rows, min(f.Page.Size, total-f.Page.Offset()))
	return changes, total, err
}

// firstChangeAfter is a subquery for the id of the first change after
// a time (its argument), NULL if there is none; firstChangeFrom, at or
// after. Timestamps never decrease in id order (insertChange), so the
// changes of any scope after a time are those from that id on, and a
// scope's index ending in the id (changes_*_list, migrations 0002 and
// 0020) finds them: the changes table keeps no (scope, timestamp)
// indexes, which every change recorded paid for.
const (
	firstChangeAfter = `(SELECT id FROM changes WHERE timestamp > ? ORDER BY timestamp, id LIMIT 1)`
	firstChangeFrom  = `(SELECT id FROM changes WHERE timestamp >= ? ORDER BY timestamp, id LIMIT 1)`
)

// firstChangeAt returns the id that first, firstChangeAfter or
// firstChangeFrom, finds for t.
func firstChangeAt(ctx context.Context, q queryer, first string, t time.Time) (id int64, found bool, err error) {
	var n sql.NullInt64
	err = q.QueryRowContext(ctx, `SELECT `+first, formatTime(t)).Scan(&n)
	return n.Int64, n.Valid, err
}

// findChangesFiltered counts the matches and reads the page with OFFSET.
func findChangesFiltered(ctx context.Context, q queryer, f index.ChangeFilter, where string, args []any) ([]index.Change, int, error) {
	var total int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM changes ch`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if f.Page.Offset() < 0 || f.Page.Size <= 0 || f.Page.Offset() >= total {
		return nil, total, nil
	}
	rows, err := q.QueryContext(ctx, changeSelect+where+` ORDER BY ch.id LIMIT ? OFFSET ?`,
		withArgs(args, f.Page.Size, f.Page.Offset())...)
	if err != nil {
		return nil, 0, err
	}
	changes, err := scanChanges(rows, min(f.Page.Size, total-f.Page.Offset()))
	return changes, total, err
}

// scanChanges reads and closes rows, expecting at most size of them.
func scanChanges(rows *sql.Rows, size int) ([]index.Change, error) {
	defer rows.Close()
	out := make([]index.Change, 0, size)
	for rows.Next() {
		c, err := scanChange(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RecordComponentChange records a change about a component as a whole,
// with no translation or unit, such as a repository notification (53),
// at the transaction's time. c's ProjectID and ComponentID must name the
// component; its Timestamp and ID are ignored.
func (db *DB) RecordComponentChange(ctx context.Context, c index.Change) error {
	if c.ComponentID == 0 || c.TranslationID != 0 || c.UnitID != 0 {
		return fmt.Errorf("record change %d: want a component's change", c.Action)
	}
	return db.write(ctx, func(tx *Tx) error { return insertChange(tx, c) })
}

package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tolk-project/tolk/index"
)

// ceiling is the write transaction of a unit PATCH run straight on the
// engine: the statements sqlstore.DB.UpdateUnit runs to change a unit's
// target and state (index/sqlstore/unitwrite.go, edit.go, changes.go,
// stats.go), in its order and with its SQL for every write, on a copy of
// the index (the same schema, triggers and rows) opened as the index
// opens its writer. No HTTP, no authentication, no rules: what the write
// costs the engine and database/sql. One edit per transaction, from one
// goroutine: the index has one writer (SQLite's one, PostgreSQL's
// advisory write lock), so more would only queue.
type ceiling struct {
	name string
	db   *sql.DB
	// numbered: PostgreSQL's $n placeholders; lock begins every
	// transaction ("": none), as the index's writer begins its own.
	numbered bool
	lock     string
	// prepared holds every statement prepared once on the connection;
	// nil compiles them as the index does (see ceilingQuery).
	prepared map[string]*sql.Stmt
	userID   int64
	edits    *edits
	done     atomic.Int64 // edits committed
	failure  firstError
}

// ceilingQuery is one statement of the edit. perUse marks those the index
// runs through ExecContext or QueryRowContext, which compile them at each
// use; it prepares the others once per transaction (sqlite.Tx.prepare).
type ceilingQuery struct {
	sql    string
	perUse bool
}

// The statements, in the order an edit runs them. The two wide reads,
// of the unit and of its translation with component, project and
// language, read every column of the rows the index reads (which the
// rules look at); SELECT * keeps their column lists out of this file.
var (
	qLastChange  = ceilingQuery{`SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1`, true}
	qUnit        = ceilingQuery{`SELECT state, target, source, context, num_words, num_chars, translation_id, * FROM units WHERE id = ?`, true}
	qTranslation = ceilingQuery{`SELECT * FROM translations t JOIN components c ON c.id = t.component_id
		JOIN projects p ON p.id = c.project_id LEFT JOIN languages l ON l.code = t.language_code WHERE t.id = ?`, true}
	qScope = ceilingQuery{`SELECT t.component_id, c.project_id, t.language_code
		FROM translations t JOIN components c ON c.id = t.component_id WHERE t.id = ?`, true}
	qUpdateUnit   = ceilingQuery{`UPDATE units SET target = ?, state = ?, pending = 1, timestamp = ? WHERE id = ?`, false}
	qInsertChange = ceilingQuery{`INSERT INTO changes (action, timestamp, project_id, component_id,
		translation_id, unit_id, language_code, user_id, author_id, target, details)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, false}
	qAuthor = ceilingQuery{`SELECT CASE WHEN full_name != '' THEN full_name ELSE username END
		FROM users WHERE id = ?`, true}
	qLastChangeUpsert = ceilingQuery{`INSERT INTO stats (scope, scope_key, last_change, last_author)
		VALUES (?, ?, ?, ?) ON CONFLICT (scope, scope_key) DO UPDATE SET
		last_change = excluded.last_change,
		last_author = CASE WHEN excluded.last_author != '' THEN excluded.last_author ELSE stats.last_author END`, false}
	qContributor = ceilingQuery{`INSERT INTO contributors (translation_id, user_id) VALUES (?, ?)
		ON CONFLICT DO NOTHING`, true}
	qAddStats = ceilingQuery{addStatsSQL(), true}

	ceilingQueries = []ceilingQuery{qLastChange, qUnit, qTranslation, qScope, qUpdateUnit, qInsertChange,
		qAuthor, qLastChangeUpsert, qContributor, qAddStats}
)

// statsColumns are the statistics columns, in the order of statsValues.
var statsColumns = []string{"total", "total_words", "total_chars", "translated", "translated_words",
	"translated_chars", "fuzzy", "fuzzy_words", "fuzzy_chars", "failing", "failing_words", "failing_chars",
	"approved", "approved_words", "approved_chars", "readonly", "readonly_words", "readonly_chars",
	"suggestions", "comments"}

func statsValues(s index.Stats) []any {
	return []any{s.Total, s.TotalWords, s.TotalChars, s.Translated, s.TranslatedWords, s.TranslatedChars,
		s.Fuzzy, s.FuzzyWords, s.FuzzyChars, s.Failing, s.FailingWords, s.FailingChars, s.Approved,
		s.ApprovedWords, s.ApprovedChars, s.Readonly, s.ReadonlyWords, s.ReadonlyChars, s.Suggestions, s.Comments}
}

// addStatsSQL is the index's statistics upsert: every column plus the
// delta's.
func addStatsSQL() string {
	adds := make([]string, len(statsColumns))
	for i, c := range statsColumns {
		adds[i] = c + " = stats." + c + " + excluded." + c
	}
	return `INSERT INTO stats (scope, scope_key, ` + strings.Join(statsColumns, ", ") + `) VALUES (?, ?` +
		strings.Repeat(", ?", len(statsColumns)) + `) ON CONFLICT (scope, scope_key) DO UPDATE SET ` +
		strings.Join(adds, ", ")
}

// changeDetails is what the index keeps in a unit change's details
// (index/sqlstore/edit.go).
type changeDetails struct {
	State    index.State `json:"state"`
	OldState index.State `json:"old_state"`
	Old      string      `json:"old"`
	Source   string      `json:"source"`
	Context  string      `json:"context"`
}

// timeLayout is the index's timestamp format (index/sqlstore/sqlite.go).
const timeLayout = "2006-01-02T15:04:05.000000Z"

// indexWriteLock stands for what the PostgreSQL index runs first in
// each write transaction (index/sqlstore/postgres.go, lockSpace): a
// transaction-level advisory lock in the two-int form. The index keys
// it by its schema; the ceiling's copy is a schema of its own, so any
// key of that form costs what the index's lock costs.
const indexWriteLock = "SELECT pg_advisory_xact_lock(1953459307, 0)"

// openCeilings opens the copy of the index in st as the index opens its
// writer (SQLite: its pragmas, foreign keys, BEGIN IMMEDIATE, one
// connection; PostgreSQL: one connection, the advisory write lock first
// in each transaction) and returns two ceilings over it, taking edits
// from e: every statement prepared once, and statements compiled as the
// index compiles them today. closeFn may be called more than once.
func openCeilings(ctx context.Context, st *store, userID int64, e *edits) (cls []*ceiling, closeFn func() error, err error) {
	var db *sql.DB
	base := ceiling{userID: userID, edits: e}
	if st.schema != "" {
		if db, err = sql.Open("pgx", st.dsn); err == nil {
			db.SetMaxOpenConns(1)
			db.SetConnMaxIdleTime(0)
		}
		base.numbered, base.lock = true, indexWriteLock
	} else {
		db, err = openSQLite(st.path, url.Values{"_pragma": {"foreign_keys(1)"}, "_txlock": {"immediate"}})
	}
	if err != nil {
		return nil, nil, err
	}
	base.db = db
	var once sync.Once
	var closeErr error
	closeFn = func() error {
		once.Do(func() { closeErr = db.Close() })
		return closeErr
	}
	prepared := map[string]*sql.Stmt{}
	for _, q := range ceilingQueries {
		s, err := db.PrepareContext(ctx, base.text(q))
		if err != nil {
			closeFn()
			return nil, nil, fmt.Errorf("ceiling: prepare %.40s: %w", q.sql, err)
		}
		prepared[q.sql] = s
	}
	prep := base.with("ceiling: the same statements, prepared once")
	prep.prepared = prepared
	return []*ceiling{prep, base.with("ceiling: the same statements, compiled as the index does")}, closeFn, nil
}

// with returns a ceiling like cl named name, with counts of its own.
func (cl *ceiling) with(name string) *ceiling {
	return &ceiling{name: name, db: cl.db, numbered: cl.numbered, lock: cl.lock, prepared: cl.prepared,
		userID: cl.userID, edits: cl.edits}
}

// text is q's SQL for the engine.
func (cl *ceiling) text(q ceilingQuery) string { return rebind(q.sql, cl.numbered) }

// edit is an op making the next edit in one transaction.
func (cl *ceiling) edit(ctx context.Context, _ int64) (bool, error) {
	ed := cl.edits.next()
	tx, err := cl.db.BeginTx(ctx, nil)
	if err == nil && cl.lock != "" {
		_, err = tx.ExecContext(ctx, cl.lock)
	}
	if err == nil {
		err = (&ceilingTx{Tx: tx, cl: cl}).editUnit(ctx, ed)
		if err == nil {
			err = tx.Commit()
		}
		tx.Rollback()
	}
	if err != nil {
		cl.failure.set(fmt.Sprintf("unit %d: %v", ed.unit, err))
		return false, nil
	}
	cl.done.Add(1)
	return true, nil
}

// ceilingTx is one edit's transaction.
type ceilingTx struct {
	*sql.Tx
	cl    *ceiling
	perTx map[string]*sql.Stmt
}

// editScope is what a translation's changes and statistics are filed
// under.
type editScope struct {
	translationID, componentID, projectID int64
	language                              string
}

// keys are the statistics rows of the scope: the translation, then its
// component, project, language and language within the project.
func (s editScope) keys() [5][2]string {
	tr, project := itoa(s.translationID), itoa(s.projectID)
	return [5][2]string{{"t", tr}, {"c", itoa(s.componentID)}, {"p", project}, {"l", s.language},
		{"pl", project + "/" + s.language}}
}

// editUnit runs UpdateUnit's statements for ed.
func (t *ceilingTx) editUnit(ctx context.Context, ed edit) error {
	// The clock guard of sqlstore.DB.write.
	now := time.Now().UTC()
	var last string
	if err := t.queryRow(ctx, qLastChange, nil, &last); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if l, err := time.Parse(timeLayout, last); err == nil && l.After(now) {
		now = l
	}
	ts := now.Format(timeLayout)

	var u struct {
		state                   index.State
		target, source, context string
		words, chars            int
	}
	sc := editScope{}
	if err := t.queryRow(ctx, qUnit, []any{ed.unit}, &u.state, &u.target, &u.source, &u.context, &u.words,
		&u.chars, &sc.translationID); err != nil {
		return err
	}
	if err := t.queryRow(ctx, qTranslation, []any{sc.translationID}); err != nil {
		return err
	}
	if err := t.queryRow(ctx, qScope, []any{sc.translationID}, &sc.componentID, &sc.projectID, &sc.language); err != nil {
		return err
	}
	if _, err := t.exec(ctx, qUpdateUnit, ed.target, ed.state, ts, ed.unit); err != nil {
		return err
	}
	var delta, old index.Stats
	delta.CountUnit(ed.state, u.words, u.chars)
	old.CountUnit(u.state, u.words, u.chars)
	delta.Add(old, -1)
	details, err := json.Marshal(changeDetails{State: ed.state, OldState: u.state, Old: u.target,
		Source: u.source, Context: u.context})
	if err != nil {
		return err
	}
	if err := t.change(ctx, sc, index.EditAction(u.state, ed.state), ed.unit, ed.target, string(details), ts); err != nil {
		return err
	}
	res, err := t.exec(ctx, qContributor, sc.translationID, t.cl.userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		if err := t.change(ctx, sc, index.ActionNewContributor, ed.unit, "", "", ts); err != nil {
			return err
		}
	}
	if delta == (index.Stats{}) {
		return nil
	}
	for _, k := range sc.keys() {
		if _, err := t.exec(ctx, qAddStats, append([]any{k[0], k[1]}, statsValues(delta)...)...); err != nil {
			return err
		}
	}
	return nil
}

// change is insertChange: the change row, its author's name for a
// content change, and the last change of every scope.
func (t *ceilingTx) change(ctx context.Context, sc editScope, action index.Action, unitID int64, target, details, ts string) error {
	if _, err := t.exec(ctx, qInsertChange, action, ts, sc.projectID, sc.componentID, sc.translationID, unitID,
		sc.language, t.cl.userID, t.cl.userID, target, details); err != nil {
		return err
	}
	author := ""
	if action.IsContent() {
		if err := t.queryRow(ctx, qAuthor, []any{t.cl.userID}, &author); err != nil {
			return err
		}
	}
	for _, k := range sc.keys() {
		if _, err := t.exec(ctx, qLastChangeUpsert, k[0], k[1], ts, author); err != nil {
			return err
		}
	}
	return nil
}

// stmt returns q ready to run in t, or nil when q is compiled at its use.
func (t *ceilingTx) stmt(ctx context.Context, q ceilingQuery) (*sql.Stmt, error) {
	if s, ok := t.cl.prepared[q.sql]; ok {
		return t.StmtContext(ctx, s), nil
	}
	if q.perUse {
		return nil, nil
	}
	if s, ok := t.perTx[q.sql]; ok {
		return s, nil
	}
	s, err := t.PrepareContext(ctx, t.cl.text(q))
	if err != nil {
		return nil, err
	}
	if t.perTx == nil {
		t.perTx = map[string]*sql.Stmt{}
	}
	t.perTx[q.sql] = s
	return s, nil
}

func (t *ceilingTx) exec(ctx context.Context, q ceilingQuery, args ...any) (sql.Result, error) {
	s, err := t.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return t.ExecContext(ctx, t.cl.text(q), args...)
	}
	return s.ExecContext(ctx, args...)
}

// queryRow runs q and scans its one row: its first columns into dest,
// the rest (a SELECT *'s) read and dropped. No row is sql.ErrNoRows.
func (t *ceilingTx) queryRow(ctx context.Context, q ceilingQuery, args []any, dest ...any) error {
	s, err := t.stmt(ctx, q)
	if err != nil {
		return err
	}
	var rows *sql.Rows
	if s == nil {
		rows, err = t.QueryContext(ctx, t.cl.text(q), args...)
	} else {
		rows, err = s.QueryContext(ctx, args...)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	all := slices.Clip(dest)
	for len(all) < len(cols) {
		all = append(all, new(sql.RawBytes))
	}
	if err := rows.Scan(all...); err != nil {
		return err
	}
	return rows.Close()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/tolk-project/tolk/index"
)

const unitColumns = `id, translation_id, coalesce(source_unit_id, 0), position, context, source, target,
	previous_source, id_hash, content_hash, location, note, flags, explanation, extra_flags, state,
	pending, priority, num_words, has_suggestion, has_comment, has_failing_check, timestamp,
	automatically_translated`

func scanUnit(s interface{ Scan(...any) error }) (index.Unit, error) {
	var u index.Unit
	var source, target, ts string
	err := s.Scan(&u.ID, &u.TranslationID, &u.SourceUnitID, &u.Position, &u.Context, &source, &target,
		&u.PreviousSource, &u.IDHash, &u.ContentHash, &u.Location, &u.Note, &u.Flags, &u.Explanation,
		&u.ExtraFlags, &u.State, &u.Pending, &u.Priority, &u.NumWords, &u.HasSuggestion, &u.HasComment,
		&u.HasFailingCheck, &ts, &u.AutomaticallyTranslated)
	u.Source = index.SplitPlural(source)
	u.Target = index.SplitPlural(target)
	u.Timestamp = parseTime(ts)
	return u, err
}

// FindUnitByID returns one unit with its labels, or ErrNotFound.
func (db *DB) FindUnitByID(ctx context.Context, id int64) (index.Unit, error) {
	u, err := scanUnit(db.r.QueryRowContext(ctx, `SELECT `+unitColumns+` FROM units WHERE id = ?`, id))
	if err == nil {
		units := []index.Unit{u}
		err = withLabels(ctx, db.r, units)
		u = units[0]
	}
	return u, formatError(err)
}

// FindUnits returns one page of the units matching f in ascending id
// order, and the number of matches, leaving out the units of the
// projects whose ids are f.HiddenProjects. Without a query the count of a
// translation's units equals its statistics' total.
//
// Cost: without a query or hidden projects (the lists of a translation
// and of all units) any page costs what the first does, through
// list_counts (keyset.go). With either, the units of the scope are
// scanned to count the matches and the page is read with OFFSET, so that
// cost grows with the translation (or the whole index when TranslationID
// is 0) and with the page number.
// Either way a page read since the last write is answered from memory
// (genCache); the units returned are shared and must not be modified.
// A search that reads what a write elsewhere changes (see cachedSearch)
// is always read anew.
func (db *DB) FindUnits(ctx context.Context, f index.UnitFilter) ([]index.Unit, int, error) {
	// The query is parsed once, here: findUnits compiles this parse.
	q := &index.Query{Kind: index.QueryAll}
	if f.Query != "" {
		var err error
		if q, err = index.ParseUnitQueryAt(f.Query, db.now()); err != nil {
			return nil, 0, err
		}
	}
	if !cachedSearch(q) || !cachedSort(f.Sort) {
		return db.findUnits(ctx, f, q)
	}
	key := strings.Join([]string{itoa(f.TranslationID), strconv.Itoa(f.Page.Number), strconv.Itoa(f.Page.Size), f.Query,
		hiddenKey(f.HiddenProjects), index.UnitSortString(f.Sort)}, "\x00")
	return pageOf(ctx, db, &db.unitPages, key, unitsDep(f.TranslationID), unitStrings, func() (page[index.Unit], error) {
		return readPage(db.findUnits(ctx, f, q))
	})
}

// findUnits is FindUnits' read, with f.Query parsed (q).
func (db *DB) findUnits(ctx context.Context, f index.UnitFilter, q *index.Query) ([]index.Unit, int, error) {
	pg := db.dialect.name == "postgres"
	where, args, err := unitWhereQuery(f, q, pg)
	if err != nil {
		return nil, 0, err
	}
	if f.Query != "" || len(f.Sort) > 0 {
		// A search's cost is bounded (search.go), and a sort's; the
		// context ends the statement on both engines.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, searchTimeout)
		defer cancel()
	}
	// One read transaction, so the total and the page see one snapshot.
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer tx.Rollback()
	// A filter that narrows no more than its scope does is a counted list.
	scopeWhere, _, _ := unitWhereQuery(index.UnitFilter{TranslationID: f.TranslationID}, &index.Query{Kind: index.QueryAll}, pg)
	var units []index.Unit
	var total int
	shared, isShared := sharedSearch{}, false
	if pg && len(f.Sort) == 0 && f.TranslationID == 0 && len(f.HiddenProjects) == 0 {
		shared, isShared = sharedQuery(q)
	}
	switch {
	case where == scopeWhere && len(f.Sort) == 0:
		units, total, err = findUnitsByKey(ctx, tx, f, where, args)
	case isShared:
		if c := db.paths; c != nil { // TestFindUnitsShared: the paths answer alike
			c.sharedSearches.Add(1)
		}
		units, total, err = findUnitsShared(ctx, tx, f, shared)
	default:
		units, total, err = findUnitsFiltered(ctx, tx, f, q, where, args, pg)
	}
	if f.Query != "" || len(f.Sort) > 0 {
		err = searchError(ctx, err)
	}
	return units, total, formatError(err)
}

// findUnitsByKey reads a page of a counted list: all units, or the units
// of one translation (where and args select them).
func findUnitsByKey(ctx context.Context, q queryer, f index.UnitFilter, where string, args []any) ([]index.Unit, int, error) {
	l := keyList{list: "ut", scope: f.TranslationID, allScopes: f.TranslationID == 0, from: "units", id: "id",
		where: where, args: args, hi: noBound}
	total, first, ok, err := l.locate(ctx, q, f.Page.Offset())
	if err != nil || !ok || f.Page.Size <= 0 {
		return nil, total, err
	}
	cond, condArgs := l.after(first)
	rows, err := q.QueryContext(ctx, `SELECT `+unitColumns+` FROM units`+cond+` ORDER BY id LIMIT ?`,
		withArgs(condArgs, f.Page.Size)...)
	if err != nil {
		return nil, 0, err
	}
	units, err := scanUnits(rows, min(f.Page.Size, total-f.Page.Offset()))
	if err == nil {
		err = withLabels(ctx, q, units)
	}
	return units, total, err
}

// findUnitsFiltered counts the matches and reads the page with OFFSET,
// in f.Sort's order.
func findUnitsFiltered(ctx context.Context, q queryer, f index.UnitFilter, query *index.Query, where string, args []any, pg bool) ([]index.Unit, int, error) {
	total, err := countUnits(ctx, q, f, query, where, args, pg)
	if err != nil {
		return nil, 0, err
	}
	if f.Page.Offset() < 0 || f.Page.Size <= 0 || f.Page.Offset() >= total {
		return nil, total, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT `+unitColumns+` FROM units`+where+` ORDER BY `+unitOrder(f.Sort, pg)+` LIMIT ? OFFSET ?`,
		withArgs(args, f.Page.Size, f.Page.Offset())...)
	if err != nil {
		return nil, 0, err
	}
	units, err := scanUnits(rows, min(f.Page.Size, total-f.Page.Offset()))
	if err == nil {
		err = withLabels(ctx, q, units)
	}
	return units, total, err
}

// scanUnits reads and closes rows, expecting at most size of them.
func scanUnits(rows *sql.Rows, size int) ([]index.Unit, error) {
	defer rows.Close()
	out := make([]index.Unit, 0, size)
	for rows.Next() {
		u, err := scanUnit(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// unitWhere turns a filter into a WHERE clause: the scope (translation,
// hidden projects) and the search (search.go), relative dates read at now.
func unitWhere(f index.UnitFilter, postgres bool, now time.Time) (string, []any, error) {
	q, err := index.ParseUnitQueryAt(f.Query, now)
	if err != nil {
		return "", nil, err
	}
	return unitWhereQuery(f, q, postgres)
}

// unitScope is the conditions of f's scope: its translation, its hidden
// projects.
func unitScope(f index.UnitFilter) ([]string, []any) {
	var conds []string
	var args []any
	if f.TranslationID != 0 {
		conds = append(conds, "translation_id = ?")
		args = append(args, f.TranslationID)
	}
	if len(f.HiddenProjects) > 0 {
		// The hidden projects' translations are few next to their units:
		// SQLite collects their ids once and tests each unit against them.
		list, ids := idList(f.HiddenProjects)
		conds = append(conds, `translation_id NOT IN (SELECT t.id FROM translations t
			JOIN components c ON c.id = t.component_id WHERE c.project_id IN `+list+`)`)
		args = append(args, ids...)
	}
	return conds, args
}

// unitWhereQuery is unitWhere with f's query already parsed into q.
func unitWhereQuery(f index.UnitFilter, q *index.Query, postgres bool) (string, []any, error) {
	conds, args := unitScope(f)
	if q.Kind != index.QueryAll {
		cond, err := compileSearch(q, postgres, f.TranslationID != 0)
		if err != nil {
			return "", nil, err
		}
		conds = append(conds, "("+cond.sql+")")
		args = append(args, cond.args...)
	}
	if len(conds) == 0 {
		return "", nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, nil
}

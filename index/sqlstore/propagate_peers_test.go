package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestPropagationToPeersThatDiffer edits a string that seven peer
// components hold, each differently: two plain ones, one whose unit is
// read-only, one locked, one already holding the edit, one whose unit
// has two plural forms, one whose copy then fails a check (max-length).
// Propagation reads the units it edits together (readPeersForEdit) where
// it read each before editing it; what every peer ends with, its unit,
// check rows, changes and statistics, is what the one-by-one path left
// (the want below was written by session 11's tree, 6f4560b), and every
// counter equals a recount.
func TestPropagationToPeersThatDiffer(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	const target = "Neun Zeichen"
	de := []string{"en", "de"}
	at5 := func(fn func(iu *index.ImportUnit)) func(int, *index.ImportUnit) {
		return func(i int, iu *index.ImportUnit) {
			if i == 5 {
				fn(iu)
			}
		}
	}
	peers := []*writeFixture{
		f.twinWith(t, "plain1", 10, de, nil, nil),
		f.twinWith(t, "readonly", 10, de, nil, at5(func(iu *index.ImportUnit) {
			iu.Target, iu.State = []string{"fest"}, index.StateReadOnly
		})),
		f.twinWith(t, "locked", 10, de, nil, nil),
		f.twinWith(t, "equal", 10, de, nil, at5(func(iu *index.ImportUnit) {
			iu.Target, iu.State = []string{target}, index.StateTranslated
		})),
		f.twinWith(t, "plural", 10, de, nil, at5(func(iu *index.ImportUnit) {
			iu.Target, iu.State = []string{"eins", "zwei"}, index.StateTranslated
		})),
		f.twinWith(t, "failing", 10, de, func(c *index.Component) { c.CheckFlags = "max-length:5" }, nil),
		f.twinWith(t, "plain2", 10, de, nil, at5(func(iu *index.ImportUnit) {
			iu.Target, iu.State = []string{"alt"}, index.StateFuzzy
		})),
	}
	if _, err := f.db.SetComponentLock(ctx, peers[2].comp.ID, true, f.user); err != nil {
		t.Fatal(err)
	}
	var before int64 // the changes after it are the edit's
	if err := f.db.r.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM changes`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.UpdateUnit(ctx, f.unit(t, "de", 5).ID, f.user, setTarget(target)); err != nil {
		t.Fatal(err)
	}
	checkStoredStats(t, f.db)
	checkListCounts(t, f.db)
	var got strings.Builder
	for _, p := range append([]*writeFixture{f}, peers...) {
		var u index.Unit
		if p == f {
			u = f.unit(t, "de", 5)
		} else {
			u = p.unitOf(t, "de", 5)
		}
		fmt.Fprintf(&got, "%s: %q state %d pending %v failing %v\n", p.comp.Slug, u.Target, u.State, u.Pending,
			u.HasFailingCheck)
		eachRow(t, f.db, func(scan func(...any) error) error {
			var name string
			var dismissed int
			err := scan(&name, &dismissed)
			fmt.Fprintf(&got, "  check %s %d\n", name, dismissed)
			return err
		}, `SELECT name, dismissed FROM checks WHERE unit_id = ? ORDER BY name`, u.ID)
		eachRow(t, f.db, func(scan func(...any) error) error {
			var action int
			var onUnit, byUser bool
			var target, details string
			err := scan(&action, &onUnit, &byUser, &target, &details)
			fmt.Fprintf(&got, "  change %d unit %v user %v %q %s\n", action, onUnit, byUser, target, details)
			return err
		}, `SELECT action, coalesce(unit_id, 0) = ?, coalesce(user_id, 0) = ?, target, details
			FROM changes WHERE translation_id = ? AND id > ? ORDER BY id`, u.ID, f.user.UserID, p.tr["de"], before)
		s, err := readStats(ctx, f.db.r, "t", itoa(p.tr["de"]))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&got, "  stats translated %d fuzzy %d failing %d\n", s.Translated, s.Fuzzy, s.Failing)
	}
	// The edit's changes in the order recorded, by component.
	slugs := map[int64]string{}
	for _, p := range append([]*writeFixture{f}, peers...) {
		slugs[p.comp.ID] = p.comp.Slug
	}
	eachRow(t, f.db, func(scan func(...any) error) error {
		var comp int64
		var action int
		err := scan(&comp, &action)
		fmt.Fprintf(&got, "%s %d; ", slugs[comp], action)
		return err
	}, `SELECT coalesce(component_id, 0), action FROM changes WHERE id > ? ORDER BY id`, before)
	t.Logf("after the edit:\n%s", got.String())
	if want := propagationToPeersWant; got.String() != want {
		t.Errorf("after the edit:\n%s\nwant (the one-by-one path's):\n%s", got.String(), want)
	}
}

// propagationToPeersWant is what 6f4560b's propagation, a peer's unit
// read at a time, left on both engines.
const propagationToPeersWant = `app: ["Neun Zeichen"] state 20 pending true failing true
  check inconsistent 0
  change 5 unit true user true "Neun Zeichen" {"state":20,"old_state":0,"old":"","source":"Word number 5","context":"k5"}
  change 45 unit true user true "" 
  stats translated 6 fuzzy 0 failing 6
plain1: ["Neun Zeichen"] state 20 pending true failing true
  check inconsistent 0
  change 77 unit true user true "Neun Zeichen" {"state":20,"old_state":0,"old":"","source":"Word number 5","context":"k5"}
  change 45 unit true user true "" 
  stats translated 1 fuzzy 0 failing 6
readonly: ["fest"] state 100 pending false failing false
  stats translated 1 fuzzy 0 failing 5
locked: [""] state 0 pending false failing true
  check inconsistent 0
  stats translated 0 fuzzy 0 failing 6
equal: ["Neun Zeichen"] state 20 pending false failing true
  check inconsistent 0
  stats translated 1 fuzzy 0 failing 6
plural: ["eins" "zwei"] state 20 pending false failing true
  check inconsistent 0
  stats translated 1 fuzzy 0 failing 6
failing: ["Neun Zeichen"] state 20 pending true failing true
  check inconsistent 0
  check max-length 0
  change 77 unit true user true "Neun Zeichen" {"state":20,"old_state":0,"old":"","source":"Word number 5","context":"k5"}
  change 45 unit true user true "" 
  stats translated 1 fuzzy 0 failing 6
plain2: ["Neun Zeichen"] state 20 pending true failing true
  check inconsistent 0
  change 77 unit true user true "Neun Zeichen" {"state":20,"old_state":10,"old":"alt","source":"Word number 5","context":"k5"}
  change 45 unit true user true "" 
  stats translated 1 fuzzy 0 failing 6
app 5; app 45; plain1 77; plain1 45; failing 77; failing 45; plain2 77; plain2 45; `

// eachRow calls row with the Scan of each row query reads from db.
func eachRow(t *testing.T, db *DB, row func(scan func(...any) error) error, query string, args ...any) {
	t.Helper()
	rows, err := db.r.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// twinWith is twinOf's ten strings in en and de, each de unit as unit
// makes it (its target empty otherwise) and the component as comp makes
// it before it is saved.
func (f *writeFixture) twinWith(tb testing.TB, slug string, comp func(*index.Component), unit func(i int, iu *index.ImportUnit)) *writeFixture {
	tb.Helper()
	ctx := context.Background()
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.AllowTranslationPropagation = f.comp.ProjectID, slug, slug, true
	if comp != nil {
		comp(&c)
	}
	c, _, err := f.db.SaveComponent(ctx, c)
	if err != nil {
		tb.Fatal(err)
	}
	t := &writeFixture{db: f.db, comp: c, tr: map[string]int64{}, user: f.user, clock: f.clock}
	for _, lang := range []string{"en", "de"} {
		imp := index.TranslationImport{ComponentID: c.ID, LanguageCode: lang, Filename: lang + ".po",
			Revision: "r", IsSource: lang == "en", SourceTranslationID: t.tr["en"]}
		for i := range 10 {
			src := []string{fmt.Sprintf("Word number %d", i)}
			iu := index.ImportUnit{Context: fmt.Sprintf("k%d", i), Source: src, Target: []string{""}}
			if lang == "en" {
				iu.Target, iu.State = src, index.StateReadOnly
			} else if unit != nil {
				unit(i, &iu)
			}
			imp.Units = append(imp.Units, iu)
		}
		res, err := f.db.ImportTranslation(ctx, imp)
		if err != nil {
			tb.Fatal(err)
		}
		t.tr[lang] = res.TranslationID
	}
	return t
}

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
	at5 := func(fn func(iu *index.ImportUnit)) func(int, *index.ImportUnit) {
		return func(i int, iu *index.ImportUnit) {
			if i == 5 {
				fn(iu)
			}
		}
	}
	peers := []*writeFixture{
		f.twinWith(t, "plain1", nil, nil),
		f.twinWith(t, "readonly", nil, at5(func(iu *index.ImportUnit) {
			iu.Target, iu.State = []string{"fest"}, index.StateReadOnly
		})),
		f.twinWith(t, "locked", nil, nil),
		f.twinWith(t, "equal", nil, at5(func(iu *index.ImportUnit) {
			iu.Target, iu.State = []string{target}, index.StateTranslated
		})),
		f.twinWith(t, "plural", nil, at5(func(iu *index.ImportUnit) {
			iu.Target, iu.State = []string{"eins", "zwei"}, index.StateTranslated
		})),
		f.twinWith(t, "failing", func(c *index.Component) { c.CheckFlags = "max-length:5" }, nil),
		f.twinWith(t, "plain2", nil, at5(func(iu *index.ImportUnit) {
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
		rows, err := f.db.r.QueryContext(ctx, `SELECT name, dismissed FROM checks WHERE unit_id = ? ORDER BY name`, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var name string
			var dismissed int
			if err := rows.Scan(&name, &dismissed); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&got, "  check %s %d\n", name, dismissed)
		}
		rows.Close()
		rows, err = f.db.r.QueryContext(ctx, `SELECT action, coalesce(unit_id, 0) = ?, coalesce(user_id, 0) = ?, target, details
			FROM changes WHERE translation_id = ? AND id > ? ORDER BY id`, u.ID, f.user.UserID, p.tr["de"], before)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var action int
			var onUnit, byUser bool
			var target, details string
			if err := rows.Scan(&action, &onUnit, &byUser, &target, &details); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&got, "  change %d unit %v user %v %q %s\n", action, onUnit, byUser, target, details)
		}
		rows.Close()
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
	rows, err := f.db.r.QueryContext(ctx, `SELECT coalesce(component_id, 0), action FROM changes WHERE id > ? ORDER BY id`, before)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var comp int64
		var action int
		if err := rows.Scan(&comp, &action); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&got, "%s %d; ", slugs[comp], action)
	}
	rows.Close()
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

package sqlstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// twin adds to f's project a bilingual component with f's ten strings
// (same sources and contexts: a monolingual "app" and a bilingual twin
// share them though their id_hashes differ), its translations de and fr
// empty, and returns it as a fixture of its own on the same index.
func (f *writeFixture) twin(tb testing.TB, slug string, allow bool) *writeFixture {
	tb.Helper()
	return f.twinOf(tb, slug, allow, 10, "en", "de", "fr")
}

// twinOf is twin with n strings and the languages langs, the source
// ("en") first.
func (f *writeFixture) twinOf(tb testing.TB, slug string, allow bool, n int, langs ...string) *writeFixture {
	tb.Helper()
	return f.twinWith(tb, slug, n, langs, func(c *index.Component) { c.AllowTranslationPropagation = allow }, nil)
}

// twinWith is twinOf with the component as comp makes it before it is
// saved (it allows propagation unless comp says otherwise) and each unit
// of a translation as unit makes it (its target empty otherwise); nil
// leaves either as it is.
func (f *writeFixture) twinWith(tb testing.TB, slug string, n int, langs []string, comp func(*index.Component),
	unit func(i int, iu *index.ImportUnit)) *writeFixture {
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
	for _, lang := range langs {
		imp := index.TranslationImport{ComponentID: c.ID, LanguageCode: lang, Filename: lang + ".po",
			Revision: "r", IsSource: lang == "en", SourceTranslationID: t.tr["en"]}
		for i := range n {
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

// unitOf is unit for a bilingual fixture (twin), whose id_hash is source
// and context.
func (f *writeFixture) unitOf(tb testing.TB, lang string, i int) index.Unit {
	tb.Helper()
	id, err := f.db.FindUnitIDByHash(context.Background(), f.tr[lang],
		index.IDHash(false, []string{fmt.Sprintf("Word number %d", i)}, fmt.Sprintf("k%d", i)))
	if err != nil {
		tb.Fatalf("%s k%d: %v", lang, i, err)
	}
	u, err := f.db.FindUnitByID(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return u
}

// translate saves target as translated into u through UpdateUnit, as
// f's user, and recounts every counter.
func (f *writeFixture) translate(t *testing.T, u index.Unit, target string) {
	t.Helper()
	if _, err := f.db.UpdateUnit(context.Background(), u.ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	checkStoredStats(t, f.db)
}

// TestPropagation: a string saved in a component that allows
// propagation reaches the same string (source and context) in the same
// language of the project's other components that allow it, in the same
// write, recorded as 77 by the same user, counters exact; not a
// component that does not allow it, not a locked one, not another
// language, and nothing from a component that does not allow it.
func TestPropagation(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	web := f.twin(t, "web", true)
	off := f.twin(t, "off", false)
	edit := func(_ *writeFixture, u index.Unit, target string) { f.translate(t, u, target) }
	count77 := func(unitID int64) int {
		t.Helper()
		var n int
		if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM changes WHERE unit_id = ? AND action = ?`,
			unitID, index.ActionPropagated).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	edit(f, f.unit(t, "de", 1), "Wort Nummer eins")
	got := web.unitOf(t, "de", 1)
	if got.Target[0] != "Wort Nummer eins" || got.State != index.StateTranslated || !got.Pending || count77(got.ID) != 1 {
		t.Errorf("web/de k1 = %q state %d pending %v, %d changes 77; want the propagated edit",
			got.Target, got.State, got.Pending, count77(got.ID))
	}
	if d := changeDetailsOf(t, f, got.ID, index.ActionPropagated); d == "" {
		t.Error("the propagated change has no details")
	}
	if u := off.unitOf(t, "de", 1); u.Target[0] != "" || count77(u.ID) != 0 {
		t.Errorf("off/de k1 = %q: propagated to a component that does not allow it", u.Target)
	}
	if u := web.unitOf(t, "fr", 1); u.Target[0] != "" {
		t.Errorf("web/fr k1 = %q: propagated to another language", u.Target)
	}

	// Both ways: web's edit reaches app.
	edit(web, web.unitOf(t, "de", 3), "Wort Nummer drei")
	if u := f.unit(t, "de", 3); u.Target[0] != "Wort Nummer drei" || count77(u.ID) != 1 {
		t.Errorf("app/de k3 = %q, want web's edit propagated", u.Target)
	}
	// Saving the same text again propagates nothing more.
	edit(f, f.unit(t, "de", 3), "Wort Nummer drei")
	if u := web.unitOf(t, "de", 3); count77(u.ID) != 0 {
		t.Errorf("web/de k3 has %d propagated changes, want none (its own edit)", count77(u.ID))
	}

	// A component that does not allow it sends nothing.
	edit(off, off.unitOf(t, "de", 5), "Fünf")
	if u := web.unitOf(t, "de", 5); u.Target[0] != "" {
		t.Errorf("web/de k5 = %q: propagated from a component that does not allow it", u.Target)
	}

	// A locked component receives nothing.
	if _, err := f.db.SetComponentLock(ctx, web.comp.ID, true, f.user); err != nil {
		t.Fatal(err)
	}
	edit(f, f.unit(t, "de", 7), "Sieben")
	if u := web.unitOf(t, "de", 7); u.Target[0] != "" {
		t.Errorf("web/de k7 = %q: propagated to a locked component", u.Target)
	}
}

// TestInconsistentCheck: the inconsistent check is stored on the units
// of a string whose translations differ between two components that
// allow propagation (one locked, so the edit does not reach it), and
// goes once they agree again, on both sides; counters exact.
func TestInconsistentCheck(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	web := f.twin(t, "web", true)
	has := func(u index.Unit) bool { t.Helper(); return hasCheck(t, f.db, u, "inconsistent") }
	edit := func(u index.Unit, target string) { f.translate(t, u, target) }
	// An import does not compute it (see inconsistent.go); web/de k1
	// is untranslated in both, which an edit of web's k0 settles.
	if has(web.unitOf(t, "de", 1)) {
		t.Error("web/de k1, untranslated in both: inconsistent")
	}
	edit(f.unit(t, "de", 2), "Zwei")
	if has(f.unit(t, "de", 2)) || has(web.unitOf(t, "de", 2)) {
		t.Error("k2 propagated, the same in both: still inconsistent")
	}

	if _, err := f.db.SetComponentLock(ctx, web.comp.ID, true, f.user); err != nil {
		t.Fatal(err)
	}
	edit(f.unit(t, "de", 4), "Vier")
	if !has(f.unit(t, "de", 4)) || !has(web.unitOf(t, "de", 4)) {
		t.Errorf("k4 edited in app only (web locked): inconsistent app %v, web %v",
			has(f.unit(t, "de", 4)), has(web.unitOf(t, "de", 4)))
	}
	if _, err := f.db.SetComponentLock(ctx, web.comp.ID, false, f.user); err != nil {
		t.Fatal(err)
	}
	edit(web.unitOf(t, "de", 4), "Vier")
	if has(f.unit(t, "de", 4)) || has(web.unitOf(t, "de", 4)) {
		t.Errorf("k4 the same in both again: inconsistent app %v, web %v",
			has(f.unit(t, "de", 4)), has(web.unitOf(t, "de", 4)))
	}
	if has(web.unitOf(t, "fr", 0)) {
		t.Error("web/fr k0, untranslated in both: inconsistent")
	}
}

// TestPropagationAfterNewComponent: the peers an edit propagates to are
// cached (cachedPeerIDs) while only edits commit; a component added
// since reaches the cache, so the next edit propagates to it.
func TestPropagationAfterNewComponent(t *testing.T) {
	f := mustWriteFixture(t)
	first := f.twin(t, "first", true)
	first.translate(t, first.unitOf(t, "de", 1), "Wort eins")
	k := peerKey{f.comp.ProjectID, "de"}
	all, _, ok := f.db.peers.get(k)
	if ids := all.except(first.comp.ID); !ok || len(ids) != 1 || ids[0] != f.tr["de"] {
		t.Fatalf("peers kept after an edit: %v, %v; want [%d]", ids, ok, f.tr["de"])
	}
	second := f.twin(t, "second", true)
	first.translate(t, first.unitOf(t, "de", 2), "Wort zwei")
	if u := second.unitOf(t, "de", 2); len(u.Target) != 1 || u.Target[0] != "Wort zwei" {
		t.Errorf("the component added after the first edit got %q, want the propagated target", u.Target)
	}
	if u := second.unitOf(t, "de", 1); u.Target[0] != "" {
		t.Errorf("an edit from before the component was added reached it: %q", u.Target)
	}
}

// TestPeerIDsOneLookupPerLanguage: the translations an edit's group
// settles (its own and its peers', each asking for its peers) are
// answered by one cached lookup of the project's language, not one per
// component: at 100x (18,400 translations) the per-component keys
// outgrew the cache and an edit reaching nine peers ran the peers' ids
// query 7.5 times (session 12's scale100-writes.tsv).
func TestPeerIDsOneLookupPerLanguage(t *testing.T) {
	f := mustWriteFixture(t)
	first := f.twin(t, "first", true)
	second := f.twin(t, "second", true)
	first.translate(t, first.unitOf(t, "de", 1), "Wort eins")
	if n, _ := f.db.peers.size(); n != 1 {
		t.Errorf("peer lookups cached after an edit reaching two peers: %d, want 1 (the project's German)", n)
	}
	if u := second.unitOf(t, "de", 1); u.Target[0] != "Wort eins" {
		t.Errorf("second: the edit did not reach the peer: %q", u.Target)
	}
	second.translate(t, second.unitOf(t, "fr", 2), "Mot deux")
	if n, _ := f.db.peers.size(); n != 2 {
		t.Errorf("peer lookups cached after an edit in another language: %d, want 2", n)
	}
	if u := first.unitOf(t, "fr", 2); u.Target[0] != "Mot deux" {
		t.Errorf("first: the French edit did not reach it: %q", u.Target)
	}
}

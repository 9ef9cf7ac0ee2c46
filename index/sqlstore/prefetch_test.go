package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// inOneBatch runs the edits in one batch of db's writer, in their order,
// and fails t unless they met there.
func inOneBatch(t *testing.T, db *DB, edits ...func() error) {
	t.Helper()
	for _, err := range inOneBatchErrs(t, db, edits...) {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestPrefetchedEdits runs, in one batch each, edits whose reads the
// batch's first round trip prefetched (prefetch.go) while an earlier
// edit of the batch changes what they read: each must decide on what
// the earlier one left, as it does in a batch of its own (and as on
// SQLite, which prefetches nothing). Edits in scopes apart take the
// prefetched reads (TestBatchRoundTrips counts them).
func TestPrefetchedEdits(t *testing.T) {
	rt := &roundTrips{}
	db, err := openFreshWith(t, Options{roundTrip: rt.record, Writers: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.trigrams.hold() // its statements are no edit's
	f := newWriteFixture(t, db)
	ctx := context.Background()
	peer := mustTestComponent(t, db, f.comp.ProjectID, "app2")
	peerTr := map[string]int64{}
	for _, lang := range []string{"en", "de"} {
		peerTr[lang] = importStrings(t, db, peer.ID, lang, peerTr["en"], 10, "Word number %d").TranslationID
	}
	peerUnit := func(i int) int64 {
		id, err := db.FindUnitIDByHash(ctx, peerTr["de"], index.IDHash(true, nil, fmt.Sprintf("k%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	var mu sync.Mutex
	seen := map[string]string{}
	edit := func(name string, id int64, target string) func() error {
		return func() error {
			_, err := db.UpdateUnit(ctx, id, f.user, func(u index.Unit, _ index.Translation) (index.UnitUpdate, error) {
				mu.Lock()
				seen[name] = index.JoinPlural(u.Target)
				seen[name+" source"] = index.JoinPlural(u.Source)
				mu.Unlock()
				return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
			})
			return err
		}
	}
	// A unit edited twice: the second edit decides on the first's target.
	// takes runs the edits in one batch and returns how many took their
	// prefetched reads.
	takes := func(edits ...func() error) uint64 {
		before := db.prefetchTaken.Load()
		inOneBatch(t, db, edits...)
		return db.prefetchTaken.Load() - before
	}
	pg := testengine.Engine() == testengine.Postgres
	one := f.unit(t, "de", 1).ID
	if n := takes(edit("first", one, "first"), edit("second", one, "second")); pg && n != 1 {
		t.Errorf("%d edits of one unit took their prefetched reads, want the first alone", n)
	}
	// An edit that propagates into the peer's unit, which the batch's
	// next edit edits: it decides on the propagated target.
	if n := takes(edit("propagating", f.unit(t, "de", 3).ID, "propagated"), edit("peer", peerUnit(3), "peer's own")); pg && n != 1 {
		t.Errorf("%d edits of a string and its peer took their prefetched reads, want the first alone", n)
	}
	// A template's source string edited, then its German: the German
	// decides on the new source (editTemplate moved it).
	if n := takes(edit("template", f.unit(t, "en", 2).ID, "Word number two"), edit("after template", f.unit(t, "de", 2).ID, "Wort zwei")); pg && n != 1 {
		t.Errorf("%d edits of a source string and its translation took their prefetched reads, want the first alone", n)
	}
	// A template's source string edited, then a string of another
	// component of the project in another language: the moved string
	// may leave or join the inconsistent check's groups there
	// (editTemplate, inconsistentLeft), so it reads afresh.
	if n := takes(edit("template 8", f.unit(t, "en", 8).ID, "Word number eight"), edit("peer after template", peerUnit(8), "acht")); pg && n != 1 {
		t.Errorf("%d edits of a source string and another component's string took their prefetched reads, want the first alone", n)
	}
	// Two translations of one component, no source among them: apart.
	if n := takes(edit("de 5", f.unit(t, "de", 5).ID, "fünf"), edit("fr 5", f.unit(t, "fr", 5).ID, "cinq")); pg && n != 2 {
		t.Errorf("%d of two edits of a component's two translations took their prefetched reads, want both", n)
	}
	// Edits apart: the fixture's German, then the peer's French, which
	// nothing of the first reaches (another component and language):
	// the second takes its prefetched read.
	frTr := importStrings(t, db, peer.ID, "fr", peerTr["en"], 10, "Word number %d").TranslationID
	frID, err := db.FindUnitIDByHash(ctx, frTr, index.IDHash(true, nil, "k4"))
	if err != nil {
		t.Fatal(err)
	}
	// Warm: the contributors rows, the translations and peers cached.
	frWarm, err := db.FindUnitIDByHash(ctx, frTr, index.IDHash(true, nil, "k6"))
	if err != nil {
		t.Fatal(err)
	}
	inOneBatch(t, db, edit("warm de", f.unit(t, "de", 6).ID, "sechs"), edit("warm fr", frWarm, "six"))
	deID := f.unit(t, "de", 4).ID
	var taken uint64
	apart := rt.during(func() { taken = takes(edit("de", deID, "vier"), edit("fr", frID, "quatre")) })
	if pg && taken != 2 {
		t.Errorf("%d of two edits apart took their prefetched reads, want both", taken)
	}
	want := map[string]string{"first": "", "second": "first", "propagating": "",
		"peer": "propagated", "de": "Wort Nummer 4", "fr": "", "after template source": "Word number two",
		"de 5": "", "fr 5": ""}
	for k, w := range want {
		if seen[k] != w {
			t.Errorf("edit %q decided on %q, want %q", k, seen[k], w)
		}
	}
	for id, w := range map[int64]string{one: "second", peerUnit(3): "peer's own", f.unit(t, "de", 3).ID: "peer's own", // propagated back
		frID: "quatre"} {
		if u, err := db.FindUnitByID(ctx, id); err != nil || index.JoinPlural(u.Target) != w {
			t.Errorf("unit %d reads %q, %v; want %q", id, u.Target, err, w)
		}
	}
	// The second edit's change records the first's target as its old.
	changes, _, err := db.FindChanges(ctx, index.ChangeFilter{UnitID: one, Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	var details []string
	for _, c := range changes {
		if c.Target == "second" {
			details = append(details, c.Details)
		}
	}
	if len(details) != 1 || !strings.Contains(details[0], `"first"`) {
		t.Errorf("the second edit's change has details %q, want the old target \"first\"", details)
	}
	checkStoredStats(t, db)
	if !pg {
		return
	}
	// The holding write's round trips end with its COMMIT; then the
	// batch, whose reads of both units travel with its BEGIN.
	if i := slices.Index(apart, "+ COMMIT"); i >= 0 {
		apart = apart[i+1:]
	}
	reads := 0
	for i, s := range apart {
		if i > 0 && !strings.HasPrefix(s, "+ ") {
			break // the first round trip ends
		}
		if strings.Contains(s, "coalesce(source_unit_id, id)") {
			reads++
		}
	}
	if len(apart) < 2 || apart[0] != "BATCH" || apart[1] != "+ BEGIN" || reads != 2 {
		t.Errorf("the batch's first round trip holds %d edits' reads, want 2 with BEGIN:\n%s", reads, strings.Join(apart, "\n"))
	}
}

// TestBatchApartRoundTrips counts the round trips of a batch of 8 edits
// in components apart (none propagating), whose reads all travel with
// the batch's BEGIN (prefetch.go), their same-target lookups too (each
// edit hints its target as the API's PATCH does: targetGuess): the
// batch's two round trips, each edit's statements riding with the
// next's and the last's with COMMIT (10 while each edit's lookups were
// a round trip of its own, with its statements; 18 while its reads
// were another, as the edits of one translation still are:
// TestBatchRoundTrips).
func TestBatchApartRoundTrips(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("round trips are PostgreSQL's")
	}
	db, rt, f := roundTripFixture(t)
	ctx := context.Background()
	const edits = 8
	ids := make([]int64, edits)
	for i := range ids {
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug, c.Template = f.comp.ProjectID, fmt.Sprint("apart", i), fmt.Sprint("apart", i), "en.json"
		c.AllowTranslationPropagation = false
		c, _, err := db.SaveComponent(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		en := importStrings(t, db, c.ID, "en", 0, 4, "Apart %d").TranslationID
		de := importStrings(t, db, c.ID, "de", en, 4, "Apart %d").TranslationID
		if ids[i], err = db.FindUnitIDByHash(ctx, de, index.IDHash(true, nil, "k1")); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids { // warm: the contributors rows, the translations cached
		if _, err := db.UpdateUnit(ctx, id, f.user, setTarget("warm")); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(i int) func() error {
		return func() error {
			target := fmt.Sprint("apart ", i)
			_, err := db.UpdateUnitExpecting(ctx, ids[i], f.user, []string{target}, setTarget(target))
			return err
		}
	}
	var all []func() error
	for i := range edits {
		all = append(all, edit(i))
	}
	taken, guessed := db.prefetchTaken.Load(), db.paths.guessTaken.Load()
	log := rt.during(func() { inOneBatch(t, db, all...) })
	if i := slices.Index(log, "+ COMMIT"); i >= 0 {
		log = log[i+1:] // the holding write's
	}
	n := countRoundTrips(log)
	t.Logf("%d edits apart in one batch: %d round trips:\n%s", edits, n, strings.Join(log, "\n"))
	if max := 2; n > max {
		t.Errorf("%d edits apart in a batch took %d round trips, want at most %d", edits, n, max)
	}
	// Their changes are written together, with COMMIT (pipeline.go:
	// Gathered changes): 8 INSERTs while each edit sent its own.
	inserts := 0
	for _, s := range log {
		if strings.Contains(s, "INSERT INTO changes") {
			inserts++
		}
	}
	if inserts != 1 {
		t.Errorf("%d edits apart in a batch sent %d change INSERTs, want 1", edits, inserts)
	}
	// The batch's fixed statements: a savepoint a write, none released
	// before the next's (runBatch: Pipelined savepoints; 7 RELEASEs
	// while each later write released the one before).
	if n, releases := countStatements(log, "SAVEPOINT write"), countStatements(log, "RELEASE write"); n != edits || releases != 0 {
		t.Errorf("%d edits apart in a batch sent %d savepoints and %d releases, want %d and 0", edits, n, releases, edits)
	}
	// Its locks in one call: the shared write lock and its settings
	// with the scopes' (lock_write_batch, migration 0129; two statements
	// before it).
	if n, alone := countStatements(log, "SELECT lock_write_batch("), countStatements(log, db.dialect.lockShared); n != 1 || alone != 0 {
		t.Errorf("%d edits apart in a batch locked in %d lock_write_batch calls and %d shared lock statements, want 1 and 0", edits, n, alone)
	}
	// The lists' fold rides with the user_activity upsert (foldListCounts).
	if alone, with := countStatements(log, "SELECT list_counts_fold()"), countStatements(log, "WITH f AS MATERIALIZED (SELECT list_counts_fold())"); alone != 0 || with != 1 {
		t.Errorf("%d edits apart in a batch folded the lists' counts in %d statements of their own and %d upserts of user_activity, want 0 and 1", edits, alone, with)
	}
	if got := db.prefetchTaken.Load() - taken; got != edits {
		t.Errorf("%d of %d edits apart took their prefetched reads", got, edits)
	}
	// Each edit's new target and the one it left (the warm-up's, all
	// translated): its settle's one lookup, answered ahead.
	if got := db.paths.guessTaken.Load() - guessed; got != edits {
		t.Errorf("%d of %d edits apart took their same-target lookups sent ahead", got, edits)
	}
	for i, id := range ids {
		if u, err := db.FindUnitByID(ctx, id); err != nil || index.JoinPlural(u.Target) != fmt.Sprint("apart ", i) {
			t.Errorf("unit %d reads %q, %v", i, u.Target, err)
		}
	}
	checkStoredStats(t, db)
}

// TestBatchFoldAloneRoundTrips: a batch that owes no user_activity sums
// when it closes (its edits automatic, credited to no author) has no
// upsert for the lists' fold to ride with: it sends list_counts_fold as
// a statement of its own, exactly once, and the lists' counts are
// stored (foldListCounts; TestBatchApartRoundTrips counts the fold in
// the upsert).
func TestBatchFoldAloneRoundTrips(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("round trips are PostgreSQL's")
	}
	db, rt, f := roundTripFixture(t)
	ctx := context.Background()
	ids := []int64{f.unit(t, "de", 1).ID, f.unit(t, "fr", 2).ID, f.unit(t, "de", 3).ID}
	for _, id := range ids { // warm: the statements, the translations cached
		if _, err := db.UpdateUnit(ctx, id, index.Actor{}, setTarget("warm")); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(id int64, target string) func() error {
		return func() error {
			_, err := db.UpdateUnit(ctx, id, index.Actor{}, setTarget(target))
			return err
		}
	}
	for _, c := range []struct {
		name  string
		edits []func() error
	}{
		{"one edit", []func() error{edit(ids[0], "alone")}},
		{"three edits", []func() error{edit(ids[0], "eins"), edit(ids[1], "deux"), edit(ids[2], "drei")}},
	} {
		log := rt.during(func() { inOneBatch(t, db, c.edits...) })
		if i := slices.Index(log, "+ COMMIT"); i >= 0 {
			log = log[i+1:] // the holding write's
		}
		if alone, with := countStatements(log, "SELECT list_counts_fold()"), countStatements(log, "WITH f AS MATERIALIZED (SELECT list_counts_fold())"); alone != 1 || with != 0 {
			t.Errorf("%s credited to no author folded the lists' counts in %d statements of their own and %d upserts of user_activity, want 1 and 0:\n%s",
				c.name, alone, with, strings.Join(log, "\n"))
		}
		if n := countStatements(log, "INSERT INTO user_activity"); n != 0 {
			t.Errorf("%s credited to no author upserted user_activity %d times", c.name, n)
		}
		checkStoredStats(t, db)
	}
	for i, want := range []string{"eins", "deux", "drei"} {
		if u, err := db.FindUnitByID(ctx, ids[i]); err != nil || index.JoinPlural(u.Target) != want {
			t.Errorf("unit %d reads %q, %v, want %q", i, u.Target, err, want)
		}
	}
}

// TestPrefetchedEditAfterGlossaryEdit: a glossary's edit settles again
// the project's translations of its language whose flags name
// check-glossary (their check rows included), so a later edit of the
// batch in such a translation must not take its prefetched read: it
// decides on the check rows the glossary's edit left, and the stored
// checks and counts stay what a batch of its own leaves.
func TestPrefetchedEditAfterGlossaryEdit(t *testing.T) {
	f := oneWriterFixture(t)
	f.db.trigrams.hold()
	_, gl := f.importComponent(t, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{
		"en": {{"apple", "apple", "apple"}},
		"de": {{"apple", "apple", "Apfel"}},
	})
	_, fr := f.importComponent(t, "fruit", func(c *index.Component) { c.CheckFlags = "check-glossary" }, map[string][][3]string{
		"en": {{"a", "I like an apple", "I like an apple"}},
		"de": {{"a", "I like an apple", "Ich mag einen Apfel"}},
	})
	if got := f.unitChecks(t, fr["de"], "a"); len(got) != 0 {
		t.Fatalf("with Apfel: %q", got)
	}
	ctx := context.Background()
	unit := func(tr int64, k string) int64 {
		id, err := f.db.FindUnitIDByHash(ctx, tr, index.IDHash(true, nil, k))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	edit := func(id int64, target string) func() error {
		return func() error {
			_, err := f.db.UpdateUnit(ctx, id, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
				return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
			})
			return err
		}
	}
	before := f.db.prefetchTaken.Load()
	// The glossary's term changes: the string now lacks it, and its own
	// edit in the same batch still lacks it.
	inOneBatch(t, f.db, edit(unit(gl["de"], "apple"), "Paradiesapfel"), edit(unit(fr["de"], "a"), "Ich mag einen Apfel sehr"))
	if n := f.db.prefetchTaken.Load() - before; testengine.Engine() == testengine.Postgres && n != 1 {
		t.Errorf("%d edits took their prefetched reads, want the glossary's alone", n)
	}
	if got := f.unitChecks(t, fr["de"], "a"); !slices.Equal(got, []string{"check_glossary"}) {
		t.Errorf("after the glossary's edit and its own: %q", got)
	}
	checkStoredStats(t, f.db)
}

package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// memoryPage reads pages of FindMemory as memory ids.
func memoryPage(db *DB, f index.MemoryFilter) func(index.Page) ([]int64, int, error) {
	return func(p index.Page) ([]int64, int, error) {
		es, total, err := db.FindMemory(context.Background(), f, p)
		ids := []int64{}
		for _, e := range es {
			ids = append(ids, e.ID)
		}
		return ids, total, err
	}
}

// memoryIDs is the truth of a memory list from plain scans: the imported
// entries imported says, then the units of non-source translations with
// a state of 10 or more and a target that units says (a condition on u,
// t and c), both in id order.
func memoryIDs(tb testing.TB, db *DB, imported, units string, args ...any) []int64 {
	tb.Helper()
	var out []int64
	for _, id := range mustIDList(tb, db.r, `SELECT m.id FROM memory m WHERE `+imported+` ORDER BY m.id`) {
		out = append(out, index.MemoryImportedID(id))
	}
	for _, id := range mustIDList(tb, db.r, `SELECT u.id FROM units u JOIN translations t ON t.id = u.translation_id
		JOIN components c ON c.id = t.component_id
		WHERE t.is_source = 0 AND u.state >= 10 AND u.target <> '' AND `+units+` ORDER BY u.id`, args...) {
		out = append(out, index.MemoryUnitID(id))
	}
	return out
}

// checkMemoryLists holds the memory lists to plain scans, each filter
// FindMemory keys and a source substring, and the counters to a
// recount; with more, the imported entries alone and source substrings
// with other filters, of fewer characters than a trigram, and with
// LIKE's wildcards.
func checkMemoryLists(t *testing.T, db *DB, other int64, more bool) {
	t.Helper()
	checkListCounts(t, db)
	problems, err := db.VerifyCounts(context.Background())
	if err != nil || len(problems) > 0 {
		t.Fatalf("VerifyCounts: %v %v", problems, err)
	}
	checkPages(t, "all entries", memoryIDs(t, db, "1 = 1", "1 = 1"), memoryPage(db, index.MemoryFilter{}))
	checkPages(t, "German entries", memoryIDs(t, db, "m.target_language = 'de'", "t.language_code = 'de'"),
		memoryPage(db, index.MemoryFilter{TargetLanguage: "de"}))
	checkPages(t, "entries of a project", memoryIDs(t, db, "m.project_id = "+itoa(other), "c.project_id = ?", other),
		memoryPage(db, index.MemoryFilter{ProjectID: other}))
	checkPages(t, "entries outside a hidden project",
		memoryIDs(t, db, "coalesce(m.project_id, 0) <> "+itoa(other), "c.project_id <> ?", other),
		memoryPage(db, index.MemoryFilter{Hidden: []int64{other}}))
	if more {
		checkPages(t, "imported entries site-wide, from English in German",
			memoryIDs(t, db, "m.project_id IS NULL AND m.source_language = 'en' AND m.target_language = 'de'",
				"c.project_id = 0"),
			memoryPage(db, index.MemoryFilter{SourceLanguage: "en", TargetLanguage: "de", Hidden: projectsBut(t, db, 0)}))
	}
	checkPages(t, "entries from English, in French",
		memoryIDs(t, db, "m.source_language = 'en' AND m.target_language = 'fr'", "c.source_language = 'en' AND t.language_code = 'fr'"),
		memoryPage(db, index.MemoryFilter{SourceLanguage: "en", TargetLanguage: "fr"}))
	// Each source substring read through the trigram candidates, by a
	// scan, and as the estimate chooses (memorySourceKinds); the
	// lighter checks between writes as the estimate chooses only, since
	// all three ways of every check made the test take minutes on
	// PostgreSQL.
	shares := []int{memoryCandidateShare}
	if more {
		shares = []int{0, 1 << 30, memoryCandidateShare}
	}
	defer func(share int) { memoryCandidateShare = share }(memoryCandidateShare)
	for _, share := range shares {
		memoryCandidateShare = share
		checkMemorySources(t, db, other, more)
	}
}

// checkMemorySources holds FindMemory's source substrings to plain scans
// (checkSourcePages).
func checkMemorySources(t *testing.T, db *DB, other int64, more bool) {
	t.Helper()
	checkSourcePages(t, "a source substring", memoryIDs(t, db, "lower(m.source) LIKE '%s 1%'", "lower(u.source) LIKE '%s 1%'"),
		memoryPage(db, index.MemoryFilter{Source: "S 1"}))
	if !more {
		return
	}
	checkSourcePages(t, "a source substring in German",
		memoryIDs(t, db, "lower(m.source) LIKE '%s 2%' AND m.target_language = 'de'",
			"lower(u.source) LIKE '%s 2%' AND t.language_code = 'de'"),
		memoryPage(db, index.MemoryFilter{Source: "s 2", TargetLanguage: "de"}))
	checkSourcePages(t, "a source substring of a project",
		memoryIDs(t, db, "lower(m.source) LIKE '%s 1%' AND m.project_id = "+itoa(other),
			"lower(u.source) LIKE '%s 1%' AND c.project_id = ?", other),
		memoryPage(db, index.MemoryFilter{Source: "s 1", ProjectID: other}))
	checkSourcePages(t, "a two-character source substring (no trigram)",
		memoryIDs(t, db, "lower(m.source) LIKE '%17%'", "lower(u.source) LIKE '%17%'"),
		memoryPage(db, index.MemoryFilter{Source: "17"}))
	checkSourcePages(t, "a source substring with LIKE's wildcards", memoryIDs(t, db, "1 = 0", "1 = 0"),
		memoryPage(db, index.MemoryFilter{Source: "1_%"}))
}

// checkSourcePages is checkPages for a memory list of a source
// substring, which FindMemory reads by count and OFFSET in each kind
// (memoryKind.read: no keyset, no list_counts buckets): at every page
// size, every page of a list of up to 12, else the pages where the read
// takes another turn (sourcePages). Every page up to 60 and 40 more
// spread over the list (checkPagesSpread), each a search and a count,
// were most of the memory page test's time (77 s of SQLite's, 348 s of
// PostgreSQL's at load 14-22) and took no other turn.
func checkSourcePages(t *testing.T, name string, want []int64, find func(index.Page) ([]int64, int, error)) {
	t.Helper()
	// The entries' kinds split the list: imported ones, then units.
	split := len(want)
	for i, id := range want {
		if _, imported := index.SplitMemoryID(id); !imported {
			split = i
			break
		}
	}
	checkPagesAt(t, name, want, find, func(size int) []int { return sourcePages(len(want), split, size) })
}

// sourcePages are the page numbers checkSourcePages reads of a list of
// n entries whose units begin at split, at size: all of them and the
// one past the end when there are up to 12; else the first two, the
// pages before, holding and after the kinds' split (one kind's read
// fills the page, or the units' begins there or within), a middle one,
// the last two and two past the end.
func sourcePages(n, split, size int) []int {
	last := lastPage(n, size)
	if last <= 12 {
		var pages []int
		for p := 1; p <= last+1; p++ {
			pages = append(pages, p)
		}
		return pages
	}
	at := split/size + 1 // the page holding the split's first unit
	pages := []int{1, 2, at - 1, at, at + 1, last / 2, last - 1, last, last + 1, last + 50}
	slices.Sort(pages)
	return slices.Compact(slices.DeleteFunc(pages, func(p int) bool { return p < 1 }))
}

// projectsBut returns the ids of every project but keep.
func projectsBut(t *testing.T, db *DB, keep int64) []int64 {
	t.Helper()
	return mustIDList(t, db.r, `SELECT id FROM projects WHERE id <> ? ORDER BY id`, keep)
}

// importMemoryEntries imports n entries of project (0 site-wide) from
// English, numbered from first, their target languages in turn from
// langs.
func importMemoryEntries(t *testing.T, db *DB, project int64, first, n int, langs ...string) {
	t.Helper()
	var es []index.MemoryImportEntry
	for i := first; i < first+n; i++ {
		es = append(es, index.MemoryImportEntry{SourceLanguage: "en", TargetLanguage: langs[i%len(langs)],
			Source: fmt.Sprintf("S %d imported %d", i, project), Target: "T"})
	}
	if got, err := db.ImportMemory(context.Background(), project, 0, es); err != nil || got != n {
		t.Fatalf("ImportMemory: %d of %d, %v", got, n, err)
	}
}

// TestMemoryPagesMatchScans pages the memory list by key (migration
// 0063) after each kind of write that makes a unit an entry or not:
// imports that add, update and remove, edits that translate, clear and
// mark strings, a unit inserted and changed by one write, removals by
// cascade; with imported entries before the units, and lists that cross
// list_counts' buckets with empty ones between.
func TestMemoryPagesMatchScans(t *testing.T) {
	e := mustPagingEnv(t)
	ctx := context.Background()
	db := e.db
	p2 := e.mustOtherProject(t)
	if _, err := db.ImportMemory(ctx, 0, 0, []index.MemoryImportEntry{
		{SourceLanguage: "en", TargetLanguage: "de", Source: "S 1 imported", Target: "T"},
		{SourceLanguage: "en", TargetLanguage: "fr", Source: "S 2 imported", Target: "T"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ImportMemory(ctx, p2.ID, 0, []index.MemoryImportEntry{
		{SourceLanguage: "en", TargetLanguage: "de", Source: "S 3 imported", Target: "T"}}); err != nil {
		t.Fatal(err)
	}
	checkMemoryLists(t, db, p2.ID, false)

	// Imported entries across list_counts' buckets, of three memory
	// lists (migration 0071), some deleted one by one.
	importMemoryEntries(t, db, 0, 100, 1500, "de", "fr")
	importMemoryEntries(t, db, p2.ID, 100, 700, "de")
	for _, id := range mustIDList(t, db.r, `SELECT id FROM memory WHERE id % 9 = 4 AND id < 1800`) {
		if err := db.DeleteMemoryEntry(ctx, index.MemoryImportedID(id)); err != nil {
			t.Fatal(err)
		}
	}
	checkMemoryLists(t, db, p2.ID, true)

	// Edits: clear, mark for edit (still an entry), translate again,
	// and raw updates of whole translations, as a bulk edit writes.
	de := mustIDList(t, db.r, `SELECT id FROM units WHERE translation_id = ? ORDER BY id`, e.tr["app/de"])
	edit := func(id int64, target string, state index.State) {
		t.Helper()
		if _, err := db.UpdateUnit(ctx, id, index.Actor{}, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: state}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range de[:40] {
		switch i % 4 {
		case 0:
			edit(id, "", index.StateEmpty)
		case 1:
			edit(id, "fuzzy", index.StateFuzzy)
		case 2:
			edit(id, "", index.StateEmpty)
			edit(id, "again", index.StateTranslated)
		}
	}
	if err := db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`UPDATE units SET state = 0 WHERE translation_id = ? AND id % 7 = 0`, e.tr["app/fr"]); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE units SET target = '' WHERE translation_id = ? AND id % 5 = 0`, e.tr["lib/de"]); err != nil {
			return err
		}
		tx.touch(unitsDep(0))
		for _, tr := range []int64{e.tr["app/fr"], e.tr["lib/de"]} {
			ids, err := translationScope(tx, tr)
			if err != nil {
				return err
			}
			if err := refreshTranslationStats(tx, ids); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	checkMemoryLists(t, db, p2.ID, false)

	// One write inserts a string and changes it before the write counts
	// its insert (storeUnitCounts runs at the write's end); the next
	// removes it (raw writes: the statistics are left as they were).
	var fresh int64
	if err := db.write(ctx, func(tx *Tx) error {
		ins, err := newUnitInserter(tx)
		if err != nil {
			return err
		}
		fresh, err = ins.add(e.tr["app/de"], 9999, "fresh", "Fresh", "Frisch", int64(987654321), int64(987654321),
			"", "", "", "", index.StateTranslated, 1, 5, formatTime(tx.now), nil)
		if err != nil {
			return err
		}
		_, err = tx.Exec(`UPDATE units SET state = 0, target = '' WHERE id = ?`, fresh)
		tx.touch(unitsDep(0))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	checkListCounts(t, db)
	if err := db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`DELETE FROM units WHERE id = ?`, fresh)
		tx.touch(unitsDep(0))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	checkMemoryLists(t, db, p2.ID, false)

	// Imports into a later bucket, removals, and a whole component gone
	// by cascade.
	e.mustImport(t, e.app, "de", keys(500, 4200, 1, "d"))
	e.mustImport(t, e.lib, "de", keys(0, 900, 2, "e"))
	checkMemoryLists(t, db, p2.ID, false)
	if _, err := db.DeleteComponent(ctx, e.lib.ID, index.Actor{}); err != nil {
		t.Fatal(err)
	}
	checkMemoryLists(t, db, p2.ID, false)
	// A project's imported entries go with it (the cascade), after more
	// came to a later bucket.
	importMemoryEntries(t, db, p2.ID, 3000, 400, "de", "fr")
	importMemoryEntries(t, db, 0, 3000, 300, "fr")
	checkMemoryLists(t, db, p2.ID, true)
	if _, err := db.DeleteProject(ctx, p2.ID); err != nil {
		t.Fatal(err)
	}
	checkMemoryLists(t, db, p2.ID, true)
	if got := len(memoryIDs(t, db, "1 = 1", "1 = 0")); got < 1500 {
		t.Fatalf("%d imported entries: the lists prove little", got)
	}
	if got := len(memoryIDs(t, db, "1 = 1", "1 = 1")); got < 4000 {
		t.Fatalf("%d entries: the lists prove little", got)
	}
}

// BenchmarkMemoryPages measures the first and the deepest page of the
// memory list: 100,000 units that are entries beside 50,000 source
// strings, and 100,000 imported entries before them (benchImported); by
// key (migrations 0063 and 0071) and as the OFFSET reads and full counts
// they replaced; and source substrings that 22,222 of the units hold
// ("string number 4") and 22 ("number 4711"), as FindMemory chooses
// (memorySourceKinds), always through the trigram index's candidates,
// and as the scan they replaced:
//
//	go test ./index/sqlstore -run '^$' -bench MemoryPages -benchtime 20x -count 2
func BenchmarkMemoryPages(b *testing.B) {
	const size = 100
	ctx := context.Background()
	f := mustPagingFixture(b, 50_000, 0)
	var comp int64
	if err := f.db.r.QueryRowContext(ctx, `SELECT component_id FROM translations WHERE id = ?`, f.en).Scan(&comp); err != nil {
		b.Fatal(err)
	}
	for _, lang := range []string{"fr", "de"} {
		if _, err := f.db.ImportTranslation(ctx, index.TranslationImport{ComponentID: comp, LanguageCode: lang,
			Filename: lang + ".json", Revision: "all", Monolingual: true, Units: benchUnits("key", 0, 50_000, true)}); err != nil {
			b.Fatal(err)
		}
	}
	benchImported(b, f.db, 100_000)
	// The trigram index takes in the imported units (its background
	// step): until then every noted unit is a candidate.
	if _, err := f.db.IndexTrigrams(ctx); err != nil {
		b.Fatal(err)
	}
	snap, err := f.db.memorySnapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	// byScan is FindMemory as it was before the keyed lists: both kinds
	// counted in full, then read with OFFSET.
	byScan := func(mf index.MemoryFilter) func(p index.Page) ([]index.MemoryEntry, int, error) {
		iw, iargs := memoryWhere(mf, snap, memoryImportedFilter)
		uw, uargs := memoryWhere(mf, snap, memoryUnitFilter)
		return func(p index.Page) ([]index.MemoryEntry, int, error) {
			var ni, nu int
			if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM memory m WHERE `+iw, iargs...).Scan(&ni); err != nil {
				return nil, 0, err
			}
			if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) `+memoryUnitFrom+` WHERE `+uw, uargs...).Scan(&nu); err != nil {
				return nil, 0, err
			}
			var out []index.MemoryEntry
			if p.Offset() < ni {
				rows, err := f.db.r.QueryContext(ctx, `SELECT `+memoryColumns+` FROM memory m WHERE `+iw+
					` ORDER BY m.id LIMIT ? OFFSET ?`, withArgs(iargs, p.Size, p.Offset())...)
				if err != nil {
					return nil, 0, err
				}
				if err := scanMemoryRows(rows, snap, &out); err != nil {
					return nil, 0, err
				}
			}
			if rest := p.Size - len(out); rest > 0 {
				rows, err := f.db.r.QueryContext(ctx, `SELECT `+memoryUnitColumns+` `+memoryUnitFrom+` WHERE `+uw+
					` ORDER BY u.id LIMIT ? OFFSET ?`, withArgs(uargs, rest, max(0, p.Offset()-ni))...)
				if err != nil {
					return nil, 0, err
				}
				if err := scanMemoryUnits(rows, snap, &out); err != nil {
					return nil, 0, err
				}
			}
			return out, ni + nu, nil
		}
	}
	byKey := func(mf index.MemoryFilter) func(p index.Page) ([]index.MemoryEntry, int, error) {
		return func(p index.Page) ([]index.MemoryEntry, int, error) { return f.db.FindMemory(ctx, mf, p) }
	}
	// candidates is byKey always through the trigram candidates, as
	// before memorySourceKinds chose between them and the scan.
	candidates := func(mf index.MemoryFilter) func(p index.Page) ([]index.MemoryEntry, int, error) {
		return func(p index.Page) ([]index.MemoryEntry, int, error) {
			defer func(share int) { memoryCandidateShare = share }(memoryCandidateShare)
			memoryCandidateShare = 0
			return f.db.FindMemory(ctx, mf, p)
		}
	}
	all, sub := index.MemoryFilter{}, index.MemoryFilter{Source: "string number 4"}
	few := index.MemoryFilter{Source: "number 4711"}
	wantAll := memoryIDs(b, f.db, "1 = 1", "1 = 1")
	wantSub := memoryIDs(b, f.db, "lower(m.source) LIKE '%string number 4%'", "lower(u.source) LIKE '%string number 4%'")
	wantFew := memoryIDs(b, f.db, "lower(m.source) LIKE '%number 4711%'", "lower(u.source) LIKE '%number 4711%'")
	for _, c := range []struct {
		name string
		want []int64
		page func(index.Page) ([]index.MemoryEntry, int, error)
	}{{"key", wantAll, byKey(all)}, {"offset", wantAll, byScan(all)},
		{"source-chosen", wantSub, byKey(sub)}, {"source-trigram", wantSub, candidates(sub)},
		{"source-scan", wantSub, byScan(sub)},
		{"source-few-chosen", wantFew, byKey(few)}, {"source-few-trigram", wantFew, candidates(few)},
		{"source-few-scan", wantFew, byScan(few)}} {
		// The first page, one deep in the imported entries, the last.
		last := lastPage(len(c.want), size)
		for _, number := range slices.Compact([]int{1, min(500, last), last}) {
			b.Run(fmt.Sprintf("%s/page-%d", c.name, number), func(b *testing.B) {
				b.ReportAllocs()
				off := (number - 1) * size
				wantN := min(size, len(c.want)-off)
				for i := 0; i < b.N; i++ {
					got, total, err := c.page(index.Page{Number: number, Size: size})
					if err != nil {
						b.Fatal(err)
					}
					if total != len(c.want) || len(got) != wantN || got[0].ID != c.want[off] ||
						got[len(got)-1].ID != c.want[off+wantN-1] {
						b.Fatalf("page %d: %d entries (total %d), want %d from id %d (total %d)",
							number, len(got), total, wantN, c.want[off], len(c.want))
					}
				}
			})
		}
	}
}

// benchImported inserts n imported entries from English to German, site
// wide, in one statement: quicker than ImportMemory's statements of 500
// for a fixture known to hold no duplicates.
func benchImported(tb testing.TB, db *DB, n int) {
	tb.Helper()
	if err := db.write(context.Background(), func(tx *Tx) error {
		_, err := tx.Exec(`WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?)
			INSERT INTO memory (source_language, target_language, source, target, origin, timestamp)
			SELECT 'en', 'de', 'Imported text ' || i, 'Importierter Text ' || i, 'bench.tmx', '2026-01-02T03:04:05Z'
			FROM s`, n)
		return err
	}); err != nil {
		tb.Fatal(err)
	}
}

// TestMemoryListFollowsMovedUnits moves units to another translation
// with raw writes, as nothing in Tolk does today, and checks that the
// memory list's counts follow (on PostgreSQL a trigger of their own,
// migration 0110): a translated unit moved as it is, one moved and
// cleared by the same statement, and an empty one moved and translated
// by the same statement, where both of the list's triggers fire and only
// one may count.
func TestMemoryListFollowsMovedUnits(t *testing.T) {
	e := mustPagingEnv(t)
	ctx := context.Background()
	db := e.db
	ids := mustIDList(t, db.r, `SELECT id FROM units WHERE translation_id = ? AND state >= 10 AND target != ''
		ORDER BY id LIMIT 3`, e.tr["app/de"])
	if len(ids) < 3 {
		t.Fatalf("translated units of app/de: %v", ids)
	}
	raw := func(query string, args ...any) {
		t.Helper()
		if err := db.write(ctx, func(tx *Tx) error {
			tx.touch(unitsDep(0))
			_, err := tx.Exec(query, args...)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	raw(`UPDATE units SET target = '', state = 0 WHERE id = ?`, ids[2])
	checkListCounts(t, db)
	to := e.tr["app/fr"]
	raw(`UPDATE units SET translation_id = ? WHERE id = ?`, to, ids[0])
	checkListCounts(t, db)
	raw(`UPDATE units SET translation_id = ?, state = 0 WHERE id = ?`, to, ids[1])
	checkListCounts(t, db)
	raw(`UPDATE units SET translation_id = ?, target = 'moved', state = 20 WHERE id = ?`, to, ids[2])
	checkListCounts(t, db)
	var mu, want int
	if err := db.r.QueryRowContext(ctx, `SELECT coalesce(sum(n), 0) FROM list_counts WHERE list = 'mu' AND scope = ?`,
		to).Scan(&mu); err != nil {
		t.Fatal(err)
	}
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM units WHERE translation_id = ? AND state >= 10 AND target != ''`,
		to).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if mu != want || want == 0 {
		t.Errorf("app/fr's memory list counts %d units, %d are translated", mu, want)
	}
}

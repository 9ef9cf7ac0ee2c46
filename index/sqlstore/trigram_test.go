package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestRegexNeed checks the literals read from regular expressions: what
// every match must contain, and nothing a match may lack.
func TestRegexNeed(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{`^Play`, `("pla" AND "lay")`},
		{`[0-9]+ (files|Dateien)`, `(("fil" AND "ile" AND "les") OR ("dat" AND "ate" AND "tei" AND "eie" AND "ien"))`},
		{`Play.*list`, `(("pla" AND "lay") AND ("lis" AND "ist"))`},
		// ſ and s are one letter under (?i) but lower-case apart: the
		// literal stops at every s (ß and ẞ lower-case alike).
		{`(?i)STRASSE`, `("tra")`},
		{`(?i)ſtraße`, `("tra" AND "raß" AND "aße")`},
		{`STRASSE`, `("str" AND "tra" AND "ras" AND "ass" AND "sse")`},
		{`(?i)Kelvin`, `("kel" AND "elv" AND "lvi" AND "vin")`},
		{`a(?i:bc)d`, `("abc" AND "bcd")`},
		{`abc\x00def`, `(("abc") AND ("def"))`},
		{`x(abc)?y`, ``},
		{`(abc)+`, `("abc")`},
		{`(abc){2,}`, `("abc")`},
		{`(abc){0,3}`, ``},
		{`abc|de`, ``},
		{`.*`, ``},
		{`[a-z]{4}`, ``},
		{`ab`, ``},
		{`"quoted"`, `("""qu" AND "quo" AND "uot" AND "ote" AND "ted" AND "ed""")`},
	} {
		got := ""
		if need := regexPatternNeed(tc.pattern); need != nil {
			got = ftsMatch(need)
		}
		if got != tc.want {
			t.Errorf("%s: need %s, want %s", tc.pattern, got, tc.want)
		}
	}
	long := "the quick brown fox jumps over the lazy dog"
	if got := strings.Count(ftsMatch(literalNeed(long)), " AND ") + 1; got != maxNeedTrigrams {
		t.Errorf("a needle of %d characters asks for %d trigrams, want %d", len(long), got, maxNeedTrigrams)
	}
}

// trigramQueries are the searches TestTrigramSearch answers with and
// without the index.
var trigramQueries = []string{
	"word", "WORD", "Nummer", "ummer 1", "straße", "STRASSE", "istanbul", "İstanbul", "kelvin", "KELVIN",
	"ſtraſſe", `"word number"`, "key:k3", "key:=k3", "context:k1", `source:="Word number 2"`,
	`target:="Wort Nummer 4"`, "target:nummer", "source:number AND NOT target:nummer", "word OR wort",
	`source:r"^Word"`, `target:r"(?i)STRASSE"`, `target:r"(?i)ſtra"`, `target:r"(Wort|Straße) "`,
	`target:r"[0-9]+"`, `r"number [13579]"`, `target:r"K"`, `target:r"(?i)kelvin"`, "drei", "fünf", "ÜBER",
	"component:app nummer", "has:plural files", "zebrafisch", `target:r"Zebrafisch$"`,
	// The keys' own index (migration 0062): "word" is in every unit's
	// text and no key; the raw update below writes the key k1-STRASSE,
	// the import k10.
	"key:strasse", "key:STRASSE", "context:straße", `key:r"-STR"`, `key:r"(?i)^K1-s"`, "key:=k1-STRASSE",
	"key:word", "key:k10", "key:strasse OR target:zebrafisch",
	// A source unit's source changed while its translation units keep
	// theirs (migration 0089's links, below).
	"quokka", "key:quokka", `source:="Word number 4"`, `source:r"number 4$"`, "source:quokka", "target:quokka",
	"key:walross", "key:WALROSS OR target:zebrafisch", "walross", `key:r"-walross$"`,
}

// keyIndexed says which of trigramQueries the keys' index serves.
func keyIndexed(q string) bool {
	return strings.HasPrefix(q, "key:") && q != "key:k3" && q != "key:=k3" || strings.HasPrefix(q, "context:str")
}

// searchIDs returns the ids of the units cond selects, with the trigram
// index or (scan) without it.
func searchIDs(tb testing.TB, db *DB, q string, scan bool) []int64 {
	tb.Helper()
	parsed, err := index.ParseUnitQueryAt(q, searchNow)
	if err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	clauses, err := searchCompiler{postgres: db.dialect.name == "postgres", scan: scan}.node(parsed)
	if err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	cond := materialize(clauses)
	// A scoped search reads its translations' units on both engines, not
	// the site-wide candidates (narrowed).
	scoped := strings.HasPrefix(q, "component:")
	if scoped && strings.Contains(cond.sql, "trigram") {
		tb.Errorf("%s: a scoped search uses the site-wide trigram index: %s", q, cond.sql)
	}
	if !scan && !scoped && !strings.Contains(cond.sql, "trigram") && !strings.Contains(q, `r"[0-9]+"`) &&
		!strings.Contains(q, `r"K"`) && q != "key:k3" && q != "key:=k3" && q != "context:k1" {
		tb.Errorf("%s: the index is not used: %s", q, cond.sql)
	}
	if keyIndex := strings.Contains(cond.sql, "key_trigrams"); !scan && keyIndex != keyIndexed(q) {
		tb.Errorf("%s: the keys' index used: %v, want %v: %s", q, keyIndex, keyIndexed(q), cond.sql)
	}
	rows, err := db.r.QueryContext(context.Background(), db.dialect.rebind(`SELECT id FROM units WHERE `+cond.sql+` ORDER BY id`),
		db.dialect.args(cond.args)...)
	if err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// TestTrigramSearch checks that the trigram index never changes an
// answer: every search finds the same units with it as by reading every
// unit, after each kind of write that changes the units' text (an edit,
// an import that adds, changes and removes strings, raw updates, a
// component's removal), on both engines, with text whose case folds
// unevenly (ß, ſ, the Kelvin sign, İ). Each write is searched twice:
// right after it, while the units it changed are only noted for the
// index's upkeep (trigram_pending.go), and after the upkeep took them
// in, a few units per batch; the counts are exact at both.
func TestTrigramSearch(t *testing.T) {
	f := mustSearchFixture(t)
	ctx := context.Background()
	f.db.trigrams.hold()
	f.db.trigrams.batch = 7 // several batches per step
	found, shared := 0, 0
	agree := func(stage string) {
		t.Helper()
		for _, q := range trigramQueries {
			with, without := searchIDs(t, f.db, q, false), searchIDs(t, f.db, q, true)
			if !slices.Equal(with, without) {
				t.Errorf("%s: %s finds %v with the index, %v reading every unit", stage, q, with, without)
			}
			found += len(with)
		}
		shared += checkSharedSearch(t, f.db, stage)
		// The fixture's raw updates leave other counters as they are:
		// the trigram index's part of VerifyCounts.
		for _, p := range trigramProblems(t, f.db) {
			t.Errorf("%s: %s", stage, p)
		}
	}
	// step searches after a write (stage) before and after the upkeep.
	step := func(stage string) {
		t.Helper()
		if n := countTrigramNotes(t, f.db); n == 0 {
			t.Errorf("%s: no unit noted for the index", stage)
		}
		agree(stage + ", before the upkeep")
		if err := f.db.indexTrigrams(ctx, trigramAll); err != nil {
			t.Fatal(err)
		}
		agree(stage + ", after the upkeep")
		if n := countTrigramNotes(t, f.db); n != 0 {
			t.Errorf("%s: %d units still noted after the upkeep", stage, n)
		}
		var units, indexed int
		if err := f.db.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM units), (SELECT count(*) FROM unit_trigrams)`).
			Scan(&units, &indexed); err != nil {
			t.Fatal(err)
		}
		if indexed != units {
			t.Errorf("%s: %d units, %d rows in unit_trigrams", stage, units, indexed)
		}
	}
	if err := f.db.indexTrigrams(ctx, trigramAll); err != nil {
		t.Fatal(err)
	}
	agree("fixture")
	f.edit(t, 3, "İstanbul ſtraſſe KELVIN \u212a drei")
	f.edit(t, 5, "Straße fünf")
	step("edits")
	// Past maxIndexedText a unit is always a candidate, matched exactly.
	f.edit(t, 7, strings.Repeat("lang ", maxIndexedText/5)+"Zebrafisch")
	step("a long string")
	if got := searchIDs(t, f.db, "zebrafisch", false); !slices.Equal(got, []int64{f.unit(t, "de", 7).ID}) {
		t.Errorf("a word at the end of a long string: %v", got)
	}
	// On SQLite a change of the text alone notes that the key's row
	// stays (indexed 2, migration 0065), and a later change of the key
	// takes that back (1): else the key's row would keep k1.
	fr1 := f.unit(t, "fr", 1).ID
	if err := f.db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE units SET target = 'Numéro un' WHERE id = ?`, fr1)
		tx.touch(unitsDep(0))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if f.db.dialect.name == "sqlite" {
		if got := trigramNote(t, f.db, fr1); got != 2 {
			t.Errorf("a target's change noted %d, want 2 (the key's row stays)", got)
		}
	}
	if err := f.db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE units SET context = 'k1-STRASSE', source = 'Kelvin number' WHERE id = ?`, fr1)
		tx.touch(unitsDep(0))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	step("raw update")
	// A source string's trigrams are in its source unit's row only
	// (migration 0089): the translation units that hold the same source
	// are linked to it, and found through it.
	// SQLite links none (migration 0090).
	if n := trigramLinkCount(t, f.db); (n == 0) == (f.db.dialect.name == "postgres") {
		t.Errorf("%d units indexed without their source on %s", n, f.db.dialect.name)
	}
	// A key of every translation (k6-walross): the translation units'
	// key rows are empty, the key is found through the source unit's.
	if err := f.db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE units SET context = 'k6-walross' WHERE context = 'k6'`)
		tx.touch(unitsDep(0))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	step("a key changed in every translation")
	if got := searchIDs(t, f.db, "key:walross", false); len(got) != len(f.tr) {
		t.Errorf("key:walross finds %v, want the unit of each of %d translations", got, len(f.tr))
	}
	// A monolingual template's string changes before its translations
	// are imported again: they keep the old source, which the source
	// unit's row no longer holds once the step took it in. The step
	// notes them, and indexes them with their own source.
	en4 := f.unit(t, "en", 4).ID
	if err := f.db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE units SET source = 'Quokka vier', target = 'Quokka vier', context = 'k4-quokka' WHERE id = ?`, en4)
		tx.touch(unitsDep(0))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	step("a source unit's source changed")
	if got, want := searchIDs(t, f.db, `source:="Word number 4"`, false), []int64{f.unit(t, "de", 4).ID, f.unit(t, "fr", 4).ID}; !slices.Equal(got, want) {
		t.Errorf("the translations' old source after the template's change: %v, want %v", got, want)
	}
	// A re-import of German: k0 to k4 changed, k5 to k9 removed, k10 added.
	imp := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "de", Filename: "de.json", Revision: "r2",
		Monolingual: true, SourceTranslationID: f.tr["en"]}
	for i := range 5 {
		imp.Units = append(imp.Units, index.ImportUnit{Context: fmt.Sprintf("k%d", i), Source: []string{fmt.Sprintf("Word number %d", i)},
			Target: []string{fmt.Sprintf("Wörter ÜBER Straße %d", i)}, State: index.StateTranslated})
	}
	imp.Units = append(imp.Units, index.ImportUnit{Context: "k10", Source: []string{"Word number 10"},
		Target: []string{"Neue Kelvin-Zeile"}, State: index.StateTranslated})
	if _, err := f.db.ImportTranslation(ctx, imp); err != nil {
		t.Fatal(err)
	}
	step("import")
	// An edit of a unit already noted and then removed: the notes keep
	// what the index held when the first was made.
	f.edit(t, 2, "Zebrafisch zwei")
	if f.db.dialect.name == "sqlite" {
		// A removal after it takes the key's row too (the note goes to 1).
		if got := trigramNote(t, f.db, f.unit(t, "de", 2).ID); got != 2 {
			t.Errorf("an edit noted %d, want 2", got)
		}
	}
	if _, err := f.db.DeleteComponent(ctx, f.comp.ID, f.user); err != nil {
		t.Fatal(err)
	}
	step("component removed")
	// The check can fail: a note that says the index holds a row it
	// does not.
	if _, err := f.db.r.ExecContext(ctx, `INSERT INTO unit_trigrams_pending (unit_id, indexed) VALUES (987654, 1)`); err != nil {
		t.Fatal(err)
	}
	if p := trigramProblems(t, f.db); len(p) != 1 || !strings.Contains(p[0], "1 notes wrong") {
		t.Errorf("a wrong note: %q", p)
	}
	if found == 0 {
		t.Error("no search found anything: the comparison proves nothing")
	}
	if f.db.dialect.name == "postgres" && shared == 0 {
		t.Error("no search took the source units' path (sharedTextSearch)")
	}
}

// trigramProblems is what VerifyCounts finds wrong with the trigram
// index.
func trigramProblems(tb testing.TB, db *DB) []string {
	tb.Helper()
	v := &countVerifier{postgres: db.dialect.name == "postgres"}
	if err := v.trigrams(context.Background(), db.r); err != nil {
		tb.Fatal(err)
	}
	return v.problems
}

// trigramLinkCount is how many units the trigram index holds without
// their source, linked to a source unit's row (migration 0089).
func trigramLinkCount(tb testing.TB, db *DB) int {
	tb.Helper()
	q := `SELECT count(*) FROM unit_trigrams WHERE source_unit_id IS NOT NULL`
	if db.dialect.name != "postgres" {
		return 0 // SQLite links no unit (migration 0090)
	}
	var n int
	if err := db.r.QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// trigramNote is the note of unit id (unit_trigrams_pending.indexed),
// -1 when it has none.
func trigramNote(tb testing.TB, db *DB, id int64) int {
	tb.Helper()
	n := -1
	err := db.r.QueryRowContext(context.Background(), `SELECT indexed FROM unit_trigrams_pending WHERE unit_id = ?`, id).Scan(&n)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		tb.Fatal(err)
	}
	return n
}

// countTrigramNotes is how many units wait for the trigram index's
// upkeep.
func countTrigramNotes(tb testing.TB, db *DB) int {
	tb.Helper()
	var n int
	if err := db.r.QueryRowContext(context.Background(), `SELECT count(*) FROM unit_trigrams_pending`).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestTrigramNotesSurviveRestart checks that the units a write noted for
// the trigram index stay noted when the process ends before the upkeep
// ran (here Close, which leaves them as a crash does: they are rows of
// the write's own transaction), that searches are exact meanwhile, and
// that the next process's upkeep indexes them on its own.
func TestTrigramNotesSurviveRestart(t *testing.T) {
	ctx := context.Background()
	o, driver, dsn := reopenable(t)
	db, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	f := newWriteFixture(t, db)
	db.trigrams.hold()
	f.edit(t, 3, "Zebrafisch drei")
	f.edit(t, 4, "Quallen vier")
	noted := countTrigramNotes(t, db)
	if noted < 2 {
		t.Fatalf("%d units noted after two edits", noted)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	var left int
	err = raw.QueryRowContext(ctx, `SELECT count(*) FROM unit_trigrams_pending`).Scan(&left)
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if left != noted {
		t.Errorf("%d units noted before Close, %d after", noted, left)
	}

	db, err = Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"zebrafisch", "quallen", "target:r\"Qual+en\"", "word"} {
		if with, without := searchIDs(t, db, q, false), searchIDs(t, db, q, true); !slices.Equal(with, without) || len(with) == 0 {
			t.Errorf("after the restart: %s finds %v with the index, %v reading every unit", q, with, without)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for countTrigramNotes(t, db) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the upkeep did not index the notes left by the last process in 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	problems, err := db.VerifyCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	var units, indexed int
	if err := db.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM units), (SELECT count(*) FROM unit_trigrams)`).
		Scan(&units, &indexed); err != nil {
		t.Fatal(err)
	}
	if indexed != units {
		t.Errorf("%d units, %d rows in unit_trigrams", units, indexed)
	}
	if got := searchIDs(t, db, "zebrafisch", false); len(got) != 1 {
		t.Errorf("zebrafisch after the upkeep: %v", got)
	}
}

// TestTrigramCodesMatchPostgres checks that the codes the step writes
// (trigramCode, in Go) are those tolk_trigram_codes asks for (in SQL,
// migration 0077) for text of every width — ASCII, accents, CJK, an
// emoji beyond the BMP, the long-unit mark — and that ASCII trigrams
// keep codes of their own: a code two trigrams share would be a wider
// candidate list, never a missed unit, but ASCII text is most of it.
func TestTrigramCodesMatchPostgres(t *testing.T) {
	ctx := context.Background()
	dsn := testengine.PostgresDSN(t) // or skip
	db, err := Open(ctx, Options{Engine: Postgres, Location: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	for _, s := range []string{"play", "Straße İstanbul ſtraſſe \u212a", "日本語のテキスト", "emoji 🎉🎉x", longUnitMark,
		"\"quoted\" \\ back", "ab", "", "tab\tand\nnewline", "Ωμέγα ΣΊΣΥΦΟΣ", strings.Repeat("Größe x", 1500)} {
		var folded string
		var got []int64
		rows, err := db.r.QueryContext(ctx, `SELECT lower(?), unnest(tolk_trigram_codes(?))`, s, s)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c int64
			if err := rows.Scan(&folded, &c); err != nil {
				t.Fatal(err)
			}
			got = append(got, c)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if folded == "" {
			folded = strings.ToLower(s) // no trigram: no row
		}
		var want []int64
		for _, tri := range trigramsOf(folded) {
			if c := int64(trigramCode(tri)); !slices.Contains(want, c) {
				want = append(want, c)
			}
		}
		// The index step's one-walk literal holds trigramCode's codes of
		// the distinct trigrams, in order of first use.
		codes := make([]string, len(want))
		for i, c := range want {
			codes[i] = strconv.FormatInt(c, 10)
		}
		if lit, lwant := pgTrigramCodes(folded), "{"+strings.Join(codes, ",")+"}"; lit != lwant {
			t.Errorf("%q: array literal %s, want %s", s, lit, lwant)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: PostgreSQL's codes %v, Go's %v", s, got, want)
		}
	}
	// A needle of 10,000 characters (the API's bound) is cut in one
	// pass: substr at each position made it seconds.
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the codes of these texts took %s", took)
	}
	seen := map[int32]string{}
	for a := rune(1); a < 128; a += 3 {
		for b := rune(1); b < 128; b++ {
			for c := rune(1); c < 128; c += 5 {
				tri := string([]rune{a, b, c})
				code := trigramCode(tri)
				if other, ok := seen[code]; ok {
					t.Fatalf("ASCII trigrams %q and %q share code %d", other, tri, code)
				}
				seen[code] = tri
			}
		}
	}
}

package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// searchNow is the clock of the search tests: Wednesday 2026-11-25 15:30.
var searchNow = time.Date(2026, 11, 25, 15, 30, 0, 0, time.UTC)

// mustSearchFixture is the write fixture (en source, de, fr; keys k0 to
// k9; de's even keys translated) with what every field of the search
// language reads:
//
//	de k1: edited by ed on 2026-03-10, then by bo on 2026-11-22
//	de k3: edited by ed on 2026-11-20 to "Straße drei"; comment "Please fix the typo" by ed
//	de k4: a resolved comment "done"
//	de k5: note "Übersetzer: ÉTÉ", location src/main.go:12, suggestion "Vorschlag fünf" by ed
//	de k6: priority 50, a plural source
//	de k0: failing check end_stop; de k2: dismissed check same
//	de k8: approved and pending (as are k1 and k3, edited); de k9: needs editing (10)
//	fr k8: needs checking (12); fr k9: needs rewriting (11)
//	en k7: explanation "Shown on the HOME screen", extra flags, a global comment "Global question"
//	en k6: a resolved global comment; en k8: label ui-text; en k9: labels urgent and ui-text
//	fr k0: no source unit, label orphan
//
// Every other timestamp (units added, the import's changes) is
// 2026-01-01.
func mustSearchFixture(t *testing.T) *writeFixture {
	t.Helper()
	f := mustWriteFixture(t)
	ctx := context.Background()
	bo, err := f.db.SaveUser(ctx, index.User{Username: "bo", IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	ed := f.user
	// stamp dates the changes since the last stamp.
	var stamped int64
	stamp := func(ts string) {
		t.Helper()
		if err := f.db.write(ctx, func(tx *Tx) error {
			if _, err := tx.Exec(`UPDATE changes SET timestamp = ? WHERE id > ?`, ts, stamped); err != nil {
				return err
			}
			return tx.QueryRow(`SELECT max(id) FROM changes`).Scan(&stamped)
		}); err != nil {
			t.Fatal(err)
		}
	}
	stamp("2026-01-01T00:00:00.000000Z")
	f.edit(t, 1, "Wort Nummer eins")
	stamp("2026-03-10T12:00:00.000000Z")
	f.edit(t, 3, "Straße drei")
	stamp("2026-11-20T09:00:00.000000Z")
	f.user = index.UserActor(&bo)
	f.edit(t, 1, "Wort Nummer Eins")
	stamp("2026-11-22T08:00:00.000000Z")
	f.user = ed
	f.clock.Set(func() time.Time { return searchNow })

	id := func(lang string, i int) int64 { return f.unit(t, lang, i).ID }
	var edID int64
	if err := f.db.r.QueryRowContext(ctx, `SELECT id FROM users WHERE username = 'ed'`).Scan(&edID); err != nil {
		t.Fatal(err)
	}
	stmts := []struct {
		q    string
		args []any
	}{
		{`UPDATE units SET timestamp = '2026-01-01T00:00:00.000000Z'`, nil},
		{`INSERT INTO languages (code, name) VALUES ('de', 'German')`, nil},
		{`UPDATE units SET note = 'Übersetzer: ÉTÉ', location = 'src/main.go:12' WHERE id = ?`, []any{id("de", 5)}},
		{`UPDATE units SET priority = 50, source = ? WHERE id = ?`, []any{"One file" + index.PluralSeparator + "%d files", id("de", 6)}},
		{`UPDATE units SET explanation = 'Shown on the HOME screen', extra_flags = 'max-length:10' WHERE id = ?`, []any{id("en", 7)}},
		{`UPDATE units SET state = 30, pending = 1 WHERE id = ?`, []any{id("de", 8)}},
		{`UPDATE units SET state = 10 WHERE id = ?`, []any{id("de", 9)}},
		{`UPDATE units SET automatically_translated = 1 WHERE id = ?`, []any{id("de", 4)}},
		{`UPDATE units SET state = 12 WHERE id = ?`, []any{id("fr", 8)}},
		{`UPDATE units SET state = 11 WHERE id = ?`, []any{id("fr", 9)}},
		{`UPDATE units SET has_failing_check = 1 WHERE id = ?`, []any{id("de", 0)}},
		{`INSERT INTO checks (unit_id, name, dismissed) VALUES (?, 'end_stop', 0), (?, 'same', 1)`, []any{id("de", 0), id("de", 2)}},
		{`INSERT INTO suggestions (unit_id, target, user_id, timestamp) VALUES (?, 'Vorschlag fünf', ?, '2026-11-01T00:00:00.000000Z')`, []any{id("de", 5), edID}},
		{`INSERT INTO comments (unit_id, comment, user_id, timestamp, resolved) VALUES
			(?, 'Please fix the typo', ?, '2026-11-01T00:00:00.000000Z', 0),
			(?, 'done', NULL, '2026-11-01T00:00:00.000000Z', 1),
			(?, 'Global question', ?, '2026-11-01T00:00:00.000000Z', 0),
			(?, 'old', NULL, '2026-11-01T00:00:00.000000Z', 1)`, []any{id("de", 3), edID, id("de", 4), id("en", 7), edID, id("en", 6)}},
		{`INSERT INTO labels (project_id, name, color) VALUES (?, 'urgent', 'red'), (?, 'ui-text', 'blue'), (?, 'orphan', 'gray')`,
			[]any{f.comp.ProjectID, f.comp.ProjectID, f.comp.ProjectID}},
		// A unit without a source unit is its own.
		{`UPDATE units SET source_unit_id = NULL WHERE id = ?`, []any{id("fr", 0)}},
		{`INSERT INTO unit_labels (unit_id, label_id) SELECT ?, id FROM labels WHERE name = 'orphan'`, []any{id("fr", 0)}},
		{`INSERT INTO unit_labels (unit_id, label_id) SELECT ?, id FROM labels WHERE name = 'urgent'`, []any{id("en", 9)}},
		{`INSERT INTO unit_labels (unit_id, label_id) SELECT u.id, l.id FROM units u, labels l WHERE l.name = 'ui-text' AND u.id IN (?, ?)`, []any{id("en", 8), id("en", 9)}},
	}
	if err := f.db.write(ctx, func(tx *Tx) error {
		for _, s := range stmts {
			if _, err := tx.Exec(s.q, s.args...); err != nil {
				return fmt.Errorf("%s: %w", s.q, err)
			}
		}
		// The states set above, in the statistics rows too: a search of
		// one state term is counted from them (countByState).
		for lang, id := range f.tr {
			if err := refreshTranslationStats(tx, scopeIDs{translationID: id, componentID: f.comp.ID,
				projectID: f.comp.ProjectID, languageCode: lang}); err != nil {
				return err
			}
		}
		tx.touch(unitsDep(0))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return f
}

// searchAll returns "lang/key" for each unit of the index a query finds.
func (f *writeFixture) searchAll(tb testing.TB, q string) []string {
	tb.Helper()
	units, total, err := f.db.FindUnits(context.Background(), index.UnitFilter{Query: q, Page: index.Page{Number: 1, Size: 100}})
	if err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	langs := map[int64]string{}
	for l, id := range f.tr {
		langs[id] = l
	}
	var out []string
	for _, u := range units {
		out = append(out, langs[u.TranslationID]+"/"+u.Context)
	}
	if total != len(out) {
		tb.Errorf("%s: total %d, %d units", q, total, len(out))
	}
	return out
}

func searchKeys(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Fields(s)
}

// TestSearchFields runs every field of the language on the fixture and
// compares the units found, in the German translation.
func TestSearchFields(t *testing.T) {
	f := mustSearchFixture(t)
	all := "k0 k1 k2 k3 k4 k5 k6 k7 k8 k9"
	for _, tc := range []struct{ q, want string }{
		{"", all},
		// Bare words: source, target or context, any case; phrases.
		{"nummer", "k0 k1 k2 k4 k6 k8"},
		{"WORT nummer 2", "k2"},
		{`"Nummer Eins"`, "k1"},
		{"k3", "k3"},
		{"straße", "k3"},
		{"STRASSE", ""},
		{"STRAßE", "k3"},
		{`r"Nummer [02]$"`, "k0 k2"},
		// Text fields.
		{"target:eins", "k1"},
		{"source:files", "k6"},
		{"target:=Wort", ""},
		{`target:="Wort Nummer 2"`, "k2"},
		{`target:r"^Wort Nummer [0-4]$"`, "k0 k2 k4"},
		{`target:r"(?i)^wort nummer 4"`, "k4"},
		{`target:r"\bNummer\b 2" OR target:r"mer 4\z"`, "k2 k4"},
		{`target:r"Numm\B"`, "k0 k1 k2 k4 k6 k8"},
		{"context:k7 key:7", "k7"},
		{"note:übersetzer note:été", "k5"},
		{"location:main.go", "k5"},
		{"explanation:home", "k7"},
		{`explanation:r"HOME"`, "k7"},
		{"source:100%", ""},
		{"source:_", ""},
		// Comments, suggestions, their authors.
		{"comment:typo", "k3"},
		{"comment:done", ""},
		{"resolved_comment:done", "k4"},
		{"source_comment:global", "k7"},
		{"resolved_source_comment:old", "k6"},
		{"comment_author:ED", "k3"},
		{"source_comment_author:ed", "k7"},
		{"suggestion:vorschlag", "k5"},
		{"suggestion_author:ed", "k5"},
		{"suggestion_author:bo", ""},
		{`comment_author:r"^e"`, "k3"},
		{`changed_by:r"^(bo|x)$"`, "k1"},
		// Numbers and states.
		{"id:<0", ""},
		{"position:[3 to 5]", "k2 k3 k4"},
		{"priority:<100", "k6"},
		{"priority:100", "k0 k1 k2 k3 k4 k5 k7 k8 k9"},
		{"state:translated", "k0 k1 k2 k3 k4 k6"},
		{"state:>=translated", "k0 k1 k2 k3 k4 k6 k8"},
		{"state:<translated", "k5 k7 k9"},
		{"state:empty", "k5 k7"},
		{"state:approved", "k8"},
		{"state:needs-editing", "k9"},
		{"state:[needs-editing to translated]", "k0 k1 k2 k3 k4 k6 k9"},
		{"source_state:read-only", all},
		{"source_state:<translated", ""},
		{"pending:true", "k1 k3 k8"},
		{"labels_count:2", "k9"},
		{"labels_count:>=1", "k8 k9"},
		// is: and has:.
		{"is:translated", "k0 k1 k2 k3 k4 k6 k8"},
		{"is:untranslated", "k5 k7 k9"},
		{"is:approved", "k8"},
		{"is:fuzzy", "k9"},
		{"is:pending", "k1 k3 k8"},
		{"is:read-only", ""},
		{"is:empty", "k5 k7"},
		{"is:automatically-translated", "k4"},
		{"NOT is:automatically-translated is:translated", "k0 k1 k2 k3 k6 k8"},
		{"has:plural", "k6"},
		{"has:context", all},
		{"has:suggestion", "k5"},
		{"has:comment", "k3"},
		{"has:resolved-comment", "k4"},
		{"has:source-comment", "k7"},
		{"has:resolved-source-comment", "k6"},
		{"has:check", "k0"},
		{"has:dismissed-check", "k2"},
		{"has:translation", "k0 k1 k2 k3 k4 k6 k8"},
		{"has:flags", "k7"},
		{"has:explanation", "k7"},
		{"has:note", "k5"},
		{"has:location", "k5"},
		{"has:label", "k8 k9"},
		{"has:screenshot OR has:variant OR has:glossary", ""},
		{"check:end_stop", "k0"},
		{"check:end", "k0"},
		{"check:=end", ""},
		{"check:same", ""},
		{"dismissed_check:same", "k2"},
		// Labels, screenshots.
		{"label:urgent", "k9"},
		{"label:ui", "k8 k9"},
		{"label:=ui", ""},
		{"label:=UI-TEXT", "k8 k9"},
		{"screenshot:home", ""},
		// Scope fields.
		{"language:de project:p component:app", all},
		{"language:German", all},
		{"language:fr", ""},
		{"component:ap", all},
		{"component:=ap", ""},
		{"project:q", ""},
		{"path:p/app/de", all},
		{"path:p/-/de", all},
		{"path:p/app", all},
		{"path:p/app/fr", ""},
		{"path:nope", ""},
		// History: ANDed change terms hold for one change.
		{"changed_by:ed", "k1 k3"},
		{"changed_by:bo", "k1"},
		{"changed_by:ed changed:2026-03-10", "k1"},
		{"changed_by:ed AND changed:2026-11-22", ""},
		{"changed_by:bo changed:2026-11-22", "k1"},
		{"changed_by:ed OR changed:2026-11-22", "k1 k3"},
		{"(changed_by:ed OR changed_by:bo) AND changed:2026-11", "k1 k3"},
		{"(changed_by:ed OR changed_by:bo) AND changed:2026-11-22", "k1"},
		{"changed_by:ed NOT changed:2026-11", ""},
		{"changed_by:ed NOT changed:2026-11-20", "k1"},
		{"changed:2026-11", "k1 k3"},
		{"changed:>=2026-11-21", "k1"},
		{"changed:<2026-11-20", "k1"},
		{"changed:>=\"5 days ago\"", "k1 k3"},
		{"changed:yesterday", ""},
		{"changed:[10_days_ago to today]", "k1 k3"},
		{`change_action:"New translation" change_time:2026-03`, "k1"},
		{"change_action:translation-changed change_time:2026-03", ""},
		{"last_changed:>=2026-11-21", "k1"},
		{"last_changed:2026-11-20", "k3"},
		{"last_changed:<2026-02", "k0 k2 k4 k5 k6 k7 k8 k9"},
		{"source_changed:2026-01-01", all},
		{"added:<2000", ""},
		{"added:2026", all},
		// Booleans.
		{"k1 OR k2", "k1 k2"},
		{"NOT nummer", "k3 k5 k7 k9"},
		{"NOT (k1 OR k2) AND state:translated", "k0 k3 k4 k6"},
		{"(k1 OR k2) (k2 OR k3)", "k2"},
		// The reference's predefined queries (weblate/trans/filter.py).
		{"state:<translated AND NOT has:suggestion", "k7 k9"},
		{"has:check AND state:>=translated", "k0"},
		{"state:approved AND has:suggestion", ""},
		{"NOT has:label", "k0 k1 k2 k3 k4 k5 k6 k7"},
	} {
		if got := f.search(t, "de", tc.q); !slices.Equal(got, searchKeys(tc.want)) {
			t.Errorf("%s: got %v, want %v", tc.q, got, searchKeys(tc.want))
		}
	}
}

// TestSearchAllUnits: the strings a client generated from the
// reference's OpenAPI sends on /api/units/, and searches across
// translations.
func TestSearchAllUnits(t *testing.T) {
	f := mustSearchFixture(t)
	for _, tc := range []struct{ q, want string }{
		{"project:p component:app language:de state:<translated", "de/k5 de/k7 de/k9"},
		{"k3 project:p component:app language:de", "de/k3"},
		{"has:source-comment", "en/k7 de/k7 fr/k7"},
		{"label:urgent", "en/k9 de/k9 fr/k9"},
		{"label:orphan", "fr/k0"},
		{"has:label language:fr", "fr/k0 fr/k8 fr/k9"},
		{"labels_count:1 k0", "fr/k0"},
		{"NOT has:label k0", "en/k0 de/k0"},
		{"is:needs-editing", "de/k9 fr/k8 fr/k9"},
		{"state:needs-rewriting OR state:needs-checking", "fr/k8 fr/k9"},
		{"path:p/-/fr is:untranslated k1", "fr/k1"},
		{"language:fr NOT is:untranslated", ""},
		{"is:read-only k2", "en/k2"},
		{"(language:fr OR project:q) k1", "fr/k1"},
		{"language:fr language:de", ""},
		{"path:p/app/fr path:p/-/fr project:p k2", "fr/k2"},
		{`language:r"^(de|fr)$" k4`, "de/k4 fr/k4"},
	} {
		got := f.searchAll(t, tc.q)
		// Units are in id order: en, de, fr were imported in that order.
		if !slices.Equal(got, searchKeys(tc.want)) {
			t.Errorf("%s: got %v, want %v", tc.q, got, searchKeys(tc.want))
		}
	}
	// A hidden project's units stay hidden whatever the query.
	units, total, err := f.db.FindUnits(context.Background(), index.UnitFilter{Query: "k1 OR NOT k1",
		HiddenProjects: []int64{f.comp.ProjectID}, Page: index.Page{Number: 1, Size: 100}})
	if err != nil || total != 0 || len(units) != 0 {
		t.Errorf("hidden project: %d units, total %d, %v", len(units), total, err)
	}
}

// TestSearchErrors: a query the store cannot answer is a field error on
// q, never a failed statement.
func TestSearchErrors(t *testing.T) {
	f := mustSearchFixture(t)
	// 8 ORs of change terms ANDed with 9 more alternatives is 72 clauses.
	var parts []string
	for range 2 {
		var ors []string
		for i := range 9 {
			ors = append(ors, fmt.Sprintf("changed_by:u%d", i))
		}
		parts = append(parts, "("+strings.Join(ors, " OR ")+")")
	}
	// RE2 takes flags anywhere; PostgreSQL's engine only at the start.
	_, _, err := f.db.FindUnits(context.Background(), index.UnitFilter{Query: `target:r"Wort(?i)NUMMER"`,
		Page: index.Page{Number: 1, Size: 10}})
	var fe *index.FieldError
	if f.db.dialect.name == "postgres" {
		if !errors.As(err, &fe) || !strings.HasPrefix(fe.Fields["q"].Detail, "Could not parse query string: invalid regular expression (") {
			t.Errorf("(?i) inside a pattern on PostgreSQL: %v, want a field error on q", err)
		}
	} else if err != nil {
		t.Errorf("(?i) inside a pattern on SQLite: %v", err)
	}
	for q, want := range map[string]string{
		strings.Join(parts, " "): "Could not parse query string: Search query is too complex.",
		"source:[a to b]":        `Could not parse query string: a range is not supported for "source" at character 1.`,
	} {
		_, _, err := f.db.FindUnits(context.Background(), index.UnitFilter{TranslationID: f.tr["de"], Query: q,
			Page: index.Page{Number: 1, Size: 10}})
		var fe *index.FieldError
		if !errors.As(err, &fe) || fe.Fields["q"].Detail != want {
			t.Errorf("%s: %v, want %q", q, err, want)
		}
	}
}

// TestSearchFreshness: a search over comments, suggestions, labels or a
// source unit, or with a relative date, sees a write that touched no
// units of its translation; the others are kept in the page cache.
func TestSearchFreshness(t *testing.T) {
	for q, want := range map[string]bool{
		"state:translated":                   true,
		"changed:2026-11 k1 OR NOT is:fuzzy": true,
		"changed:[2019 to 2020-03-01]":       true,
		"comment:typo":                       false,
		"k1 OR (NOT has:label)":              false,
		"has:check NOT has:suggestion":       false,
		"source_state:translated":            false,
		"changed:>=yesterday":                false,
		`changed:[2019 to "2 days ago"]`:     false,
		"explanation:x":                      false,
		"NOT has:glossary":                   false,
	} {
		pq, err := index.ParseUnitQueryAt(q, searchNow)
		if err != nil {
			t.Fatal(err)
		}
		if got := cachedSearch(pq); got != want {
			t.Errorf("cachedSearch(%s) = %v, want %v", q, got, want)
		}
	}
	f := mustSearchFixture(t)
	if got := f.search(t, "de", "source_comment:typo"); got != nil {
		t.Fatalf("source_comment:typo = %v", got)
	}
	// A global comment on the source string, written as a narrow write
	// that touches the source translation's units only.
	if err := f.db.writeNarrow(context.Background(), func(tx *Tx) error {
		_, err := tx.Exec(`INSERT INTO comments (unit_id, comment, timestamp) VALUES (?, 'another typo', '2026-11-25T00:00:00.000000Z')`,
			f.unit(t, "en", 5).ID)
		tx.touch(unitsDep(f.tr["en"]))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := f.search(t, "de", "source_comment:typo"); !slices.Equal(got, []string{"k5"}) {
		t.Errorf("source_comment:typo after a new comment = %v, want [k5]", got)
	}
}

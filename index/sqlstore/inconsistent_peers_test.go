package sqlstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// TestInconsistentPeersMatchRecount: imports that create a language in
// one component after another of a project (the created translation's
// follow, followCreated, which reads no check rows), two created in one
// write, then imports that change targets of existing translations
// (the follow that reads them), each with targets drawn at random from
// a few, agreeing and disagreeing, translated and not: after every
// write the units holding an inconsistent row are exactly those a
// recount from every unit of the project says (checks.IsInconsistent
// over each string's group), and the counters are exact. A component
// not allowing propagation and a monolingual one (another id_hash kind)
// are among them (the latter in one run, left out of the other).
func TestInconsistentPeersMatchRecount(t *testing.T) {
	// app (monolingual) sharing its strings or not: the created
	// translations' lookup of distinct targets (sameTargets) asks peers
	// of one kind.
	// 80 strings: a lookup wants most of the peers, which are read whole
	// (peersMostlyWanted); 20: each (peer, string) is probed.
	for _, mixed := range []bool{false, true} {
		for _, strings := range []int{80, 20} {
			t.Run(fmt.Sprintf("mixed=%v/strings=%d", mixed, strings), func(t *testing.T) {
				testInconsistentPeers(t, mixed, strings)
			})
		}
	}
}

func testInconsistentPeers(t *testing.T, mixed bool, strings int) {
	f := mustWriteFixture(t) // app: monolingual, de and fr imported
	ctx := context.Background()
	if !mixed {
		if _, _, err := f.db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error {
			c.AllowTranslationPropagation = false
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(10, 31))
	// draw is a de import of c's strings, targets at random.
	draw := func(c *writeFixture, rev string) index.TranslationImport {
		imp := index.TranslationImport{ComponentID: c.comp.ID, LanguageCode: "de", Filename: "de.po",
			Revision: rev, SourceTranslationID: c.tr["en"]}
		for i := range strings {
			iu := index.ImportUnit{Context: fmt.Sprintf("k%d", i), Source: []string{fmt.Sprintf("Word number %d", i)},
				Target: []string{""}}
			if target := []string{"", "Eins", "Zwei"}[rng.IntN(3)]; target != "" {
				iu.Target = []string{target}
				iu.State = []index.State{index.StateFuzzy, index.StateTranslated, index.StateApproved}[rng.IntN(3)]
			}
			imp.Units = append(imp.Units, iu)
		}
		return imp
	}
	twin := func(slug string, allow bool) *writeFixture { return f.twinOf(t, slug, allow, strings, "en") }
	importAll := func(step string, imps ...index.TranslationImport) []index.ImportResult {
		t.Helper()
		res, err := f.db.ImportTranslations(ctx, imps)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return res
	}
	verify := func(step string) {
		t.Helper()
		want, got := recountInconsistent(t, f.db, f.comp.ProjectID)
		if !slices.Equal(want, got) {
			t.Errorf("%s: units with an inconsistent row %v; a recount says %v", step, got, want)
		}
		checkAllCounts(t, f.db)
	}

	var comps []*writeFixture
	for c := range 6 {
		w := twin(fmt.Sprintf("c%d", c), c != 3)
		res := importAll(fmt.Sprintf("c%d/de created", c), draw(w, "r1"))
		if !res[0].Created {
			t.Fatalf("c%d/de: %+v, want it created", c, res[0])
		}
		w.tr["de"] = res[0].TranslationID
		comps = append(comps, w)
		verify(fmt.Sprintf("c%d/de created", c))
	}
	// Two languages created in one write: each is in the other's group.
	a, b := twin("a", true), twin("b", true)
	importAll("a/de and b/de created in one write", draw(a, "r1"), draw(b, "r1"))
	verify("a/de and b/de created in one write")
	// Existing translations imported again with other targets, one
	// beside a created one.
	for _, c := range []int{1, 4, 0} {
		importAll(fmt.Sprintf("c%d/de updated", c), draw(comps[c], fmt.Sprintf("r2-%d", c)))
		verify(fmt.Sprintf("c%d/de updated", c))
	}
	last := twin("last", true)
	importAll("c2/de updated beside last/de created", draw(comps[2], "r3"), draw(last, "r1"))
	verify("c2/de updated beside last/de created")
}

// recountInconsistent returns the units of project's translations that
// should fail the inconsistent check, from every unit's string, target
// and state (the groups of inconsistent.go: the same source and context
// in one language in the components allowing propagation, glossaries
// and source translations aside; no flags in these fixtures), and
// those that hold its row, both in order.
func recountInconsistent(t *testing.T, db *DB, project int64) (want, got []int64) {
	t.Helper()
	type member struct {
		id         int64
		target     []string
		translated bool
		readOnly   bool
	}
	groups := map[[3]string][]member{}
	comps, err := db.FindComponents(context.Background(), project)
	if err != nil {
		t.Fatal(err)
	}
	shares := map[int64]bool{}
	for _, c := range comps {
		shares[c.ID] = c.AllowTranslationPropagation && !c.IsGlossary
	}
	err = db.write(context.Background(), func(tx *Tx) error {
		rows, err := tx.Query(`SELECT u.id, t.component_id, t.language_code, u.source, u.context, u.target, u.state
			FROM units u JOIN translations t ON t.id = u.translation_id JOIN components c ON c.id = t.component_id
			WHERE c.project_id = ? AND t.is_source = 0 ORDER BY u.id`, project)
		if err != nil {
			return err
		}
		for rows.Next() {
			var m member
			var component int64
			var lang, source, context, target string
			var state index.State
			if err := rows.Scan(&m.id, &component, &lang, &source, &context, &target, &state); err != nil {
				rows.Close()
				return err
			}
			if !shares[component] {
				continue
			}
			m.target, m.translated, m.readOnly = index.SplitPlural(target), state.Translated(), state == index.StateReadOnly
			k := [3]string{lang, source, context}
			groups[k] = append(groups[k], m)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		got, err = queryIDs(tx, `SELECT k.unit_id FROM checks k JOIN units u ON u.id = k.unit_id
			JOIN translations t ON t.id = u.translation_id JOIN components c ON c.id = t.component_id
			WHERE k.name = ? AND c.project_id = ? ORDER BY k.unit_id`, checks.Inconsistent, project)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		for j, m := range g {
			var others []checks.SameSource
			for l, o := range g {
				if l != j {
					others = append(others, checks.SameSource{Target: o.target, Translated: o.translated})
				}
			}
			if !m.readOnly && checks.IsInconsistent(m.target, m.translated, checks.Flags{}, others) {
				want = append(want, m.id)
			}
		}
	}
	slices.Sort(want)
	return want, got
}

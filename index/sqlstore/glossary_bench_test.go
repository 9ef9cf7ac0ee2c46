package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// mustBigGlossary is the app fixture with a glossary of 3,000 terms.
func mustBigGlossary(b *testing.B) *writeFixture {
	f := mustWriteFixture(b)
	var terms [][3]string
	for i := range 3000 {
		s := fmt.Sprintf("term %d of the glossary", i)
		terms = append(terms, [3]string{fmt.Sprint("t", i), s, s})
	}
	f.importComponent(b, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{"en": terms})
	return f
}

// BenchmarkGlossaryCompare times the step's comparison of the term
// lists (readGlossaryState) for a project of 3,000 terms: alone, as the
// step runs it now, and with every project's matcher built, as it did
// (session 7).
func BenchmarkGlossaryCompare(b *testing.B) {
	f := mustBigGlossary(b)
	query := func(q string, args ...any) (*sql.Rows, error) {
		return f.db.r.QueryContext(context.Background(), q, args...)
	}
	for _, matchers := range []bool{false, true} {
		b.Run(fmt.Sprintf("matchers=%v", matchers), func(b *testing.B) {
			for range b.N {
				current, _, err := readGlossaryState(query, nil)
				if err != nil || len(current) != 1 {
					b.Fatal(len(current), err)
				}
				if matchers {
					for _, g := range current {
						g.matcher = checks.NewGlossaryMatcher(g.terms)
					}
				}
			}
		})
	}
}

// BenchmarkSparseEditsCPU times this process's CPU per edit when edits
// come apart (a translator saving a string every so often: the writer
// pauses after each, and the trigram step runs), with a project
// glossary of 3,000 terms: the step's has:glossary upkeep compared
// every project's term list after each pause and built the edited
// unit's project's matcher for its batch (session 7); now it compares
// only after a write that may have moved a list (glossaryMoved), and
// the batch reuses the compared lists (glossaryWatch.lists).
//
//	go test ./index/sqlstore -run '^$' -bench SparseEditsCPU -benchtime 40x
func BenchmarkSparseEditsCPU(b *testing.B) {
	f := mustBigGlossary(b)
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	time.Sleep(2 * time.Second) // the import's upkeep
	b.ResetTimer()
	start := cpu()
	for i := range b.N {
		f.setTarget(b, "de", i%10, fmt.Sprintf("Wort %d", i))
		time.Sleep(150 * time.Millisecond) // past trigramQuiet: the step runs
	}
	b.ReportMetric(float64(cpu()-start)/float64(b.N)/1e3, "cpu-µs/edit")
}

// glossaryLayout is the 100× index's layout in small (BENCHMARKS,
// session 11): projects, each with glossary components and copies of
// one propagating component translated into de and fr, so that an edit
// writes its string's unit in every copy (propagation) and the
// glossaries' source translations are many among the write clock's
// stripes.
type glossaryLayout struct {
	db *DB
	// units are the translation units to edit: de and fr of every copy.
	units []int64
	// glossaries are the glossaries' source translations.
	glossaries []int64
	user       index.Actor
}

// mustGlossaryLayout builds projects projects of glossaries glossary
// components of terms terms each and copies copies of strings strings,
// after pad translations of a project of their own (which move every
// translation id, and so their stripes).
func mustGlossaryLayout(b testing.TB, pad, projects, glossaries, terms, copies, strings int) *glossaryLayout {
	b.Helper()
	db, err := openFreshWith(b, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ctx := context.Background()
	l := &glossaryLayout{db: db, user: mustWriter(b, db)}
	component := func(p int64, slug string, glossary bool) int64 {
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug, c.Template = p, slug, slug, "en.json"
		c.IsGlossary, c.AllowTranslationPropagation = glossary, !glossary
		c, _, err := db.SaveComponent(ctx, c)
		if err != nil {
			b.Fatal(err)
		}
		return c.ID
	}
	if pad > 0 {
		proj, _, err := db.SaveProject(ctx, index.Project{Name: "pad", Slug: "pad"})
		if err != nil {
			b.Fatal(err)
		}
		for k := range pad {
			importStrings(b, db, component(proj.ID, fmt.Sprint("pad-", k), false), "en", 0, 1, "pad %d")
		}
	}
	for p := range projects {
		proj, _, err := db.SaveProject(ctx, index.Project{Name: fmt.Sprint("P", p), Slug: fmt.Sprint("p", p)})
		if err != nil {
			b.Fatal(err)
		}
		for g := range glossaries {
			c := component(proj.ID, fmt.Sprint("glossary-", g), true)
			res := importStrings(b, db, c, "en", 0, terms, fmt.Sprintf("term %%d of glossary %d", g))
			l.glossaries = append(l.glossaries, res.TranslationID)
		}
		for k := range copies {
			c := component(proj.ID, fmt.Sprint("copy-", k), false)
			src := importStrings(b, db, c, "en", 0, strings, "String number %d").TranslationID
			for _, lang := range []string{"de", "fr"} {
				tr := importStrings(b, db, c, lang, src, strings, "String number %d").TranslationID
				ids, err := readIDs(func(q string, args ...any) (*sql.Rows, error) { return db.r.QueryContext(ctx, q, args...) },
					`SELECT id FROM units WHERE translation_id = ? ORDER BY id`, tr)
				if err != nil {
					b.Fatal(err)
				}
				l.units = append(l.units, ids...)
			}
		}
	}
	return l
}

// BenchmarkGlossaryWatch counts how often has:glossary's step compares
// the term lists (refreshGlossaryMatches) under edits on the 100×
// layout (glossaryLayout: 10 projects of 10 glossaries of 150 terms and
// 10 propagating copies), and what a comparison costs. Each iteration is
// an edit of a random translation unit, propagated to its copies, or
// every 100th a term added to a random glossary; after each, the step
// is done as it is when the writer pauses: compare when glossaryMoved.
// It reports comparisons per 1,000 edits (and of them, those after an
// edit that wrote no glossary: false trips), the projects each read,
// and the comparisons' wall time per 1,000 edits. Which stripes the
// glossaries' source translations land on decides how often an edit
// shares one: "stripe0" is the layout whose ids put a glossary on the
// stripe of unitsDep(0), which every edit touches; "apart" the same
// one translation id further, which puts none there (stripe0-glossaries
// says how many are).
//
//	go test ./index/sqlstore -run '^$' -bench GlossaryWatch -benchtime 1000x
func BenchmarkGlossaryWatch(b *testing.B) {
	for _, pad := range []int{0, 1} {
		b.Run(map[int]string{0: "stripe0", 1: "apart"}[pad], func(b *testing.B) { benchGlossaryWatch(b, pad) })
	}
}

func benchGlossaryWatch(b *testing.B, pad int) {
	l := mustGlossaryLayout(b, pad, 10, 10, 150, 10, 20)
	shared := 0
	for _, g := range l.glossaries {
		if unitsDep(g) == unitsDep(0) {
			shared++
		}
	}
	db, ctx := l.db, context.Background()
	db.trigrams.hold()
	if err := db.refreshGlossaryMatches(ctx, false); err != nil {
		b.Fatal(err)
	}
	w := &db.trigrams.glossary
	compared, read := w.compared.Load(), w.projectsRead.Load()
	rng := rand.New(rand.NewPCG(31, 12))
	var falseTrips int
	var took time.Duration
	b.ResetTimer()
	for i := range b.N {
		term := i%100 == 99
		if term {
			g := l.glossaries[rng.IntN(len(l.glossaries))]
			if _, err := db.AddUnit(ctx, g, l.user, func(index.Translation) (index.NewUnit, error) {
				return index.NewUnit{Context: fmt.Sprint("added-", i), Source: []string{fmt.Sprint("added term ", i)},
					Target: []string{fmt.Sprint("added term ", i)}, State: index.StateReadOnly}, nil
			}); err != nil {
				b.Fatal(err)
			}
		} else if _, err := db.UpdateUnit(ctx, l.units[rng.IntN(len(l.units))], l.user, setTarget(fmt.Sprint("edit ", i))); err != nil {
			b.Fatal(err)
		}
		if !db.glossaryMoved() {
			continue
		}
		if !term {
			falseTrips++
		}
		start := time.Now()
		if err := db.refreshGlossaryMatches(ctx, false); err != nil {
			b.Fatal(err)
		}
		took += time.Since(start)
	}
	b.StopTimer()
	n := w.compared.Load() - compared
	b.ReportMetric(float64(n)*1000/float64(b.N), "compares/1k-edits")
	b.ReportMetric(float64(falseTrips)*1000/float64(b.N), "false-trips/1k-edits")
	if n > 0 {
		b.ReportMetric(float64(w.projectsRead.Load()-read)/float64(n), "projects/compare")
	}
	b.ReportMetric(float64(took.Microseconds())/1e3*1000/float64(b.N), "compare-ms/1k-edits")
	b.ReportMetric(float64(shared), "stripe0-glossaries")
}

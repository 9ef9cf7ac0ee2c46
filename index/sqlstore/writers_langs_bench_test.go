package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// langsFixture is a component with a source and a translation per
// language of n strings, none translated: units[lang][i] is key k<i>'s.
type langsFixture struct {
	comp  index.Component
	trs   map[string]int64
	units map[string][]int64
}

func mustLangsFixture(t testing.TB, db *DB, project, slug string, propagate bool, langs []string, n int) langsFixture {
	t.Helper()
	ctx := context.Background()
	p, _, err := db.SaveProject(ctx, index.Project{Name: project, Slug: project})
	if err != nil {
		t.Fatal(err)
	}
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Template = p.ID, slug, slug, "en.json"
	c.AllowTranslationPropagation = propagate
	if c, _, err = db.SaveComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	f := langsFixture{comp: c, trs: map[string]int64{}, units: map[string][]int64{}}
	var source int64
	for _, lang := range append([]string{"en"}, langs...) {
		res := importStrings(t, db, c.ID, lang, source, n, "String %d")
		f.trs[lang] = res.TranslationID
		if lang == "en" {
			source = res.TranslationID
		}
		for i := range n {
			id, err := db.FindUnitIDByHash(ctx, res.TranslationID, index.IDHash(true, nil, fmt.Sprintf("k%d", i)))
			if err != nil {
				t.Fatal(err)
			}
			f.units[lang] = append(f.units[lang], id)
		}
	}
	return f
}

// BenchmarkWritersLangs is BenchmarkWriters's "one" with each of the 8
// editors translating its own language of one project's propagating
// component, as tolk-bench's editors spread over the corpus's
// translations, with one writer (BenchmarkWritersLangsTwo has two): the
// batches of several writers in one process (writers.go) lock different
// scopes. Besides edits/s, p50-ms and p99-ms
// it reports this process's CPU per edit (cpu-us/edit).
//
//	go test ./index/sqlstore -run '^$' -bench WritersLangs -benchtime 4000x
func BenchmarkWritersLangs(b *testing.B) { benchWritersLangs(b, Options{Writers: 1}) }

// benchWritersLangs is BenchmarkWritersLangs on an index opened with o.
func benchWritersLangs(b *testing.B, o Options) {
	db, err := openFreshWith(b, o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	actor := mustWriter(b, db)
	langs := []string{"de", "fr", "es", "it", "nl", "pl", "pt", "sv"}
	f := mustLangsFixture(b, db, "p", "app", true, langs, 100)
	var next sync.Mutex
	n := 0
	took := make([]time.Duration, b.N)
	cpu0 := processCPU()
	start := time.Now()
	var wg sync.WaitGroup
	for _, lang := range langs {
		wg.Go(func() {
			for {
				next.Lock()
				k := n
				n++
				next.Unlock()
				if k >= b.N {
					return
				}
				if units := f.units[lang]; !editTimed(b, db, actor, units[k%len(units)], k, took) {
					return
				}
			}
		})
	}
	wg.Wait()
	reportEdits(b, start, took)
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-us/edit")
}

// editTimed makes unit's edit number k and records how long it took in
// took[k]; false when it failed (reported).
func editTimed(b *testing.B, db *DB, actor index.Actor, unit int64, k int, took []time.Duration) bool {
	t0 := time.Now()
	if _, err := db.UpdateUnit(context.Background(), unit, actor, setTarget(fmt.Sprintf("edit %d", k))); err != nil {
		b.Error(err)
		return false
	}
	took[k] = time.Since(t0)
	return true
}

// reportEdits reports the edits/s since start and the p50 and p99 of
// took (sorted).
func reportEdits(b *testing.B, start time.Time, took []time.Duration) {
	b.ReportMetric(float64(len(took))/time.Since(start).Seconds(), "edits/s")
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}

// processCPU is this process's user and system CPU so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// importStrings imports n monolingual strings (keys k0..., sources
// format of the key's number) into component compID's translation into
// lang: the source's ("en") read-only, the others' empty.
func importStrings(t testing.TB, db *DB, compID int64, lang string, source int64, n int, format string) index.ImportResult {
	t.Helper()
	imp := index.TranslationImport{ComponentID: compID, LanguageCode: lang, Filename: lang + ".json",
		Revision: "r", Monolingual: true, IsSource: lang == "en", IsTemplate: lang == "en", SourceTranslationID: source}
	for i := range n {
		iu := index.ImportUnit{Context: fmt.Sprintf("k%d", i), Source: []string{fmt.Sprintf(format, i)}, Target: []string{""}}
		if lang == "en" {
			iu.Target, iu.State = iu.Source, index.StateReadOnly
		}
		imp.Units = append(imp.Units, iu)
	}
	res, err := db.ImportTranslation(context.Background(), imp)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

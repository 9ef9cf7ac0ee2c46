package sync_test

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
)

// BenchmarkImport measures importing the whole corpus (clone, parse,
// index): "full" into an empty index, "unchanged" a re-import that must
// skip every file by blob hash.
func BenchmarkImport(b *testing.B) {
	urls := map[string]string{
		"jellyfin": mustCorpusRepo(b, "jellyfin-web"),
		"kavita":   mustCorpusRepo(b, "kavita"),
		"slicer":   mustCorpusRepo(b, "tbx/slicer"),
	}
	comps := func() []index.Component {
		return []index.Component{
			jsonComponent("jellyfin", urls["jellyfin"], "src/strings/*.json", "src/strings/en-us.json", "en-us"),
			jsonComponent("kavita", urls["kavita"], "UI/Web/src/assets/langs/*.json", "UI/Web/src/assets/langs/en.json", "en"),
			tbxComponent("slicer", urls["slicer"], "glossary/*.tbx"),
		}
	}
	// Cancellable, as tolk serve's signal context is: the driver treats
	// such contexts differently.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec := func() []tolksync.ProjectSpec {
		return []tolksync.ProjectSpec{{Project: index.Project{Name: "Bench", Slug: "bench"}, Components: comps()}}
	}
	countUnits := func(e env) int {
		p, _ := e.db.FindProject(ctx, "bench")
		st, err := e.db.ProjectStats(ctx, p.ID)
		if err != nil {
			b.Fatal(err)
		}
		return st.Total
	}

	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		units := 0
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			e := mustEnv(b)
			b.StartTimer()
			if err := e.svc.Reconcile(ctx, spec()); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			units = countUnits(e)
			b.StartTimer()
		}
		// 206,276 + 63,953 JSON units plus the glossary.
		if units < 270229 {
			b.Fatalf("imported %d units", units)
		}
		b.ReportMetric(float64(units)*float64(b.N)/b.Elapsed().Seconds(), "units/s")
	})

	b.Run("unchanged", func(b *testing.B) {
		e := mustEnv(b)
		if err := e.svc.Reconcile(ctx, spec()); err != nil {
			b.Fatal(err)
		}
		p, _ := e.db.FindProject(ctx, "bench")
		saved, _ := e.db.FindComponents(ctx, p.ID)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for _, c := range saved {
				sum, err := e.svc.ImportComponent(ctx, c)
				if err != nil {
					b.Fatal(err)
				}
				if sum.Parsed != 0 {
					b.Fatalf("%s: parsed %d files of an unchanged repository", c.Slug, sum.Parsed)
				}
			}
		}
	})
}

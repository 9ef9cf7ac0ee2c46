package sync_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/vcs"
)

// BenchmarkSharedCommit is BenchmarkCommit on PostgreSQL, where each
// commit also records its head and the objects of its 105 commits in the
// transaction that forgets the edits ("commit"); "walk" is the listing
// of those objects in the checkout, and "record" their record alone,
// written again.
func BenchmarkSharedCommit(b *testing.B) {
	ctx := context.Background()
	e, _ := mustProcess(b, indextest.PostgresLocation(b))
	if err := e.db.SeedLanguages(ctx, langdata.Default().All()); err != nil {
		b.Fatal(err)
	}
	url := mustCorpusRepo(b, "jellyfin-web")
	comps := e.reconcile(b, jsonComponent("jellyfin", url, "src/strings/*.json", "src/strings/en-us.json", "en-us"))
	ge := gitBenchEnv{env: e, c: comps[0], user: mustUser(b, e.db, "ann", "Ann Example")}
	ge.edits(b, 1, -1)
	if _, err := ge.svc.Commit(ctx, ge.c, &ge.user); err != nil {
		b.Fatal(err)
	}
	round := 0
	var last string // the head before the last commit
	b.Run("commit", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			round++
			ge.edits(b, 20, round)
			before := recordedBytes(b, ge)
			h, _, err := ge.db.GitHead(ctx, ge.c.ID)
			if err != nil {
				b.Fatal(err)
			}
			last = h.Head
			b.StartTimer()
			ge.commitAll(b)
			b.StopTimer()
			b.ReportMetric(float64(recordedBytes(b, ge)-before), "recorded-B/op")
			b.StartTimer()
		}
	})
	repo, err := vcs.Open(filepath.Join(ge.dir, "repos", ge.c.Project.Slug, ge.c.Slug))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("walk", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := repo.LocalObjects(last); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("record", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			lc, err := repo.LocalObjects(last)
			if err != nil {
				b.Fatal(err)
			}
			h := index.GitHead{ComponentID: ge.c.ID, Head: lc.Head, Base: lc.Base, Replace: true,
				Objects: make([]index.GitObject, len(lc.Objects))}
			for i, o := range lc.Objects {
				h.Objects[i] = index.GitObject(o)
			}
			if err := ge.db.RecordGitHead(ctx, h); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(lc.Objects)), "objects/op")
		}
	})
}

// recordedBytes sums the objects the index records for the component.
func recordedBytes(b *testing.B, ge gitBenchEnv) int {
	b.Helper()
	objs, err := ge.db.GitObjects(context.Background(), ge.c.ID)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, o := range objs {
		n += len(o.Data)
	}
	return n
}

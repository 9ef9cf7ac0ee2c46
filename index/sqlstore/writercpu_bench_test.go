package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/internal/testengine"
	"github.com/tolk-project/tolk/internal/pgstat"
)

// BenchmarkWriterCPU measures what a unit edit costs on PostgreSQL when
// 8 editors write at once, so that the writer commits them in batches
// (group commit, writer.go), as issue 31's concurrency-8 target does:
// per edit, Tolk's CPU (getrusage, the editors included), the writer's
// server backend's CPU (/proc/<pid>/stat), the writer's round trips
// (each a wait of the single writer) and the batches it committed.
// BenchmarkEditCPU measures the same one edit at a time.
//
// When the server has pg_stat_statements (a cluster of one's own, with
// pg_stat_statements.track = all and track_planning = on, so that the
// triggers' statements and the planning count), the benchmark logs the
// statements that took the most of the server's time, per edit.
//
//	TOLK_TEST_ENGINE=postgres go test ./index/sqlstore -run '^$' -bench WriterCPU -benchtime 4000x -v
func BenchmarkWriterCPU(b *testing.B) {
	if testengine.Engine() != testengine.Postgres {
		b.Skip("the server backend's CPU is PostgreSQL's")
	}
	ctx := context.Background()
	// The round trips are counted (WriterStats), not recorded: a
	// recorder's copy of every statement's text was ≈ 16% of the bytes
	// the edits allocated, Tolk's CPU that no service spends.
	e := newEditBench(b)
	db := e.db
	e.load(b)
	pid := e.warmBackend(b)
	// The trigram index's step indexes what the warm-up noted, then
	// waits for the next write; it runs on the writer's backend too, as
	// it does in service.
	time.Sleep(100 * time.Millisecond)
	stats := pgStatements(b, db)
	stats.reset()
	const editors = 8
	b.ResetTimer()
	commits0 := db.commits.Load()
	server0, _ := backendCPU(pid)
	self0 := selfCPU()
	trips0 := db.roundTrips.Load()
	start := time.Now()
	{
		var wg sync.WaitGroup
		var mu sync.Mutex
		left := b.N
		for range editors {
			wg.Go(func() {
				for {
					mu.Lock()
					if left == 0 {
						mu.Unlock()
						return
					}
					left--
					mu.Unlock()
					e.edit(b)
				}
			})
		}
		wg.Wait()
	}
	took := time.Since(start)
	b.StopTimer()
	server1, err := backendCPU(pid)
	if err != nil {
		b.Fatal(err)
	}
	n := float64(b.N)
	b.ReportMetric(n/took.Seconds(), "edits/s")
	b.ReportMetric(float64((selfCPU()-self0).Microseconds())/n, "tolk-cpu-µs/edit")
	b.ReportMetric(float64((server1-server0).Microseconds())/n, "server-cpu-µs/edit")
	b.ReportMetric(float64(db.roundTrips.Load()-trips0)/n, "round-trips/edit")
	b.ReportMetric(n/float64(db.commits.Load()-commits0), "edits/batch")
	stats.report(b, b.N)
	problems, err := db.VerifyCounts(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range problems {
		b.Error(p)
	}
}

// pgStatementStats reads pg_stat_statements of the test's database
// (internal/pgstat) when the server has it.
type pgStatementStats struct {
	db *DB
	ok bool
}

func pgStatements(tb testing.TB, db *DB) pgStatementStats {
	if err := pgstat.Available(context.Background(), db.rdb); err != nil {
		tb.Log("no pg_stat_statements on this server: no statements logged")
		return pgStatementStats{db: db}
	}
	return pgStatementStats{db: db, ok: true}
}

func (s pgStatementStats) reset() {
	if s.ok {
		pgstat.Reset(context.Background(), s.db.rdb)
	}
}

// report logs the 30 statements that took the most of the server's
// time (planning and execution) since reset, per edit of n; a trigger's
// statements count in its own line and again in the statement that
// fired it.
func (s pgStatementStats) report(tb testing.TB, n int) {
	if !s.ok {
		return
	}
	stmts, err := pgstat.Statements(context.Background(), s.db.rdb)
	if err != nil {
		tb.Log(err)
		return
	}
	cost := func(st pgstat.Statement) float64 { return st.PlanMS + st.ExecMS }
	var total float64
	for _, st := range stmts {
		if st.TopLevel {
			total += cost(st)
		}
	}
	slices.SortFunc(stmts, func(a, b pgstat.Statement) int { return cmp.Compare(cost(b), cost(a)) })
	var out strings.Builder
	fmt.Fprintf(&out, "pg_stat_statements per edit (%d edits): %.1f µs planning and running the top-level statements; "+
		"calls, plans, plan µs, exec µs, statement ((in): run inside another)\n", n, total*1000/float64(n))
	for _, st := range stmts[:min(len(stmts), 30)] {
		q := strings.Join(strings.Fields(st.Query), " ")
		if !st.TopLevel {
			q = "(in) " + q
		}
		if len(q) > 150 {
			q = q[:150]
		}
		fmt.Fprintf(&out, "%6.2f %6.2f %7.1f %7.1f  %s\n", float64(st.Calls)/float64(n), float64(st.Plans)/float64(n),
			st.PlanMS*1000/float64(n), st.ExecMS*1000/float64(n), q)
	}
	tb.Log(out.String())
}

package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/internal/testengine"
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
	rt := &roundTrips{}
	e := newEditBenchWith(b, Options{roundTrip: rt.record})
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
	var log []string
	start := time.Now()
	log = rt.during(func() {
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
	})
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
	b.ReportMetric(float64(countRoundTrips(log))/n, "round-trips/edit")
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

// pgStatementStats reads pg_stat_statements when the server has it.
type pgStatementStats struct {
	db     *DB
	schema string // the extension's
	ok     bool
}

func pgStatements(tb testing.TB, db *DB) pgStatementStats {
	var schema string
	err := db.rdb.QueryRow(`SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
		WHERE e.extname = 'pg_stat_statements'`).Scan(&schema)
	if err != nil {
		tb.Log("no pg_stat_statements on this server: no statements logged")
	}
	return pgStatementStats{db: db, schema: schema, ok: err == nil}
}

func (s pgStatementStats) reset() {
	if s.ok {
		s.db.rdb.Exec(`SELECT ` + s.schema + `.pg_stat_statements_reset()`)
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
	var total float64
	if err := s.db.rdb.QueryRow(`SELECT coalesce(sum(total_plan_time + total_exec_time), 0)
		FROM ` + s.schema + `.pg_stat_statements WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`).
		Scan(&total); err != nil {
		tb.Log(err)
		return
	}
	rows, err := s.db.rdb.Query(`SELECT calls, total_plan_time, total_exec_time, plans,
		CASE WHEN toplevel THEN '' ELSE '  (in) ' END || query
		FROM ` + s.schema + `.pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		ORDER BY total_plan_time + total_exec_time DESC LIMIT 30`)
	if err != nil {
		tb.Log(err)
		return
	}
	defer rows.Close()
	var out strings.Builder
	fmt.Fprintf(&out, "pg_stat_statements per edit (%d edits): %.1f µs planning and running the top-level statements; "+
		"calls, plans, plan µs, exec µs, statement ((in): run inside another)\n", n, total*1000/float64(n))
	for rows.Next() {
		var calls, plans int64
		var plan, exec float64
		var q string
		if err := rows.Scan(&calls, &plan, &exec, &plans, &q); err != nil {
			tb.Log(err)
			return
		}
		q = strings.Join(strings.Fields(q), " ")
		if len(q) > 150 {
			q = q[:150]
		}
		fmt.Fprintf(&out, "%6.2f %6.2f %7.1f %7.1f  %s\n", float64(calls)/float64(n), float64(plans)/float64(n),
			plan*1000/float64(n), exec*1000/float64(n), q)
	}
	tb.Log(out.String())
}

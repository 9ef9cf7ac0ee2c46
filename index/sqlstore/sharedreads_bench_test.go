package sqlstore

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
	"github.com/tolk-project/tolk/internal/pgstat"
)

// BenchmarkSharedReads is what a cached page costs on PostgreSQL when
// 8 requests ask for it without pause, as wrk's 8 connections do
// (tolk-bench -only wrk): each read is a request of its own (its start
// marked), answered from the page cache once write_log is checked.
// It reports Tolk's CPU, the server's (every process of the cluster,
// when its socket directory is on this machine) and the write_log
// checks per read, and the statements the server ran per read
// (pg_stat_statements, when the server has it).
func BenchmarkSharedReads(b *testing.B) {
	if testengine.Engine() != testengine.Postgres {
		b.Skip("write_log is PostgreSQL's")
	}
	a, db, _ := twoWriters(b) // the fixture written by one process, read by the other
	benchCachedReads(b, db, newWriteFixture(b, a))
}

// BenchmarkSoloReads is BenchmarkSharedReads on a store alone on its
// database (lease.go): no write_log checks.
func BenchmarkSoloReads(b *testing.B) {
	db := openLeased(b, leaseDSN(b), 0)
	f := newWriteFixture(b, db)
	waitSolo(b, db, true, 10*time.Second)
	benchCachedReads(b, db, f)
}

// benchCachedReads measures 8 readers of f's first German page through
// db, each read a request of its own (BenchmarkSharedReads).
func benchCachedReads(b *testing.B, db *DB, f *writeFixture) {
	ctx := context.Background()
	page := index.UnitFilter{TranslationID: f.tr["de"], Page: index.Page{Number: 1, Size: 50}}
	read := func() {
		if _, _, err := db.FindUnits(index.WithRequestStart(ctx, time.Now()), page); err != nil {
			b.Fatal(err)
		}
	}
	for range 100 {
		read()
	}
	stats := pgStatements(b, db)
	stats.reset()
	const readers = 8
	b.ResetTimer()
	server0, serverOK := pgstat.ClusterCPU(testengine.PostgresDSN(b))
	self0, checks0 := selfCPU(), db.shared.checks.Load()
	start := time.Now()
	var wg sync.WaitGroup
	var left atomic.Int64 // reads not yet begun
	left.Store(int64(b.N))
	for range readers {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				read()
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(n/took.Seconds(), "reads/s")
	b.ReportMetric(float64((selfCPU()-self0).Microseconds())/n, "tolk-cpu-µs/read")
	if server1, ok := pgstat.ClusterCPU(testengine.PostgresDSN(b)); ok && serverOK {
		b.ReportMetric(float64((server1-server0).Microseconds())/n, "server-cpu-µs/read")
	}
	b.ReportMetric(float64(db.shared.checks.Load()-checks0)/n, "checks/read")
	stats.report(b, b.N)
}

// BenchmarkLogCheck is one write_log check alone (nothing to replay),
// serially: Tolk's CPU and the server's per check.
func BenchmarkLogCheck(b *testing.B) {
	if testengine.Engine() != testengine.Postgres {
		b.Skip("write_log is PostgreSQL's")
	}
	_, db, _ := twoWriters(b)
	for range 100 {
		db.check()
	}
	b.ResetTimer()
	server0, serverOK := pgstat.ClusterCPU(testengine.PostgresDSN(b))
	self0 := selfCPU()
	for range b.N {
		db.check()
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64((selfCPU()-self0).Nanoseconds())/n/1e3, "tolk-cpu-µs/check")
	if server1, ok := pgstat.ClusterCPU(testengine.PostgresDSN(b)); ok && serverOK {
		b.ReportMetric(float64((server1-server0).Nanoseconds())/n/1e3, "server-cpu-µs/check")
	}
}

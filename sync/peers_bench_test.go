package sync_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/internal/pgstat"
	tolksync "github.com/tolk-project/tolk/sync"
)

// BenchmarkImportPeers imports copies of one corpus component (kavita:
// 64k units in 31 translations) into one project, copy after copy:
// every copy shares every string with those before it, so copy k's
// import has k-1 peers for propagation and the inconsistent check
// (issue 31's 100x run: copies of a project slowed 3x from its first
// to its tenth). It logs each copy's wall time, this process's CPU and,
// on PostgreSQL at a local socket, the server's (every process of the
// cluster, from /proc), and reports the last copy's CPU over the first's.
//
//	go test ./sync -run '^$' -bench ImportPeers -benchtime 1x
func BenchmarkImportPeers(b *testing.B) {
	copies := 10
	if n, err := strconv.Atoi(os.Getenv("TOLK_PEERS_COPIES")); err == nil && n > 1 {
		copies = n
	}
	repo := mustCorpusRepo(b, "kavita")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 0; i < b.N; i++ {
		e := mustEnv(b)
		server := serverCPUFunc()
		var first, last float64
		for k := 1; k <= copies; k++ {
			slug := fmt.Sprintf("kavita-%02d", k)
			c := jsonComponent(slug, repo, "UI/Web/src/assets/langs/*.json", "UI/Web/src/assets/langs/en.json", "en")
			spec := tolksync.ProjectSpec{Project: index.Project{Name: "Peers", Slug: "peers"},
				Components: []index.Component{c}}
			stop := profileCopy(b, k, copies)
			start, cpu, srv := time.Now(), processCPU(b), server()
			if err := e.svc.Reconcile(ctx, []tolksync.ProjectSpec{spec}); err != nil {
				b.Fatal(err)
			}
			stop()
			wall, own, sv := time.Since(start), (processCPU(b) - cpu).Seconds(), server()-srv
			b.Logf("copy %2d (%d peers): %6.2f s wall, CPU %6.2f s Tolk + %6.2f s server", k, k-1,
				wall.Seconds(), own, sv)
			if k == 1 {
				first = own + sv
			}
			last = own + sv
		}
		b.ReportMetric(last/first, "last/first-CPU")
	}
}

// profileCopy starts a CPU profile of copy k's import into the folder
// TOLK_PEERS_PPROF names, if it does, for the second copy and the last
// (one peer against all of them); the function it returns stops it.
func profileCopy(b *testing.B, k, copies int) func() {
	dir := os.Getenv("TOLK_PEERS_PPROF")
	if dir == "" || (k != 2 && k != copies) {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("copy-%02d.cpu", k)))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// serverCPUFunc returns a function giving the CPU seconds of every
// process of the PostgreSQL server at TOLK_TEST_POSTGRES's socket
// directory (pgstat.ClusterCPU: the postmaster, its live children and
// those that ended), or 0 where that is not to be had (SQLite, a remote
// server).
func serverCPUFunc() func() float64 {
	none := func() float64 { return 0 }
	// The engine of this half of the run (testengine.Main runs both
	// when TOLK_TEST_ENGINE is unset), not the variable: a SQLite half
	// would count the PostgreSQL server's CPU too.
	if indextest.Engine() != "postgres" {
		return none
	}
	dsn := os.Getenv("TOLK_TEST_POSTGRES")
	if _, ok := pgstat.ClusterCPU(dsn); !ok {
		return none
	}
	return func() float64 {
		cpu, _ := pgstat.ClusterCPU(dsn)
		return cpu.Seconds()
	}
}

package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tolk-project/tolk/internal/pgstat"
)

// Where a PATCH's time goes at concurrency 8 (issue 31): with -pprof the
// writes section profiles one more point of PATCHes at concurrency 8
// (writes.cpu.pprof) and, on PostgreSQL, samples pg_stat_activity
// meanwhile: what the index's backends were doing (active in a
// statement, idle in a transaction waiting for Tolk, waiting for a lock)
// tells the server's share of a batch's time from Tolk's. A second point
// records the off-CPU side: a runtime trace (writes.trace: go tool trace)
// and the goroutines' blocking and mutex profiles, which cost too much
// to run beside the CPU profile's point.

// activitySampler samples pg_stat_activity's backends of the server's
// database but its own every interval until stop, counting each sample's
// state and wait event.
type activitySampler struct {
	mu      sync.Mutex
	counts  map[string]int
	samples int
	stop    chan struct{}
	done    chan struct{}
}

func (e *engine) sampleActivity(ctx context.Context, every time.Duration) *activitySampler {
	a := &activitySampler{counts: map[string]int{}, stop: make(chan struct{}), done: make(chan struct{})}
	if e.admin == nil {
		close(a.done)
		return a
	}
	go func() {
		defer close(a.done)
		conn, err := e.admin.Conn(ctx)
		if err != nil {
			return
		}
		defer conn.Close()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-a.stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			rows, err := conn.QueryContext(ctx, `SELECT coalesce(state, ''), coalesce(wait_event_type, ''), coalesce(wait_event, '')
				FROM pg_stat_activity WHERE datname = current_database() AND pid != pg_backend_pid() AND backend_type = 'client backend'`)
			if err != nil {
				return
			}
			a.mu.Lock()
			a.samples++
			for rows.Next() {
				var state, typ, ev string
				if rows.Scan(&state, &typ, &ev) == nil {
					key := state
					if typ != "" {
						key += " / " + typ + ":" + ev
					}
					a.counts[key]++
				}
			}
			a.mu.Unlock()
			rows.Close()
		}
	}()
	return a
}

// end stops the sampling and returns its counts as "state / wait: mean
// backends a sample", most first.
func (a *activitySampler) end() string {
	close(a.stop)
	<-a.done
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.samples == 0 {
		return "no samples"
	}
	keys := make([]string, 0, len(a.counts))
	for k := range a.counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return a.counts[keys[i]] > a.counts[keys[j]] })
	var b strings.Builder
	fmt.Fprintf(&b, "%d samples; backends a sample:", a.samples)
	for _, k := range keys {
		fmt.Fprintf(&b, " [%s] %.2f;", k, float64(a.counts[k])/float64(a.samples))
	}
	return b.String()
}

// profileWrites runs the two profiled points of PATCHes at concurrency
// 8 (see Where a PATCH's time goes) into cfg.PprofDir.
func profileWrites(ctx context.Context, cfg config, eng *engine, do op, logf func(string, ...any)) error {
	stop := cfg.startCPU("writes")
	eng.resetStatements(ctx)
	act := eng.sampleActivity(ctx, 5*time.Millisecond)
	c0, s0 := cpuSeconds(), eng.clusterCPU()
	st := measure(ctx, do, 8, cfg.Duration, 1<<30)
	p := writePoint{Concurrency: 8, Stats: st, CPU: cpuSeconds() - c0, ServerCPU: max(eng.clusterCPU()-s0, 0)}
	stop()
	logf("writes profile: PATCH at concurrency 8 (CPU profile): %.0f/s, p99 %s; %s; pg_stat_activity %s", st.RPS, st.P99,
		p.cpuLog(), act.end())
	if top := eng.topStatements(ctx, st.Requests); top != "" {
		logf("writes profile: the server's statements, µs a PATCH (calls a PATCH), most first:\n%s", top)
	}
	if st.Errors > 0 {
		return fmt.Errorf("writes profile: %d of %d requests failed", st.Errors, st.Requests)
	}

	tf, err := os.Create(filepath.Join(cfg.PprofDir, "writes.trace"))
	if err != nil {
		return err
	}
	defer tf.Close()
	runtime.SetBlockProfileRate(int(10 * time.Microsecond))
	runtime.SetMutexProfileFraction(10)
	defer runtime.SetBlockProfileRate(0)
	defer runtime.SetMutexProfileFraction(0)
	if err := trace.Start(tf); err != nil {
		return err
	}
	st = measure(ctx, do, 8, cfg.Duration, 1<<30)
	trace.Stop()
	for _, name := range []string{"block", "mutex"} {
		f, err := os.Create(filepath.Join(cfg.PprofDir, "writes."+name+".pprof"))
		if err != nil {
			return err
		}
		err = pprof.Lookup(name).WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	logf("writes profile: PATCH at concurrency 8 (traced): %.0f/s, p99 %s", st.RPS, st.P99)
	return nil
}

// resetStatements resets pg_stat_statements of the run's database where
// the server has it.
func (e *engine) resetStatements(ctx context.Context) {
	if e.admin != nil {
		pgstat.Reset(ctx, e.admin) // absent: nothing to reset
	}
}

// topStatements is pg_stat_statements' 25 costliest statements of the
// run's database since resetStatements, per request of n, "" where the
// server has none.
func (e *engine) topStatements(ctx context.Context, n int) string {
	if e.admin == nil || n == 0 {
		return ""
	}
	stmts, err := pgstat.Statements(ctx, e.admin)
	if err != nil {
		return ""
	}
	cost := func(s pgstat.Statement) float64 { return s.PlanMS + s.ExecMS }
	slices.SortFunc(stmts, func(a, b pgstat.Statement) int { return cmp.Compare(cost(b), cost(a)) })
	var b strings.Builder
	for _, s := range stmts[:min(len(stmts), 25)] {
		q := []rune(strings.Join(strings.Fields(s.Query), " "))
		in := ""
		if !s.TopLevel {
			in = "(in) "
		}
		fmt.Fprintf(&b, "  %7.1f µs (%.2f) %s%s\n", cost(s)*1000/float64(n), float64(s.Calls)/float64(n), in,
			string(q[:min(len(q), 110)]))
	}
	return b.String()
}

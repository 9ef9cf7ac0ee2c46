package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tolk-project/tolk/internal/pgstat"
)

// -pg-statements DIR (issue 31): which statements of the edits and of
// the uncached reads grow with the index. Around each of them in every
// scale step, tolk-bench snapshots PostgreSQL's pg_stat_statements
// (the extension must be loaded and created in the run's database; its
// track = all counts the statements of functions and triggers too) and
// writes the difference, the costliest first, to
// DIR/scaleN-PHASE.tsv: compare scale1 with scale10 per statement; the
// writes section's PATCHes at each level go to DIR/writes-cN.tsv, with
// each statement's calls and time a PATCH. The
// times are execution only (planning is not in them). The edits' file
// covers the edits alone, not the bench's setup before them (its user,
// its sample of units: at 100× a 27 s scan of every unit).

// stmtSnapshot is every statement of the run's database, by queryid.
func (e *engine) stmtSnapshot(ctx context.Context) (map[int64]pgstat.Statement, error) {
	stmts, err := pgstat.Statements(ctx, e.admin)
	if err != nil {
		return nil, fmt.Errorf("-pg-statements: %w", err)
	}
	out := map[int64]pgstat.Statement{}
	for _, s := range stmts {
		// The same queryid may be listed once per user and top level:
		// summed.
		t := out[s.QueryID]
		t.Query = s.Query
		t.Calls += s.Calls
		t.ExecMS += s.ExecMS
		t.Hit += s.Hit
		t.Read += s.Read
		t.Rows += s.Rows
		t.Dirtied += s.Dirtied
		out[s.QueryID] = t
	}
	return out, nil
}

// stmtWatch runs fn between two snapshots and writes their difference
// to DIR/name.tsv when -pg-statements DIR is given (and just runs fn
// otherwise).
func (cfg config) stmtWatch(ctx context.Context, e *engine, name string, fn func() error) error {
	if cfg.PGStatements == "" || !e.postgres() {
		return fn()
	}
	before, err := e.stmtSnapshot(ctx)
	if err != nil {
		return err
	}
	if err := fn(); err != nil {
		return err
	}
	after, err := e.stmtSnapshot(ctx)
	if err != nil {
		return err
	}
	diff := map[int64]pgstat.Statement{}
	addStmtDelta(diff, before, after)
	return cfg.writeStmts(name, diff, 0)
}

// addStmtDelta adds to sum what each statement of after did since
// before.
func addStmtDelta(sum, before, after map[int64]pgstat.Statement) {
	for id, a := range after {
		b := before[id]
		if a.Calls == b.Calls || strings.Contains(a.Query, "pg_stat_statements") {
			continue // the snapshots' own query is not the load's
		}
		t := sum[id]
		sum[id] = pgstat.Statement{Query: a.Query, Calls: t.Calls + a.Calls - b.Calls, ExecMS: t.ExecMS + a.ExecMS - b.ExecMS,
			Hit: t.Hit + a.Hit - b.Hit, Read: t.Read + a.Read - b.Read, Rows: t.Rows + a.Rows - b.Rows,
			Dirtied: t.Dirtied + a.Dirtied - b.Dirtied}
	}
}

// writeStmts writes the statements of diff, the costliest first, to
// DIR/name.tsv; with requests > 0 each also has its calls and
// microseconds a request (the writes section's PATCHes).
func (cfg config) writeStmts(name string, diff map[int64]pgstat.Statement, requests int) error {
	stmts := make([]pgstat.Statement, 0, len(diff))
	for _, d := range diff {
		stmts = append(stmts, d)
	}
	sort.Slice(stmts, func(i, j int) bool { return stmts[i].ExecMS > stmts[j].ExecMS })
	var b strings.Builder
	if requests > 0 {
		b.WriteString("calls_per_request\tus_per_request\t")
	}
	b.WriteString("total_ms\tcalls\tus_per_call\tblks_per_call\tread_per_call\trows_per_call\tdirtied_per_call\tquery\n")
	for _, d := range stmts {
		c := float64(d.Calls)
		if requests > 0 {
			fmt.Fprintf(&b, "%.3f\t%.1f\t", c/float64(requests), 1000*d.ExecMS/float64(requests))
		}
		q := strings.Join(strings.Fields(d.Query), " ")
		fmt.Fprintf(&b, "%.1f\t%d\t%.1f\t%.1f\t%.2f\t%.1f\t%.2f\t%s\n", d.ExecMS, d.Calls, 1000*d.ExecMS/c,
			float64(d.Hit+d.Read)/c, float64(d.Read)/c, float64(d.Rows)/c, float64(d.Dirtied)/c, q)
	}
	if err := os.MkdirAll(cfg.PGStatements, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(cfg.PGStatements, name+".tsv"), []byte(b.String()), 0o644)
}

// hotUpdates is the updates of the units tables of this process's
// schemas and how many of them were heap-only (pg_stat_user_tables'
// n_tup_upd, n_tup_hot_upd), once the server's counters hold them:
// each backend reports its counts when idle, at most hotStatsLag after
// its last statement (PostgreSQL 15: PGSTAT_IDLE_INTERVAL, 10 s), so
// the snapshot waits that long first. Issue 31: an edit's UPDATE of
// units is heap-only when no index names a column it changes
// (migration 0114).
func (e *engine) hotUpdates(ctx context.Context) (upd, hot int64, err error) {
	select {
	case <-ctx.Done():
		return 0, 0, ctx.Err()
	case <-time.After(hotStatsLag):
	}
	err = e.admin.QueryRowContext(ctx, `SELECT coalesce(sum(n_tup_upd), 0), coalesce(sum(n_tup_hot_upd), 0)
		FROM pg_stat_user_tables WHERE relname = 'units' AND schemaname LIKE $1`,
		fmt.Sprintf("tolk_bench_%d_%%", os.Getpid())).Scan(&upd, &hot)
	if err != nil {
		return 0, 0, fmt.Errorf("-pg-statements: heap-only updates: %w", err)
	}
	return upd, hot, nil
}

// hotStatsLag is how long an idle backend may keep its table counts
// before the server's views show them.
const hotStatsLag = 11 * time.Second

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tolk-project/tolk/internal/pgstat"
)

// -pg-statements DIR (issue 31): which statements of the edits and of
// the uncached reads grow with the index. Around each of them in every
// scale step, tolk-bench snapshots PostgreSQL's pg_stat_statements
// (the extension must be loaded and created in the run's database; its
// track = all counts the statements of functions and triggers too) and
// writes the difference, the costliest first, to
// DIR/scaleN-PHASE.tsv: compare scale1 with scale10 per statement. The
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
	var diff []pgstat.Statement
	for id, a := range after {
		b := before[id]
		d := pgstat.Statement{Query: a.Query, Calls: a.Calls - b.Calls, ExecMS: a.ExecMS - b.ExecMS, Hit: a.Hit - b.Hit,
			Read: a.Read - b.Read, Rows: a.Rows - b.Rows, Dirtied: a.Dirtied - b.Dirtied}
		if d.Calls > 0 {
			diff = append(diff, d)
		}
	}
	sort.Slice(diff, func(i, j int) bool { return diff[i].ExecMS > diff[j].ExecMS })
	var b strings.Builder
	b.WriteString("total_ms\tcalls\tus_per_call\tblks_per_call\tread_per_call\trows_per_call\tdirtied_per_call\tquery\n")
	for _, d := range diff {
		c := float64(d.Calls)
		q := strings.Join(strings.Fields(d.Query), " ")
		fmt.Fprintf(&b, "%.1f\t%d\t%.1f\t%.1f\t%.2f\t%.1f\t%.2f\t%s\n", d.ExecMS, d.Calls, 1000*d.ExecMS/c,
			float64(d.Hit+d.Read)/c, float64(d.Read)/c, float64(d.Rows)/c, float64(d.Dirtied)/c, q)
	}
	if err := os.MkdirAll(cfg.PGStatements, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(cfg.PGStatements, name+".tsv"), []byte(b.String()), 0o644)
}

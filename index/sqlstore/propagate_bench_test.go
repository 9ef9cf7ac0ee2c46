package sqlstore

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
	"github.com/tolk-project/tolk/internal/pgstat"
)

// BenchmarkPropagatedEdit measures one edit (UpdateUnit) in a project of
// components that allow translation propagation and share their strings:
// "propagating", nine components, each edit reaching the eight others;
// "propagating9", ten, as the 100× index's projects hold ten copies of
// each corpus component (issue 31); "locked", the eight others locked,
// so that the edit reads their units (propagation, then the inconsistent
// check) and writes none. On PostgreSQL it also reports the writer's
// round trips, Tolk's CPU (this process's, the loop's included) and the
// server's (every process of its cluster: a server of one's own) per
// edit, and logs pg_stat_statements' top statements when the server has
// it (set pg_stat_statements.track_planning for the planning's share).
// The trigram index's step is held, as in roundTripFixture.
//
//	go test ./index/sqlstore -run '^$' -bench PropagatedEdit -count 6
func BenchmarkPropagatedEdit(b *testing.B) {
	for _, c := range []struct {
		name   string
		peers  int
		locked bool
	}{{"propagating", 8, false}, {"propagating9", 9, false}, {"locked", 8, true}} {
		b.Run(c.name, func(b *testing.B) {
			var trips atomic.Int64
			f := mustWriteFixtureWith(b, Options{roundTrip: func(sql string) {
				if !strings.HasPrefix(sql, "+ ") {
					trips.Add(1)
				}
			}})
			// The trigram index's step is held: its background
			// statements are no edit's.
			f.db.trigrams.hold()
			ctx := context.Background()
			var twins []*writeFixture
			for i := range c.peers {
				tw := f.twin(b, "twin"+strconv.Itoa(i), true)
				if c.locked {
					if _, err := f.db.SetComponentLock(ctx, tw.comp.ID, true, f.user); err != nil {
						b.Fatal(err)
					}
				}
				twins = append(twins, tw)
			}
			units := make([]index.Unit, 10)
			for i := range units {
				units[i] = f.unit(b, "de", i)
			}
			n := 0
			edit := func() {
				n++
				target := "Wert " + strconv.Itoa(n)
				u := units[n%len(units)]
				if _, err := f.db.UpdateUnit(ctx, u.ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
					return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			for range 20 { // warm: statements prepared, caches, contributors
				edit()
			}
			postgres := testengine.Engine() == testengine.Postgres
			var stats pgStatementStats
			if postgres {
				stats = pgStatements(b, f.db)
				stats.reset()
			}
			b.ReportAllocs()
			b.ResetTimer()
			var server0 time.Duration
			var serverOK bool
			if postgres {
				server0, serverOK = pgstat.ClusterCPU(testengine.PostgresDSN(b))
			}
			self0, trips0 := selfCPU(), trips.Load()
			for range b.N {
				edit()
			}
			b.StopTimer()
			if postgres {
				nf := float64(b.N)
				b.ReportMetric(float64(trips.Load()-trips0)/nf, "round-trips/edit")
				b.ReportMetric(float64((selfCPU()-self0).Microseconds())/nf, "tolk-cpu-µs/edit")
				if server1, ok := pgstat.ClusterCPU(testengine.PostgresDSN(b)); ok && serverOK {
					b.ReportMetric(float64((server1-server0).Microseconds())/nf, "server-cpu-µs/edit")
				}
				stats.report(b, b.N)
			}
			// The last edit reached the others, or (locked) none.
			got := twins[len(twins)-1].unitOf(b, "de", n%len(units)).Target[0]
			if want := "Wert " + strconv.Itoa(n); (got == want) == c.locked {
				b.Fatalf("%s/de = %q after %q (locked %v)", twins[len(twins)-1].comp.Slug, got, want, c.locked)
			}
		})
	}
}

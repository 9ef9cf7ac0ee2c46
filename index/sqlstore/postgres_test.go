package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestPostgresNoJIT checks that the index's sessions run without JIT
// compilation (noJIT): the readers', the writers', the write_log
// checker's and the job locks'; and that a URL which sets jit keeps its
// own setting, as a parameter (in any case) or in its options. With the
// server's default (on) the site-wide search over a trigram queue of
// stale statistics compiled for 835 ms to run for 26 (BENCHMARKS.md
// "Session 15: SRCH15"); without noJIT every session says on here.
func TestPostgresNoJIT(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("PostgreSQL's JIT")
	}
	ctx := context.Background()
	show := func(name string, q interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) string {
		t.Helper()
		var v string
		if err := q.QueryRowContext(ctx, `SHOW jit`).Scan(&v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	// sessions is what each of db's pools runs with.
	sessions := func(db *DB) map[string]string {
		t.Helper()
		out := map[string]string{"readers": show("readers", db.rdb), "writers": show("writers", db.wdb),
			"job locks": show("job locks", db.jobs.pool)}
		conn, err := pgx.ConnectConfig(ctx, db.checker.cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var v string
		if err := conn.QueryRow(ctx, `SHOW jit`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		out["write_log checker"] = v
		return out
	}
	db, err := openFreshWith(t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, v := range sessions(db) {
		if v != "off" {
			t.Errorf("%s: jit %s, want off", name, v)
		}
	}
	for _, set := range []string{"jit=on", "JIT=on", "options=-c%20jit%3Don"} {
		o, _, dsn := reopenable(t)
		if !strings.Contains(dsn, "://") {
			t.Skipf("a URL's parameters: %q is not a URL", dsn)
		}
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		o.Location = dsn + sep + set
		own, err := Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range sessions(own) {
			if v != "on" {
				t.Errorf("%s with %s in the URL: jit %s, want on", name, set, v)
			}
		}
		own.Close()
	}
}

package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestPostgresNoJIT checks that the index's sessions run without JIT
// compilation (noJIT): the readers', the writers' and the write_log
// checker's (its configuration; it connects when it checks); and that a URL which sets jit keeps its own setting. With
// the server's default (on) the site-wide search over a trigram queue of
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
	db, err := openFreshWith(t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, q := range map[string]*sql.DB{"readers": db.rdb, "writers": db.wdb} {
		if v := show(name, q); v != "off" {
			t.Errorf("%s: jit %s, want off", name, v)
		}
	}
	if v := db.checker.cfg.RuntimeParams["jit"]; v != "off" {
		t.Errorf("write_log checker: jit %q, want off", v)
	}
	o, _, dsn := reopenable(t)
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		o.Location = dsn + sep + "jit=on"
	} else {
		o.Location = dsn + " jit=on"
	}
	own, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	if v := show("readers, jit=on in the URL", own.rdb); v != "on" {
		t.Errorf("readers with jit=on in the URL: jit %s", v)
	}
}

package main

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
)

func TestDBLocation(t *testing.T) {
	for _, tc := range []struct {
		db       string
		postgres bool
		describe string
	}{
		{"", false, "sqlite data/tolk.db"},
		{"/var/lib/tolk/index.db", false, "sqlite /var/lib/tolk/index.db"},
		{"./host=x/tolk.db", false, "sqlite ./host=x/tolk.db"},
		{"postgres://tolk:s3cret@db.example.com:5433/translations?sslmode=disable", true,
			"postgres host=db.example.com database=translations"},
		{"postgresql://tolk@/tolk?host=/run/postgresql", true, "postgres host=/run/postgresql database=tolk"},
		{"host=db.example.com dbname=tolk user=tolk password=s3cret", true, "postgres host=db.example.com database=tolk"},
		{"dbname = tolk password='s3 cret' host=/tmp", true, "postgres host=/tmp database=tolk"},
	} {
		if got := isPostgres(tc.db); got != tc.postgres {
			t.Errorf("isPostgres(%q) = %v, want %v", tc.db, got, tc.postgres)
		}
		if got := describeDB("data", tc.db); got != tc.describe {
			t.Errorf("describeDB(%q) = %q, want %q", tc.db, got, tc.describe)
		}
	}
	// A string the driver cannot parse is not quoted back, password and
	// all.
	_, err := openDB(context.Background(), t.TempDir(), "postgres://tolk:s3cret@db.example.com:port/tolk", sqlstore.Options{})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "--db") {
		t.Errorf("malformed --db: %v, want an error naming --db without the password", err)
	}
}

// TestDBFlag runs the binary on an index outside its data directory: a
// SQLite file elsewhere, or a PostgreSQL database with a password in its
// URL (the test server trusts any). The account commands take --db, the
// setup file's db names the same index to tolk serve, and the log names
// the index without the password.
func TestDBFlag(t *testing.T) {
	const password = "pw-never-logged"
	db := indextest.Location(t)
	if indextest.Engine() == indextest.Postgres {
		db = withPassword(t, db, password)
	}
	bin := buildTolk(t)
	data, elsewhere := t.TempDir(), t.TempDir()
	if out, err := exec.Command(bin, "user", "add", "anna", "--db", db, "--data", elsewhere).CombinedOutput(); err != nil {
		t.Fatalf("user add --db: %v\n%s", err, out)
	}
	config := filepath.Join(t.TempDir(), "tolk.yaml")
	if err := os.WriteFile(config, []byte("db: '"+db+"'\nprojects: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// An empty --db takes the setup file's (and keeps runTolk from
	// giving the test's own).
	p := runTolk(t, bin, data, "--config", config, "--demo", "--db", "")
	if status, body := get(t, p.base+"/api/users/anna/", "Token "+p.token); status != http.StatusOK {
		t.Errorf("GET anna, added with --db, from tolk serve with the setup file's db: %d %s", status, body)
	}
	log := p.log.String()
	if strings.Contains(log, password) {
		t.Errorf("the log shows the password:\n%s", log)
	}
	if want := "db=\"" + describeDB(data, db) + "\""; !strings.Contains(log, want) {
		t.Errorf("the log does not name the index (%s):\n%s", want, log)
	}
	for _, dir := range []string{data, elsewhere} {
		if _, err := os.Stat(filepath.Join(dir, "tolk.db")); err == nil {
			t.Errorf("%s/tolk.db created beside --db", dir)
		}
	}
	help, _ := exec.Command(bin, "serve", "--help").CombinedOutput()
	if !strings.Contains(string(help), "-db") || !strings.Contains(string(help), "postgres://") {
		t.Errorf("serve --help does not say what --db takes:\n%s", help)
	}
}

// withPassword returns the PostgreSQL connection string dsn with a
// password added.
func withPassword(tb testing.TB, dsn, password string) string {
	tb.Helper()
	if !strings.HasPrefix(dsn, "postgres") {
		return dsn + " password=" + password
	}
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), password)
	return u.String()
}

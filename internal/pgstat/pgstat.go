// Package pgstat reads what the measuring tools ask of a PostgreSQL
// server beside the figures Tolk keeps itself: the CPU the local
// server's processes spent (/proc), and pg_stat_statements' counters.
// tolk-bench and the benchmarks beside the code (sqlstore's, sync's)
// each read them their own way before, one of them unfiltered by
// database, so that a server shared by several runs counted the others'
// statements in each.
package pgstat

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the kernel's USER_HZ, the unit of /proc's CPU times: 100
// on every Linux architecture Tolk builds for.
const clockTick = time.Second / 100

// ClusterCPU is the user and system CPU time of every process of the
// PostgreSQL server dsn names (a URL), when its host is a socket
// directory on this machine: the postmaster, whose pid is the first line
// of the socket's lock file, with the children it reaped (its cutime
// and cstime: a backend or autovacuum worker that ended between two
// readings would otherwise take its time with it), and its children
// alive. ok is false where that cannot be had (another machine, no
// /proc). Every client of the server counts: use a server of one's own
// (.ci/postgres).
func ClusterCPU(dsn string) (cpu time.Duration, ok bool) {
	pid, ok := Postmaster(dsn)
	if !ok {
		return 0, false
	}
	f := procStat(pid)
	if len(f) < 15 {
		return 0, false
	}
	ticks := sumFields(f[11:15]) // utime, stime, cutime, cstime
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		child := filepath.Base(filepath.Dir(st))
		if c := procStat(child); len(c) >= 13 && c[1] == pid {
			ticks += sumFields(c[11:13]) // utime, stime
		}
	}
	return time.Duration(ticks) * clockTick, true
}

// Postmaster is the pid (its /proc directory's name) of the postmaster
// of the server dsn names, when its host is a socket directory on this
// machine: the first line of the socket's lock file.
func Postmaster(dsn string) (pid string, ok bool) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", false
	}
	dir, port := u.Query().Get("host"), u.Port()
	if port == "" {
		port = "5432"
	}
	if !strings.HasPrefix(dir, "/") {
		return "", false
	}
	lock, err := os.ReadFile(filepath.Join(dir, ".s.PGSQL."+port+".lock"))
	if err != nil {
		return "", false
	}
	pid, _, _ = strings.Cut(string(lock), "\n")
	return strings.TrimSpace(pid), true
}

// Parent is the pid of process pid's parent, "" when it is gone.
func Parent(pid string) string {
	if f := procStat(pid); len(f) >= 2 {
		return f[1]
	}
	return ""
}

// ProcCPU is the user and system CPU time of process pid (its /proc
// directory's name), 0 when it is gone: the measuring tools' reading of
// one server process (tolk-bench's checkpointer, its backends).
func ProcCPU(pid string) time.Duration {
	f := procStat(pid)
	if len(f) < 13 {
		return 0
	}
	return time.Duration(sumFields(f[11:13])) * clockTick // utime, stime
}

// procStat is the fields of /proc/pid/stat after the command's closing
// parenthesis: the state first, the parent's pid second, utime 12th;
// nil when the process is gone.
func procStat(pid string) []string {
	raw, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return nil
	}
	s := string(raw)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

func sumFields(fields []string) int64 {
	var n int64
	for _, f := range fields {
		v, _ := strconv.ParseInt(f, 10, 64)
		n += v
	}
	return n
}

// Queryer is what the statement readers ask with: a *sql.DB, *sql.Conn
// or *sql.Tx connected to the database measured.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Statement is one row of pg_stat_statements: a statement's counters for
// one user, one database and top level or not. Times are milliseconds.
type Statement struct {
	QueryID        int64
	Query          string
	TopLevel       bool // run by a client, not inside a function or trigger
	Calls, Plans   int64
	PlanMS, ExecMS float64
	Hit, Read      int64 // shared buffers
	Rows           int64
	Dirtied, Temp  int64 // shared buffers dirtied, temporary ones written
}

// schema is the schema pg_stat_statements is created in, quoted, or an
// error when the extension is not created in q's database (the server
// must also load it: shared_preload_libraries).
func schema(ctx context.Context, q Queryer) (string, error) {
	var s string
	err := q.QueryRowContext(ctx, `SELECT quote_ident(n.nspname) FROM pg_extension e
		JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_stat_statements'`).Scan(&s)
	if err != nil {
		return "", fmt.Errorf("pg_stat_statements is not created in this database (load it and CREATE EXTENSION pg_stat_statements): %w", err)
	}
	return s, nil
}

// Available reports, as an error, why pg_stat_statements cannot be read
// in q's database: not created there, or not loaded by the server
// (shared_preload_libraries). It asks for no query texts: a server that
// has run many statements answers as fast as an idle one.
func Available(ctx context.Context, q Queryer) error {
	s, err := schema(ctx, q)
	if err != nil {
		return err
	}
	rows, err := q.QueryContext(ctx, `SELECT 1 FROM `+s+`.pg_stat_statements(false) LIMIT 1`)
	if err != nil {
		return fmt.Errorf("pg_stat_statements: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pg_stat_statements: %w", err)
	}
	return nil
}

// Statements returns pg_stat_statements' rows of q's current database,
// in no order.
func Statements(ctx context.Context, q Queryer) ([]Statement, error) {
	s, err := schema(ctx, q)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT queryid, query, toplevel, calls, plans, total_plan_time,
			total_exec_time, shared_blks_hit, shared_blks_read, rows, shared_blks_dirtied, temp_blks_written
		FROM `+s+`.pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND queryid IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("pg_stat_statements: %w", err)
	}
	defer rows.Close()
	var out []Statement
	for rows.Next() {
		var st Statement
		if err := rows.Scan(&st.QueryID, &st.Query, &st.TopLevel, &st.Calls, &st.Plans, &st.PlanMS, &st.ExecMS,
			&st.Hit, &st.Read, &st.Rows, &st.Dirtied, &st.Temp); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// Reset forgets pg_stat_statements' counters of q's current database
// (the other databases' are left: a server shared by several runs).
func Reset(ctx context.Context, q Queryer) error {
	s, err := schema(ctx, q)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `SELECT `+s+`.pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)`)
	return err
}

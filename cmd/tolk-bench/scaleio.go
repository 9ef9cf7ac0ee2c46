package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tolk-project/tolk/internal/pgstat"
)

// What the scale section records beside each copy's CPU, to tell a cache
// outgrown from work that grows (issue 31: why 10× imported at about half
// the 1× units/s): the pages the database read past its own cache, and
// the server's background processes, whose work an import causes but no
// backend of the database is charged with.

// ioMark is where the counters stood at the start of a copy's import.
type ioMark struct {
	reads, readBytes int64 // /proc/self/io syscr, rchar
	hit, read        int64 // PostgreSQL: pg_stat_database blks_hit, blks_read
	cluster          float64
}

// copyIO is what one copy's import read.
type copyIO struct {
	// ReadCalls and ReadBytes are Tolk's read system calls and the bytes
	// they returned (/proc/self/io): on SQLite the pages its cache
	// (cache_size) missed, read from the OS's page cache or the disk,
	// beside the checkout's files; on PostgreSQL mostly the server's
	// answers on the socket.
	ReadCalls, ReadBytes int64
	// BlocksHit and BlocksRead are PostgreSQL's shared-buffer hits and
	// the blocks it read past shared_buffers (pg_stat_database, for the
	// whole database), -1 on SQLite.
	BlocksHit, BlocksRead int64
	// ClusterCPU is the CPU seconds of every process of the server
	// (backends and autovacuum workers that ended meanwhile included,
	// through the postmaster's reaped children, and the checkpointer,
	// background and WAL writers that no database is charged with), -1
	// where unknown: the whole cluster's, so only meaningful on a server
	// of the run's own. ServerCPU misses the workers that ended.
	ClusterCPU float64
}

// ioMark reads the counters.
func (e *engine) ioMark(ctx context.Context) ioMark {
	m := ioMark{hit: -1, read: -1, cluster: -1}
	m.reads, m.readBytes = selfIO()
	if e.postgres() {
		// The statistics a backend sends at its transactions' end, at
		// most a second late (PostgreSQL 15): good enough for a copy's
		// tens of seconds.
		if err := e.admin.QueryRowContext(ctx, `SELECT pg_stat_force_next_flush()`).Scan(new(any)); err != nil {
			_ = err // before PostgreSQL 15: the counters lag by up to 500 ms
		}
		if err := e.admin.QueryRowContext(ctx, `SELECT blks_hit, blks_read FROM pg_stat_database
			WHERE datname = current_database()`).Scan(&m.hit, &m.read); err != nil {
			m.hit, m.read = -1, -1
		}
		m.cluster = e.clusterCPU()
	}
	return m
}

// since is what was read from m to now.
func (e *engine) ioSince(ctx context.Context, m ioMark) copyIO {
	now := e.ioMark(ctx)
	out := copyIO{ReadCalls: now.reads - m.reads, ReadBytes: now.readBytes - m.readBytes, BlocksHit: -1, BlocksRead: -1, ClusterCPU: -1}
	if m.hit >= 0 && now.hit >= 0 {
		out.BlocksHit, out.BlocksRead = now.hit-m.hit, now.read-m.read
	}
	if m.cluster >= 0 && now.cluster >= 0 {
		out.ClusterCPU = now.cluster - m.cluster
	}
	return out
}

// selfIO is this process's read system calls and the bytes they read,
// from /proc/self/io (0, 0 where there is none).
func selfIO() (calls, bytes int64) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "syscr":
			calls = n
		case "rchar":
			bytes = n
		}
	}
	return calls, bytes
}

// serverProcCPU is the CPU seconds of the local server's processes whose
// command line ("postgres: checkpointer", split in fields) match picks,
// -1 where the server is not local.
func (e *engine) serverProcCPU(match func(fields []string) bool) float64 {
	if !e.localServer() {
		return -1
	}
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		return -1
	}
	// Only the server e.url names: several servers on one machine (each
	// engineer's .ci/postgres) all have a user and database "tolk", and
	// their backends' titles alike.
	postmaster, own := pgstat.Postmaster(e.url)
	var cpu time.Duration
	for _, p := range procs {
		cmd, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(cmd, []byte("postgres: ")) {
			continue
		}
		if !match(strings.Fields(string(bytes.TrimRight(cmd, "\x00")))) {
			continue
		}
		if own && pgstat.Parent(filepath.Base(filepath.Dir(p))) != postmaster {
			continue
		}
		cpu += pgstat.ProcCPU(filepath.Base(filepath.Dir(p)))
	}
	return cpu.Seconds()
}

// String is the log's and the report's form: "4,120 reads (16.1 MiB);
// buffers 1,200,000 hit, 3,400 read; whole server 0.4 s CPU".
func (c copyIO) String() string {
	size := "0 B"
	if c.ReadBytes > 0 {
		size = fmtBytes(c.ReadBytes)
	}
	s := fmt.Sprintf("%s reads (%s)", fmtInt(int(c.ReadCalls)), size)
	if c.BlocksHit >= 0 {
		s += fmt.Sprintf("; buffers %s hit, %s read", fmtInt(int(c.BlocksHit)), fmtInt(int(c.BlocksRead)))
	}
	if c.ClusterCPU >= 0 {
		s += fmt.Sprintf("; whole server %.1f s CPU", c.ClusterCPU)
	}
	return s
}

// clusterCPU is the CPU seconds of the local server e.url names, all its
// processes (pgstat.ClusterCPU), -1 where unknown.
func (e *engine) clusterCPU() float64 {
	cpu, ok := pgstat.ClusterCPU(e.url)
	if !ok {
		return -1
	}
	return cpu.Seconds()
}

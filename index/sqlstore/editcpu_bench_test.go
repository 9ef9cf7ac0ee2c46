package sqlstore

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/internal/testengine"
)

// BenchmarkEditCPU measures where a serial unit edit's CPU goes on
// PostgreSQL: Tolk's own (getrusage of this process, the benchmark's
// loop included) and the writer's server backend's (its utime and stime
// in /proc/<pid>/stat, so the server must run on this machine), each per
// edit, beside the wall time. On one shared machine both are what the
// edit costs the cores it shares with the database (issue 31); across
// machines the backend's is the database's load per edit.
//
//	TOLK_TEST_ENGINE=postgres go test ./index/sqlstore -run '^$' -bench EditCPU -benchtime 2000x
func BenchmarkEditCPU(b *testing.B) {
	if testengine.Engine() != testengine.Postgres {
		b.Skip("the server backend's CPU is PostgreSQL's")
	}
	e := newEditBench(b)
	e.load(b)
	pid := e.warmBackend(b)
	b.ResetTimer()
	server0, _ := backendCPU(pid)
	self0 := selfCPU()
	for range b.N {
		e.edit(b)
	}
	b.StopTimer()
	server1, err := backendCPU(pid)
	if err != nil {
		b.Fatal(err)
	}
	n := float64(b.N)
	b.ReportMetric(float64((selfCPU()-self0).Microseconds())/n, "tolk-cpu-µs/edit")
	b.ReportMetric(float64((server1-server0).Microseconds())/n, "server-cpu-µs/edit")
}

// warmBackend makes 50 edits (statements prepared, caches, the author
// known) and returns the pid of the writer's server backend, skipping b
// when its CPU is not readable here.
func (e *editBench) warmBackend(b *testing.B) int {
	var pid int
	if err := e.db.write(context.Background(), func(tx *Tx) error {
		return tx.QueryRow(`SELECT pg_backend_pid()`).Scan(&pid)
	}); err != nil {
		b.Fatal(err)
	}
	if _, err := backendCPU(pid); err != nil {
		b.Skip("the server's backend is not readable here: ", err)
	}
	for range 50 {
		e.edit(b)
	}
	return pid
}

// backendCPU is the user and system CPU time of process pid so far.
func backendCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from after it (utime and stime are the 14th and 15th).
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	var ticks int64
	for _, v := range f[11:13] {
		t, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += t
	}
	return time.Duration(ticks) * time.Second / 100, nil // USER_HZ is 100 on Linux
}

// selfCPU is this process's user and system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

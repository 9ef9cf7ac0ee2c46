package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/tolk-project/tolk/index/sqlstore"
)

// wrkPoint is one endpoint measured by wrk, against the API and against
// the ceiling serving its bytes.
type wrkPoint struct {
	Endpoint  string
	Bytes     int
	API, Ceil wrkStats
	Cost      wrkCost // the API's run
}

// wrkCost is what the API's run cost a request: this process's CPU (the
// API's handlers; wrk is a process of its own), the local PostgreSQL
// server's backends' CPU for the index's database (-1 on SQLite or a
// server elsewhere), and the write_log checks the readers ran (-1 on
// SQLite, which has none), each divided by the run's requests.
type wrkCost struct {
	Tolk, Server time.Duration
	Checks       float64
}

// wrkMeter starts measuring a run's cost; its stop divides by requests.
func wrkMeter(eng *engine, db *sqlstore.DB) func(requests int) wrkCost {
	cpu, server, checks := processCPU(), eng.serverCPU(), db.SharedChecks()
	return func(requests int) wrkCost {
		n := max(requests, 1)
		c := wrkCost{Tolk: (processCPU() - cpu) / time.Duration(n), Server: -1, Checks: -1}
		if server >= 0 {
			c.Server = time.Duration((eng.serverCPU() - server) * float64(time.Second) / float64(n))
		}
		if eng.postgres() {
			c.Checks = float64(db.SharedChecks()-checks) / float64(n)
		}
		return c
	}
}

// wrkStats is what wrk reports for one run.
type wrkStats struct {
	RPS      float64
	Requests int
	Errors   int // non-2xx answers and socket errors
	P50, P99 time.Duration
}

// benchWrk measures every endpoint but the page sweep with wrk (-t2 -c8,
// as issue 12 names it), the real API and then the ceiling, each for
// dur. It needs the wrk binary
// (Debian's wrk); without it the section is skipped with an error the
// report shows.
func benchWrk(ctx context.Context, cfg config, eng *engine, db *sqlstore.DB, dur time.Duration) ([]wrkPoint, error) {
	bin, err := exec.LookPath("wrk")
	if err != nil {
		return nil, fmt.Errorf("wrk is not installed (apt-get install wrk): %w", err)
	}
	rig, err := newLoadRig(ctx, db, endpoints("bench", "jellyfin", loadLanguage), true)
	if err != nil {
		return nil, err
	}
	defer rig.Close()
	apiSrv, ceil := rig.api, rig.ceil
	eng.settle(ctx)
	var points []wrkPoint
	for i, t := range rig.targets {
		if t.Sweep != "" || t.Err != "" || t.Status != http.StatusOK {
			continue
		}
		p := wrkPoint{Endpoint: t.Name, Bytes: len(t.Body)}
		apiURL, ceilURL := apiSrv.base()+t.Paths[0], ceil.base()+"/ceiling/"+strconv.Itoa(i)+"/"
		for _, target := range []struct {
			url  string
			out  *wrkStats
			cost *wrkCost
		}{{apiURL, &p.API, &p.Cost}, {ceilURL, &p.Ceil, nil}} {
			var st wrkStats
			run := func() (err error) {
				st, err = runWrk(ctx, bin, target.url, dur, func() func(int) {
					if target.cost == nil {
						return func(int) {}
					}
					stop := wrkMeter(eng, db)
					return func(n int) { *target.cost = stop(n) }
				})
				return err
			}
			if target.url == apiURL {
				err = cfg.cpuProfile("wrk-" + strings.ReplaceAll(t.Name, " ", "-"))(run)
			} else {
				err = run()
			}
			if err != nil {
				return points, fmt.Errorf("%s: %w", t.Name, err)
			}
			*target.out = st
		}
		points = append(points, p)
	}
	return points, nil
}

// settle waits, at most a minute, until no autovacuum worker runs in
// the database (PostgreSQL): after the import and its trigram step
// they analyze and vacuum the fresh tables for tens of seconds on the
// same cores, which the first endpoints' rates and server CPU would
// take in (session 9: the endpoint measured first after the import,
// 0.5-1.5 ms of the database's CPU a cached read; the later ones
// 30-200 µs).
func (e *engine) settle(ctx context.Context) {
	if !e.postgres() {
		return
	}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		var n int
		if err := e.admin.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE backend_type = 'autovacuum worker' AND datname = current_database()`).Scan(&n); err != nil || n == 0 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// runWrk runs wrk -t2 -c8 against url for dur (after a one-second warm
// up) and parses its report. meter starts after the warm-up; what it
// returns is given the run's requests as the run ends.
func runWrk(ctx context.Context, bin, url string, dur time.Duration, meter func() func(requests int)) (wrkStats, error) {
	secs := strconv.Itoa(max(1, int(dur.Round(time.Second)/time.Second)))
	if err := exec.CommandContext(ctx, bin, "-t2", "-c8", "-d1s", url).Run(); err != nil {
		return wrkStats{}, fmt.Errorf("wrk warm-up: %w", err)
	}
	stop := meter()
	out, err := exec.CommandContext(ctx, bin, "-t2", "-c8", "-d"+secs+"s", "--latency", url).CombinedOutput()
	if err != nil {
		return wrkStats{}, fmt.Errorf("wrk: %w\n%s", err, out)
	}
	st, err := parseWrk(out)
	stop(st.Requests)
	return st, err
}

// parseWrk reads wrk's text report: the latency distribution's 50% and
// 99% lines, "N requests in", the error lines and "Requests/sec:".
func parseWrk(out []byte) (wrkStats, error) {
	var st wrkStats
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		var err error
		switch {
		case len(f) == 2 && f[0] == "50%":
			st.P50, err = parseWrkDuration(f[1])
		case len(f) == 2 && f[0] == "99%":
			st.P99, err = parseWrkDuration(f[1])
		case len(f) >= 3 && f[1] == "requests" && f[2] == "in":
			st.Requests, err = strconv.Atoi(f[0])
		case len(f) == 2 && f[0] == "Requests/sec:":
			st.RPS, err = strconv.ParseFloat(f[1], 64)
		case len(f) >= 4 && f[0] == "Non-2xx":
			var n int
			n, err = strconv.Atoi(f[len(f)-1])
			st.Errors += n
		case len(f) >= 2 && f[0] == "Socket" && f[1] == "errors:":
			for _, part := range strings.Split(strings.Join(f[2:], " "), ",") {
				if kv := strings.Fields(part); len(kv) == 2 {
					n, perr := strconv.Atoi(kv[1])
					st.Errors += n
					err = errors.Join(err, perr)
				}
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("wrk line %q: %w", sc.Text(), err))
		}
	}
	if st.RPS == 0 || st.Requests == 0 || st.P50 == 0 {
		errs = append(errs, errors.New("no throughput or latency in wrk's report:\n"+string(out)))
	}
	return st, errors.Join(errs...)
}

// parseWrkDuration reads wrk's latency figures: 812.00us, 1.23ms, 2.01s.
func parseWrkDuration(s string) (time.Duration, error) {
	for _, u := range []struct {
		suffix string
		unit   time.Duration
	}{{"us", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			return time.Duration(f * float64(u.unit)), err
		}
	}
	return 0, fmt.Errorf("wrk duration %q", s)
}

func wrkTable(b *strings.Builder, points []wrkPoint, failure string) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("Debian's `wrk -t2 -c8` (an independent load generator, C, its own process, on the same 2 cores), against " +
		"the real API and then against the ceiling (gin answering a pre-built copy of the same body), both served " +
		"by this process on 127.0.0.1; a one-second warm-up before each run. Issue 12: every endpoint at least 0.5 of " +
		"its ceiling measured this way.\n\n")
	if failure != "" {
		w("**Not measured**: %s\n\n", failure)
		return
	}
	w("The API's cost a request, which a loaded machine inflates less than its rates: Tolk's CPU (this process; wrk " +
		"runs apart), the PostgreSQL server's (its backends for the index's database, when it runs on this machine) and " +
		"the `write_log` checks its readers ran (PostgreSQL; shared by the requests waiting).\n\n")
	w("| endpoint | bytes | API req/s | p50 | p99 | ceiling req/s | p50 | p99 | API / ceiling | Tolk CPU | server CPU | checks |\n")
	w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range points {
		server, checks := "", ""
		if p.Cost.Server >= 0 {
			server = fmtDur(p.Cost.Server)
		}
		if p.Cost.Checks >= 0 {
			checks = fmt.Sprintf("%.2f", p.Cost.Checks)
		}
		w("| %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %s | %s | %s |\n", p.Endpoint, fmtInt(p.Bytes),
			fmtInt(int(p.API.RPS+0.5)), fmtDur(p.API.P50), fmtDur(p.API.P99),
			fmtInt(int(p.Ceil.RPS+0.5)), fmtDur(p.Ceil.P50), fmtDur(p.Ceil.P99), p.API.RPS/max(p.Ceil.RPS, 1e-9),
			fmtDur(p.Cost.Tolk), server, checks)
		if p.API.Errors > 0 || p.Ceil.Errors > 0 {
			w("\n**Errors** in %s: %d from the API, %d from the ceiling\n\n", p.Endpoint, p.API.Errors, p.Ceil.Errors)
		}
	}
	w("\n")
}

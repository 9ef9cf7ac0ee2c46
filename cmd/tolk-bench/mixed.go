package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// mixedRate is the edits per second the mixed section keeps arriving
// while it measures reads (issue 12: reads keep 70% of their idle
// throughput at 500 edits per second).
const mixedRate = 500

// mixedConcurrency is the readers' concurrency.
const mixedConcurrency = 8

// mixedResult is the reads-while-writing section: each read endpoint,
// idle and while unit PATCHes arrive at a steady rate.
type mixedResult struct {
	Rate   int
	Points []mixedPoint
}

// mixedPoint is one endpoint, idle and busy, with the edits that ran
// during its busy rounds.
type mixedPoint struct {
	Endpoint   string
	Idle, Busy loadStats
	Edits      loadStats
	Failure    string // the first failed edit, when Edits.Errors > 0
}

// benchMixed measures every read endpoint at mixedConcurrency, in rounds
// alternating idle with rounds during which patch runs at mixedRate
// edits per second.
func benchMixed(ctx context.Context, cfg config, client *http.Client, base string, patch func(*firstError) op) (*mixedResult, error) {
	targets := resolveEndpoints(ctx, client, base, endpoints("bench", "jellyfin", loadLanguage))
	res := &mixedResult{Rate: mixedRate}
	for _, t := range targets {
		if t.Err != "" || t.Status != http.StatusOK {
			continue
		}
		read := getEach(client, prefixed(base, t.Paths))
		send(ctx, read, mixedConcurrency, cfg.Duration/10, mixedConcurrency*4)
		var failure firstError
		edit := patch(&failure)
		var idle, busy, edits sample
		for range pairRounds {
			idle.add(send(ctx, read, mixedConcurrency, cfg.Duration/pairRounds, cfg.MaxRequests/pairRounds))
			stop := paced(ctx, edit, mixedRate)
			stopProf := cfg.startCPU("mixed-" + strings.ReplaceAll(t.Name, " ", "-"))
			busy.add(send(ctx, read, mixedConcurrency, cfg.Duration/pairRounds, cfg.MaxRequests/pairRounds))
			stopProf()
			edits.add(stop())
		}
		res.Points = append(res.Points, mixedPoint{Endpoint: t.Name, Idle: idle.stats(), Busy: busy.stats(),
			Edits: edits.stats(), Failure: failure.get()})
		if err := ctx.Err(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// maxPacedInFlight bounds the edits a paced load has in flight: when the
// server falls behind, the rate drops rather than the connections grow.
const maxPacedInFlight = 32

// paced runs do rate times a second, each in its own goroutine, until the
// returned stop is called; stop waits for the requests in flight (rather
// than cutting them off, which would leave edits committed but never
// answered, out of the count of what landed) and returns what they
// measured.
func paced(ctx context.Context, do op, rate int) (stop func() sample) {
	halt := make(chan struct{})
	var (
		mu      sync.Mutex
		s       sample
		n       atomic.Int64
		wg      sync.WaitGroup
		started = time.Now()
		slots   = make(chan struct{}, maxPacedInFlight)
	)
	interval := time.Second / time.Duration(rate)
	done := make(chan struct{})
	go func() {
		defer close(done)
		next := time.Now()
		for {
			// Catch up without bursts past the in-flight bound.
			if d := time.Until(next); d > 0 {
				select {
				case <-time.After(d):
				case <-halt:
					return
				}
			}
			next = next.Add(interval)
			select {
			case slots <- struct{}{}:
			case <-halt:
				return
			}
			wg.Add(1)
			go func(i int64) {
				defer wg.Done()
				defer func() { <-slots }()
				t0 := time.Now()
				ok, err := do(ctx, i)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					s.errors++
				default:
					s.lats = append(s.lats, time.Since(t0))
					if !ok {
						s.errors++
					}
				}
			}(n.Add(1) - 1)
		}
	}()
	return func() sample {
		close(halt)
		<-done
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		s.elapsed = time.Since(started)
		return s
	}
}

func mixedTable(b *strings.Builder, m *mixedResult) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("Each read endpoint of the reads section at concurrency %d, in %d rounds alternating idle with rounds "+
		"during which unit PATCHes (as in the writes section: random units of the 181 translations, a superuser's "+
		"token) are started at %d a second, each in its own connection slot (at most %d in flight). "+
		"\"kept\" is the busy throughput as a share of the idle one (issue 12: at least 70%%).\n\n",
		mixedConcurrency, pairRounds, m.Rate, maxPacedInFlight)
	w("| endpoint | idle req/s | idle p50 | busy req/s | busy p50 | busy p99 | kept | edits/s | edit p50 | edit p99 |\n")
	w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var failures []string
	for _, p := range m.Points {
		w("| %s | %s | %s | %s | %s | %s | %.0f%% | %s | %s | %s |\n", p.Endpoint, fmtInt(int(p.Idle.RPS+0.5)),
			fmtDur(p.Idle.P50), fmtInt(int(p.Busy.RPS+0.5)), fmtDur(p.Busy.P50), fmtDur(p.Busy.P99),
			pct(p.Busy.RPS, p.Idle.RPS), fmtInt(int(p.Edits.RPS+0.5)), fmtDur(p.Edits.P50), fmtDur(p.Edits.P99))
		if p.Edits.Errors > 0 || p.Busy.Errors > 0 || p.Idle.Errors > 0 {
			failures = append(failures, fmt.Sprintf("%s: %d edits, %d busy reads, %d idle reads failed; first edit failure: %s",
				p.Endpoint, p.Edits.Errors, p.Busy.Errors, p.Idle.Errors, p.Failure))
		}
	}
	for _, f := range failures {
		w("\n**Errors**: %s\n", f)
	}
	w("\n")
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/tolk-project/tolk/api"
)

// searchResult is the search section: /api/units/?q=… over every unit of
// the 1x index, one request at a time.
type searchResult struct {
	Units  int // units in the index
	Points []searchPoint
}

// searchPoint is one query timed.
type searchPoint struct {
	Kind    string // "field", "words" or "regex": which target applies
	Query   string
	Matches int // count of the answer
	Stats   loadStats
	// CPU is the process's CPU time (user and system: server and client)
	// per request: on a busy machine the latency waits for a core too.
	CPU     time.Duration
	Failure string
}

// The targets of issue 27: a field term's p99, and bare words' and a
// regular expression's.
const (
	searchFieldTarget = 50 * time.Millisecond
	searchScanTarget  = 200 * time.Millisecond
)

// searchQueries are the timed searches: the kinds of term a translator
// and a client send, over the whole index (the reference's predefined
// queries, the generated OpenAPI client's scope terms).
var searchQueries = []struct{ kind, q string }{
	{"field", "state:<translated"},
	{"field", "is:fuzzy"},
	{"field", "state:approved AND has:suggestion"},
	{"field", "has:check AND state:>=translated"},
	{"field", "has:comment"},
	{"field", "NOT has:label"},
	{"field", "has:glossary"},
	{"field", "NOT has:glossary"},
	{"field", "check:same"},
	{"field", "label:urgent"},
	{"field", "project:bench component:jellyfin language:de state:<translated"},
	{"field", "path:bench/jellyfin/de position:[10 to 20]"},
	{"field", "priority:>100"},
	{"field", "changed:>=yesterday"},
	{"field", "changed_by:tolk-bench"},
	{"field", "key:Play"},
	{"words", "play"},
	{"words", `"the file"`},
	{"words", "sync NOT music"},
	{"words", "project:bench language:de play"},
	{"regex", `source:r"^Play"`},
	{"regex", `target:r"[0-9]+ (files|Dateien)"`},
}

// benchSearch times each query n times. The index answers a page it
// read since its last write from memory: each request adds an always
// true id:>=-N with a new N, so every one is a search, not a cache hit.
func benchSearch(ctx context.Context, cfg config, rep *report, in *instance, logf func(string, ...any)) error {
	_, auth, err := benchUser(ctx, in.db)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	srv, err := serve(serverHandler(in.db, api.Options{}))
	if err != nil {
		return err
	}
	defer srv.Close()
	client := newClient()
	defer client.CloseIdleConnections()
	get := func(q string) (int, error) {
		req, err := http.NewRequestWithContext(ctx, "GET", srv.base()+"/api/units/?page_size=20&q="+url.QueryEscape(q), nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", auth)
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("%d %.200s", resp.StatusCode, body)
		}
		var list struct{ Count int }
		err = json.Unmarshal(body, &list)
		return list.Count, err
	}
	res := &searchResult{}
	rep.Search = res
	if res.Units, err = get(""); err != nil {
		return fmt.Errorf("search: all units: %w", err)
	}
	n := min(cfg.MaxRequests, 40)
	if cfg.Quick {
		n = min(n, 5)
	}
	logf("search: %d queries over %d units, %d times each", len(searchQueries), res.Units, n)
	stop := cfg.startCPU("search")
	defer stop()
	seq := 0
	for _, sq := range searchQueries {
		pt := searchPoint{Kind: sq.kind, Query: sq.q, Matches: -1}
		var s sample
		start, cpu0 := time.Now(), processCPU()
		for i := 0; i < n && ctx.Err() == nil; i++ {
			seq++
			t0 := time.Now()
			count, err := get(fmt.Sprintf("(%s) id:>=-%d", sq.q, seq))
			if err == nil && pt.Matches >= 0 && count != pt.Matches {
				err = fmt.Errorf("%d matches, then %d", pt.Matches, count)
			}
			if err != nil {
				s.errors++
				pt.Failure = err.Error()
				continue
			}
			s.lats = append(s.lats, time.Since(t0))
			pt.Matches = count
		}
		s.elapsed = time.Since(start)
		pt.Stats = s.stats()
		if n := len(s.lats) + s.errors; n > 0 {
			pt.CPU = (processCPU() - cpu0) / time.Duration(n)
		}
		res.Points = append(res.Points, pt)
	}
	return ctx.Err()
}

// processCPU is the CPU time the process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func searchTable(b *strings.Builder, sr *searchResult, postgres bool) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	cpu := "CPU is the process's CPU time (server and client) per request, which a busy machine does not inflate as it " +
		"does latency."
	if postgres {
		cpu = "CPU is this process's CPU time per request: PostgreSQL's own work is in its server and not counted."
	}
	w("`GET /api/units/?q=…&page_size=20` over all %s units of the 1x index, one request at a time, through the real API "+
		"on 127.0.0.1 (Go client in the same process; the count and the first page, as a client reads them). Each request "+
		"adds an always-true `id:>=-N` with a new N, so none is answered from the page cache. %s Targets (issue 27): p99 "+
		"under %s for field terms, under %s for bare words and regular expressions.\n\n",
		fmtInt(sr.Units), cpu, fmtDur(searchFieldTarget), fmtDur(searchScanTarget))
	w("| kind | q | matches | requests | p50 | p99 | CPU | target | under target |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, p := range sr.Points {
		target := searchFieldTarget
		if p.Kind != "field" {
			target = searchScanTarget
		}
		q := "`" + strings.ReplaceAll(p.Query, "|", `\|`) + "`"
		if p.Failure != "" {
			w("| %s | %s | | %d | error: %s | | | %s | |\n", p.Kind, q, p.Stats.Requests,
				strings.NewReplacer("|", "/", "\n", " ").Replace(p.Failure), fmtDur(target))
			continue
		}
		ok := "yes"
		if p.Stats.P99 >= target {
			ok = "**no**"
		}
		w("| %s | %s | %s | %d | %s | %s | %s | %s | %s |\n", p.Kind, q, fmtInt(p.Matches), p.Stats.Requests,
			fmtDur(p.Stats.P50), fmtDur(p.Stats.P99), fmtDur(p.CPU), fmtDur(target), ok)
	}
	w("\n")
}

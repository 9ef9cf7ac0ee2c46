package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// The comment POSTs of the writes section (issue 27: a comment POST's
// p50 within 1.5x a unit PATCH's). Each level alternates rounds of
// comment POSTs with rounds of the section's unit PATCHes, so that other
// load on the machine falls on both alike, and reports both. It runs
// after the section has counted what its PATCHes landed.

// benchComments measures comment POSTs beside unit PATCHes (patch) at
// each concurrency level, on the units the PATCHes edit.
func benchComments(ctx context.Context, cfg config, c *http.Client, base, auth string, units [][]int64,
	patch func(*firstError) op) []writePoint {
	comments := &edits{units: units, prefix: "comment"}
	var points []writePoint
	for _, conc := range cfg.Concurrency {
		var patchFailure, postFailure firstError
		doPatch, doPost := patch(&patchFailure), postComments(c, base, auth, comments, &postFailure)
		send(ctx, doPost, conc, cfg.Duration/10, conc*4) // opens the connections
		var patches, posts sample
		per := (cfg.MaxRequests + pairRounds - 1) / pairRounds
		for range pairRounds {
			patches.add(send(ctx, doPatch, conc, cfg.Duration/pairRounds, per))
			posts.add(send(ctx, doPost, conc, cfg.Duration/pairRounds, per))
		}
		points = append(points,
			writePoint{Name: "unit PATCH over HTTP", Concurrency: conc, Stats: patches.stats(), Failure: patchFailure.get()},
			writePoint{Name: "comment POST over HTTP", Concurrency: conc, Stats: posts.stats(), Failure: postFailure.get()})
	}
	return points
}

// postComments is an op POSTing a translation comment, with a mention,
// on the unit of e's next edit, as a client of the reference's API does
// (POST /api/units/<id>/comments/); a 201 counts, anything else is kept
// in failure.
func postComments(c *http.Client, base, auth string, e *edits, failure *firstError) op {
	var n atomic.Int64
	return unitRequest(c, base, auth, e, http.MethodPost, "comments/", func(edit) any {
		return map[string]string{"scope": "translation",
			"comment": "tolk-bench comment " + strconv.FormatInt(n.Add(1), 10) + ", @tolk-bench: is **this** right?"}
	}, http.StatusCreated, nil, failure)
}

// commentsTable writes the comment POSTs beside the PATCHes of the same
// rounds, with the ratio of their medians.
func commentsTable(b *strings.Builder, points []writePoint) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("Comments: `POST /api/units/<id>/comments/` with `{\"scope\": \"translation\", \"comment\": ...}` (Markdown, one "+
		"@mention) on the units the PATCHes edit, in %d rounds alternating with rounds of those PATCHes at each level "+
		"(issue 27: p50 within 1.5× a PATCH's). Every POST stores a comment, its mention, a change and moves the "+
		"comment counts; anything but a 201 is an error.\n\n", pairRounds)
	w("| what | conc | requests | errors | req/s | p50 | p99 | p50 / PATCH p50 |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	var patchP50 float64
	for _, p := range points {
		s := p.Stats
		ratio := "—"
		if strings.HasPrefix(p.Name, "unit PATCH") {
			patchP50 = float64(s.P50)
		} else if patchP50 > 0 {
			ratio = fmt.Sprintf("%.2f×", float64(s.P50)/patchP50)
		}
		w("| %s | %d | %s | %s | %s | %s | %s | %s |\n", p.Name, p.Concurrency, fmtInt(s.Requests), fmtInt(s.Errors),
			fmtInt(int(s.RPS+0.5)), fmtDur(s.P50), fmtDur(s.P99), ratio)
		if s.Errors > 0 {
			w("\n**Errors**: %s at %d: first: %s\n\n", p.Name, p.Concurrency, p.Failure)
		}
	}
	w("\n")
}

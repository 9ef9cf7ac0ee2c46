package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index"
)

// The memory section (issue 29): the translation memory of N copies of
// the corpus, every language pair of every copy (≥ 2 million entries at
// 10), looked up through the real API. Targets beside each number: one
// string p99 < 10 ms, 100 strings < 200 ms, the 2,000 strings of an
// automatic translation < 2 s, and the memory's upkeep < 10% of a unit
// PATCH and < 20% of a full import. The reference's memory lookups take
// 30–90 s on large instances (weblate#18611).

const (
	memoryQueries   = 2000 // one-string lookups, half of them fuzzy
	memoryBatches   = 20   // lookups of 100 strings
	memoryPatches   = 200  // PATCHes with the memory idle, then in use
	memoryTargetLng = "de" // a language every corpus component has
)

// memoryResult is the memory section.
type memoryResult struct {
	Copies    int
	Entries   int     // units that are memory entries: translated or needing editing, not source
	Texts     int     // the distinct source texts looked up
	ImportSec float64 // the full import of the copies
	BuildSec  float64 // the first lookup after the import, which builds the index of source texts
	One       durStats
	OneHits   int      // one-string lookups that found a match
	Healthz   durStats // GET /healthz alternated with them: the floor the machine and HTTP set
	Store     durStats // the same lookups as store calls, no HTTP
	Batch     durStats
	ManySec   float64 // LookupMemoryMany of memoryQueries strings: automatic translation's lookups
	ManyHits  int
	PatchIdle durStats // PATCHes before any lookup: the memory's index not built
	PatchBusy durStats // PATCHes between lookups, the index in use
	Fresh     int      // PATCHed targets found by the lookup right after
}

// durStats summarizes latencies.
type durStats struct {
	N             int
	P50, P99, Max time.Duration
}

func statsOf(lats []time.Duration) durStats {
	s := slices.Clone(lats)
	slices.Sort(s)
	if len(s) == 0 {
		return durStats{}
	}
	return durStats{N: len(s), P50: quantile(s, 0.5), P99: quantile(s, 0.99), Max: s[len(s)-1]}
}

// memoryQuery is one string looked up, in its source language.
type memoryQuery struct{ lang, text string }

// benchMemory imports copies of the corpus and measures the memory over
// it.
func benchMemory(ctx context.Context, cfg config, eng *engine, repos []corpusRepo, tmp string, logf func(string, ...any)) (*memoryResult, error) {
	copies := max(cfg.MemoryCopies, 1)
	logf("memory: importing %dx the corpus", copies)
	in, res, err := runImport(ctx, eng, filepath.Join(tmp, "memory"), "memory", projectComponents(repos, copies), cfg.cpuProfile("memory-import"))
	if err != nil {
		return nil, fmt.Errorf("memory import: %w", err)
	}
	defer in.Close()
	r := &memoryResult{Copies: copies, ImportSec: res.FullSec}
	project, err := in.db.FindProject(ctx, "memory")
	if err != nil {
		return nil, err
	}
	_, auth, err := benchUser(ctx, in.db)
	if err != nil {
		return nil, err
	}
	srv, err := serve(serverHandler(in.db, api.Options{}))
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	client := newClient()
	defer client.CloseIdleConnections()

	units, err := sampleUnits(ctx, in.store, 1, 0)
	if err != nil {
		return nil, err
	}
	var patchIDs []int64
	for _, tr := range units {
		patchIDs = append(patchIDs, tr...)
	}
	patchIDs = patchIDs[:min(len(patchIDs), memoryPatches)]

	// PATCHes first, while nothing has asked the memory: its index is
	// not even built, so these are the edits without any memory.
	logf("memory: %d PATCHes, the memory idle", len(patchIDs))
	idle, err := memoryPatch(ctx, client, srv.base(), auth, patchIDs, "idle", nil)
	if err != nil {
		return nil, err
	}
	r.PatchIdle = statsOf(idle)

	logf("memory: the first lookup, which builds the index")
	queries, err := memorySample(ctx, in.store, memoryQueries)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if _, err := in.db.LookupMemory(ctx, index.MemoryQuery{ProjectID: project.ID, SourceLanguage: queries[0].lang,
		TargetLanguage: memoryTargetLng, Text: queries[0].text}); err != nil {
		return nil, err
	}
	r.BuildSec = time.Since(start).Seconds()
	_, r.Entries, err = in.db.FindMemory(ctx, index.MemoryFilter{}, index.Page{Number: 1, Size: 1})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, q := range queries {
		seen[q.text] = true
	}
	r.Texts = len(seen)

	logf("memory: %d one-string lookups through the API, each beside a GET /healthz", len(queries))
	var lats, floor, direct []time.Duration
	for _, q := range queries {
		d, found, err := memoryLookup(ctx, client, srv.base(), auth, q.lang, []string{q.text})
		if err != nil {
			return nil, err
		}
		lats = append(lats, d)
		r.OneHits += found
		start := time.Now()
		if status, _, err := sendAuth(ctx, client, http.MethodGet, srv.base()+"/healthz", "", "", nil); err != nil || status != http.StatusOK {
			return nil, fmt.Errorf("healthz: %d %v", status, err)
		}
		floor = append(floor, time.Since(start))
		start = time.Now()
		if _, err := in.db.LookupMemory(ctx, index.MemoryQuery{ProjectID: project.ID, SourceLanguage: q.lang,
			TargetLanguage: memoryTargetLng, Text: q.text, NoContext: true}); err != nil {
			return nil, err
		}
		direct = append(direct, time.Since(start))
	}
	r.One, r.Healthz, r.Store = statsOf(lats), statsOf(floor), statsOf(direct)

	logf("memory: %d lookups of 100 strings", memoryBatches)
	lats = lats[:0]
	for b := range memoryBatches {
		var strs []string
		lang := queries[b*100%len(queries)].lang
		for i := 0; len(strs) < 100 && i < len(queries); i++ {
			if q := queries[(b*100+i)%len(queries)]; q.lang == lang {
				strs = append(strs, q.text)
			}
		}
		d, _, err := memoryLookup(ctx, client, srv.base(), auth, lang, strs)
		if err != nil {
			return nil, err
		}
		lats = append(lats, d)
	}
	r.Batch = statsOf(lats)

	logf("memory: %d strings in one call, as an automatic translation asks", len(queries))
	qs := make([]index.MemoryQuery, len(queries))
	for i, q := range queries {
		qs[i] = index.MemoryQuery{ProjectID: project.ID, SourceLanguage: q.lang, TargetLanguage: memoryTargetLng, Text: q.text}
	}
	start = time.Now()
	many, err := in.db.LookupMemoryMany(ctx, qs)
	if err != nil {
		return nil, err
	}
	r.ManySec = time.Since(start).Seconds()
	for _, m := range many {
		if len(m) > 0 {
			r.ManyHits++
		}
	}

	logf("memory: %d PATCHes, each followed by a lookup of its string", len(patchIDs))
	busy, err := memoryPatch(ctx, client, srv.base(), auth, patchIDs, "busy", func(id int64, target string) error {
		u, err := in.db.FindUnitByID(ctx, id)
		if err != nil {
			return err
		}
		t, err := in.db.FindTranslationByID(ctx, u.TranslationID)
		if err != nil {
			return err
		}
		got, err := in.db.LookupMemory(ctx, index.MemoryQuery{ProjectID: project.ID,
			SourceLanguage: t.Component.SourceLanguage, TargetLanguage: t.LanguageCode, Text: u.Source[0],
			Context: u.Context, Threshold: 50}) // an enforced check may leave the edit needing editing: pending, 70
		if err != nil {
			return err
		}
		if slices.ContainsFunc(got, func(m index.MemoryMatch) bool { return m.Target == target }) {
			r.Fresh++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.PatchBusy = statsOf(busy)
	return r, nil
}

// memorySample picks n source texts of the corpus copies at random,
// single-form ones, and makes every second one fuzzy: a word added at
// its end, which keeps it above the threshold for texts of some length.
func memorySample(ctx context.Context, st *store, n int) ([]memoryQuery, error) {
	raw, err := st.raw(true)
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	rows, err := raw.QueryContext(ctx, `SELECT c.source_language, u.source FROM units u
		JOIN translations t ON t.id = u.translation_id JOIN components c ON c.id = t.component_id
		WHERE t.is_source != 0 AND u.source != '' AND instr(u.source, ?) = 0
		ORDER BY random() LIMIT ?`, index.PluralSeparator, n)
	if err != nil {
		return nil, fmt.Errorf("sample sources: %w", err)
	}
	defer rows.Close()
	var out []memoryQuery
	for rows.Next() {
		var q memoryQuery
		if err := rows.Scan(&q.lang, &q.text); err != nil {
			return nil, err
		}
		if len(out)%2 == 1 {
			q.text += " now"
		}
		out = append(out, q)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sample sources: none")
	}
	return out, nil
}

// memoryLookup POSTs strings to /api/memory/lookup/ and returns the time
// taken and how many found a match.
func memoryLookup(ctx context.Context, c *http.Client, base, auth, lang string, strs []string) (time.Duration, int, error) {
	body, err := json.Marshal(map[string]any{"strings": strs})
	if err != nil {
		return 0, 0, err
	}
	u := base + "/api/memory/lookup/?project=memory&source_language=" + url.QueryEscape(lang) +
		"&target_language=" + memoryTargetLng
	start := time.Now()
	status, resp, err := sendAuth(ctx, c, http.MethodPost, u, auth, "application/json", body)
	d := time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	if status != http.StatusOK {
		return 0, 0, fmt.Errorf("memory lookup: %d %.300s", status, resp)
	}
	var answers []struct {
		Match *struct{} `json:"match"`
	}
	if err := json.Unmarshal(resp, &answers); err != nil || len(answers) != len(strs) {
		return 0, 0, fmt.Errorf("memory lookup: %d answers for %d strings: %v", len(answers), len(strs), err)
	}
	found := 0
	for _, a := range answers {
		if a.Match != nil {
			found++
		}
	}
	return d, found, nil
}

// memoryPatch PATCHes each unit's target through the API, one at a time,
// and returns each PATCH's latency; after, when not nil, runs after each
// (untimed) with the unit's id and its new target.
func memoryPatch(ctx context.Context, c *http.Client, base, auth string, ids []int64, tag string,
	after func(id int64, target string) error) ([]time.Duration, error) {
	var lats []time.Duration
	for i, id := range ids {
		target := fmt.Sprintf("memory bench %s %d", tag, i)
		body, _ := json.Marshal(map[string]any{"target": []string{target}, "state": 20})
		start := time.Now()
		status, resp, err := sendAuth(ctx, c, http.MethodPatch, fmt.Sprintf("%s/api/units/%d/", base, id), auth,
			"application/json", body)
		lats = append(lats, time.Since(start))
		if err != nil {
			return nil, err
		}
		if status != http.StatusOK {
			return nil, fmt.Errorf("PATCH unit %d: %d %.300s", id, status, resp)
		}
		if after != nil {
			if err := after(id, target); err != nil {
				return nil, err
			}
		}
	}
	return lats, nil
}

// memoryTable writes the memory section.
func memoryTable(b *strings.Builder, m *memoryResult) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("%d copies of each corpus component in one project; the memory is every translated or needs-editing string "+
		"of every language pair, read from the units where they are (nothing is copied: docs/memory.md). "+
		"Lookups go to German from each component's source language, through the real API on 127.0.0.1 "+
		"with a superuser's token, one request at a time; %s random source strings, every second one made fuzzy "+
		"by a word added at its end.\n\n", m.Copies, fmtInt(m.One.N))
	w("| what | measured | target | met |\n|---|---:|---:|---|\n")
	met := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "**no**"
	}
	w("| memory entries | %s | ≥ 2,000,000 | %s |\n", fmtInt(m.Entries), met(m.Entries >= 2000000))
	w("| one-string lookup p50 / p99 / max (%s, %s found) | %s / %s / %s | p99 < 10 ms | %s |\n", fmtInt(m.One.N),
		fmtInt(m.OneHits), fmtDur(m.One.P50), fmtDur(m.One.P99), fmtDur(m.One.Max), met(m.One.P99 < 10*time.Millisecond))
	w("| the same lookups as store calls, no HTTP, p50 / p99 / max | %s / %s / %s | | |\n", fmtDur(m.Store.P50),
		fmtDur(m.Store.P99), fmtDur(m.Store.Max))
	w("| ceiling: GET /healthz alternated with them, p50 / p99 / max | %s / %s / %s | | |\n", fmtDur(m.Healthz.P50),
		fmtDur(m.Healthz.P99), fmtDur(m.Healthz.Max))
	w("| 100-string lookup p50 / p99 / max (%d) | %s / %s / %s | < 200 ms | %s |\n", m.Batch.N, fmtDur(m.Batch.P50),
		fmtDur(m.Batch.P99), fmtDur(m.Batch.Max), met(m.Batch.Max < 200*time.Millisecond))
	w("| %s strings in one store call (an automatic translation's lookups; %s found) | %.3f s | < 2 s | %s |\n",
		fmtInt(m.One.N), fmtInt(m.ManyHits), m.ManySec, met(m.ManySec < 2))
	w("| first lookup after the import (builds the index of source texts) | %.3f s, %.1f%% of the import's %.1f s | < 20%% | %s |\n",
		m.BuildSec, pct(m.BuildSec, m.ImportSec), m.ImportSec, met(pct(m.BuildSec, m.ImportSec) < 20))
	busyPct := pct(float64(m.PatchBusy.P50-m.PatchIdle.P50), float64(m.PatchIdle.P50))
	w("| unit PATCH p50, memory idle → in use (%d each) | %s → %s (%+.1f%%) | < 10%% | %s |\n", m.PatchIdle.N,
		fmtDur(m.PatchIdle.P50), fmtDur(m.PatchBusy.P50), busyPct, met(busyPct < 10))
	w("| PATCHed targets found by a lookup right after | %d of %d | all | %s |\n\n", m.Fresh, m.PatchBusy.N,
		met(m.Fresh == m.PatchBusy.N))
	w("A PATCH runs no memory code: the entry is the unit. An import makes the next lookup rebuild the index of "+
		"distinct source texts (the row above); a target edit does not. The reference takes 30–90 s per memory "+
		"lookup on large instances (weblate#18611); the one-string p99 here is %.0f× below 30 s.\n\n",
		30/max(m.One.P99.Seconds(), 1e-9))
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/pgstat"
)

// writesResult is the writes section: unit PATCHes through the real API
// at each concurrency level, beside the ceilings.
type writesResult struct {
	Translations int // non-source translations the edits go to
	Units        int // units they pick from
	API          []writePoint
	Ceilings     []writePoint // prepared once, then compiled per edit
	// Suggestions are suggestion POSTs at each level, measured in the
	// same rounds as the PATCHes (issue 27: p50 within 1.5× a PATCH's).
	Suggestions []writePoint

	// What landed, warm-ups and profiling included: the 200s and 201s
	// (one change each: an edit, or "Suggestion added") against the
	// changes the index gained, and the ceiling's commits against the
	// changes its copy gained (New contributor aside in both).
	Answered, Recorded            int
	CeilingEdits, CeilingRecorded int
	// Translations whose stored statistics differ from a recount
	// afterwards, in the index and in the ceiling's copy.
	Mismatched, CeilingMismatched int

	Bulk *bulkResult
	// Comments are comment POSTs beside PATCHes (comments.go).
	Comments []writePoint
}

// writePoint is one measured row of the writes section.
type writePoint struct {
	Name        string
	Concurrency int
	// Peers is how many units each edit's string propagates to (the
	// scale section's edits; 0 elsewhere).
	Peers   int
	Stats   loadStats
	Failure string // the first failure, when Stats.Errors > 0
	// CPU and Wait are the process's CPU seconds (the load's client
	// and the server alike, and any background work of the index) and
	// its threads' seconds waiting for a CPU over the point, when
	// measured (both in the scale section; CPU alone for the writes
	// section's PATCHes); 0 otherwise.
	CPU, Wait float64
	// ServerCPU is the local PostgreSQL server's CPU seconds over the
	// point, all its processes (engine.clusterCPU), when measured (the
	// writes section's PATCHes on PostgreSQL); 0 otherwise.
	ServerCPU float64
	// Batches, Writes and RoundTrips are what the index's writers did
	// over the point (sqlstore.DB.WriterStats: the trigram step's writes
	// between the edits count among them), when measured (the writes
	// section's PATCHes); 0 otherwise.
	Batches, Writes, RoundTrips uint64
}

// cpuLog is the point's CPU per request of Tolk's process and of the
// local PostgreSQL server (when measured), for the progress log; the
// report's own column is perEdit (report.go).
func (p writePoint) cpuLog() string {
	if p.Stats.Requests == 0 {
		return "no requests"
	}
	s := fmt.Sprintf("Tolk %.0f µs", cpuPerEdit(p)*1e6)
	if p.ServerCPU > 0 {
		s += fmt.Sprintf(", server %.0f µs", p.ServerCPU/float64(p.Stats.Requests)*1e6)
	}
	s += " of CPU a request"
	if p.Batches > 0 {
		s += fmt.Sprintf("; %.2f writes a batch", float64(p.Writes)/float64(p.Batches))
		if p.RoundTrips > 0 {
			s += fmt.Sprintf(", %.2f round trips a batch, %.2f a request", float64(p.RoundTrips)/float64(p.Batches),
				float64(p.RoundTrips)/float64(p.Stats.Requests))
		}
	}
	return s
}

// unitsPerTranslation bounds the units of each translation the edits
// pick from, so that a big translation is not edited more often than a
// small one: an edit picks a translation first.
const unitsPerTranslation = 64

// benchWrites measures unit PATCHes over the 1x index in (section
// writes), and reads while they arrive (section mixed).
func benchWrites(ctx context.Context, cfg config, rep *report, in *instance, dir string, logf func(string, ...any)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	userID, auth, err := benchUser(ctx, in.db)
	if err != nil {
		return fmt.Errorf("writes: bench user: %w", err)
	}
	units, err := sampleUnits(ctx, in.store, unitsPerTranslation, 0)
	if err != nil {
		return fmt.Errorf("writes: %w", err)
	}
	res := &writesResult{Translations: len(units)}
	for _, u := range units {
		res.Units += len(u)
	}
	before, _, err := indexCounts(ctx, in.store)
	if err != nil {
		return fmt.Errorf("writes: %w", err)
	}
	cp, err := in.store.e.newStore(ctx, dir)
	if err != nil {
		return fmt.Errorf("writes: %w", err)
	}
	defer cp.drop()
	if err := copyIndex(ctx, in.store, cp); err != nil {
		return fmt.Errorf("writes: %w", err)
	}
	cls, closeCeilings, err := openCeilings(ctx, cp, userID, &edits{units: units, prefix: "ceiling"})
	if err != nil {
		return fmt.Errorf("writes: %w", err)
	}
	defer closeCeilings()

	// Wired as tolk serve wires it, so that uploads parse files.
	apiSrv, err := serve(serverHandler(in.db, api.Options{Repositories: in.svc, Files: in.svc, Components: in.svc,
		Operations: in.svc}))
	if err != nil {
		return err
	}
	defer apiSrv.Close()
	client := newClient()
	defer client.CloseIdleConnections()

	logf("writes: %d translations, %d units, concurrency %v, %s each", res.Translations, res.Units, cfg.Concurrency, cfg.Duration)
	var answered atomic.Int64
	apiEdits := &edits{units: units, prefix: "api"}
	patch := func(failure *firstError) op {
		return patchUnits(client, apiSrv.base(), auth, apiEdits, &answered, failure)
	}
	suggestEdits := &edits{units: units, prefix: "suggestion"}
	suggest := func(failure *firstError) op {
		return suggestUnits(client, apiSrv.base(), auth, suggestEdits, &answered, failure)
	}
	if cfg.Sections["mixed"] {
		logf("mixed: reads at concurrency %d, idle and at %d edits/s", mixedConcurrency, mixedRate)
		if rep.Mixed, err = benchMixed(ctx, cfg, client, apiSrv.base(), patch); err != nil {
			return fmt.Errorf("mixed: %w", err)
		}
	}
	if !cfg.Sections["writes"] {
		return ctx.Err()
	}
	res.API, res.Suggestions, res.Ceilings, err = loadWrites(ctx, cfg, in.store.e, in.db.WriterStats, patch, suggest, cls, logf)
	if err != nil {
		return fmt.Errorf("writes: %w", err)
	}
	for _, p := range res.API {
		logf("writes: PATCH at concurrency %d: %.0f/s, p99 %s; %s", p.Concurrency, p.Stats.RPS, p.Stats.P99, p.cpuLog())
	}

	if cfg.PprofDir != "" {
		logf("writes: profiling the PATCHes at concurrency 8")
		var failure firstError
		if err := profileWrites(ctx, cfg, in.store.e, patch(&failure), logf); err != nil {
			return fmt.Errorf("%w: %s", err, failure.get())
		}
	}

	res.Answered = int(answered.Load())
	for _, cl := range cls {
		res.CeilingEdits += int(cl.done.Load())
	}
	if err := closeCeilings(); err != nil {
		return fmt.Errorf("writes: ceiling copy: %w", err)
	}
	if err := res.countLanded(ctx, before, in.store, cp); err != nil {
		return fmt.Errorf("writes: %w", err)
	}
	// After the count, which is of the PATCHes' changes alone.
	logf("writes: comment POSTs beside PATCHes")
	res.Comments = benchComments(ctx, cfg, client, apiSrv.base(), auth, units, patch)
	logf("writes: bulk (upload, add a string)")
	if err := cfg.cpuProfile("bulk")(func() error {
		res.Bulk, err = benchBulk(ctx, client, apiSrv.base(), auth)
		return err
	}); err != nil {
		return fmt.Errorf("writes: bulk: %w", err)
	}
	rep.Writes = res
	return ctx.Err()
}

// countLanded reads what the edits left in the index and in the
// ceiling's copy, both of which held before changes when the load began.
func (res *writesResult) countLanded(ctx context.Context, before int, st, cp *store) error {
	after, mismatched, err := indexCounts(ctx, st)
	if err != nil {
		return err
	}
	res.Recorded, res.Mismatched = after-before, mismatched
	after, mismatched, err = indexCounts(ctx, cp)
	if err != nil {
		return fmt.Errorf("ceiling copy: %w", err)
	}
	res.CeilingRecorded, res.CeilingMismatched = after-before, mismatched
	return nil
}

// loadWrites measures the API's PATCHes and suggestion POSTs at each
// concurrency level and the ceilings at concurrency 1 in alternating
// rounds, so that other load on a shared machine falls on all alike.
// Each ceiling runs, in all, as long as one API level does. writer reads
// the index's writers' counts around the PATCHes; with -pg-statements
// the PATCHes' statements are written per level (writes-cN.tsv), and
// the heap-only share of units' updates over the section is logged.
func loadWrites(ctx context.Context, cfg config, eng *engine, writer func() index.WriterStats,
	patch, suggest func(*firstError) op, cls []*ceiling, logf func(string, ...any)) (points, suggestions,
	ceilings []writePoint, err error) {
	watch := cfg.PGStatements != "" && eng.postgres()
	ceilSamples := make([]sample, len(cls))
	parts := pairRounds * len(cfg.Concurrency)
	var upd0, hot0 int64
	if watch {
		if upd0, hot0, err = eng.hotUpdates(ctx); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, cl := range cls {
		send(ctx, cl.edit, 1, cfg.Duration/10, 4)
	}
	for _, conc := range cfg.Concurrency {
		var failure, sfailure firstError
		do, sdo := patch(&failure), suggest(&sfailure)
		send(ctx, do, conc, cfg.Duration/10, conc*4) // opens the connections
		send(ctx, sdo, conc, cfg.Duration/10, conc*4)
		var s, ss sample
		var cpu, server float64 // over the PATCHes' rounds alone
		var w index.WriterStats
		stmts := map[int64]pgstat.Statement{}
		for range pairRounds {
			var st0 map[int64]pgstat.Statement
			if watch {
				if st0, err = eng.stmtSnapshot(ctx); err != nil {
					return nil, nil, nil, err
				}
			}
			w0 := writer()
			c0, s0 := cpuSeconds(), eng.clusterCPU()
			s.add(send(ctx, do, conc, cfg.Duration/pairRounds, (cfg.MaxRequests+pairRounds-1)/pairRounds))
			cpu += cpuSeconds() - c0
			server += eng.clusterCPU() - s0
			w1 := writer()
			w.Batches += w1.Batches - w0.Batches
			w.Writes += w1.Writes - w0.Writes
			w.RoundTrips += w1.RoundTrips - w0.RoundTrips
			if watch {
				st1, err := eng.stmtSnapshot(ctx)
				if err != nil {
					return nil, nil, nil, err
				}
				addStmtDelta(stmts, st0, st1)
			}
			ss.add(send(ctx, sdo, conc, cfg.Duration/pairRounds, (cfg.MaxRequests+pairRounds-1)/pairRounds))
			for i, cl := range cls {
				ceilSamples[i].add(send(ctx, cl.edit, 1, cfg.Duration/time.Duration(parts), (cfg.MaxRequests+parts-1)/parts))
			}
		}
		p := writePoint{Name: "unit PATCH over HTTP", Concurrency: conc, Stats: s.stats(),
			Failure: failure.get(), CPU: cpu, ServerCPU: max(server, 0), Batches: w.Batches, Writes: w.Writes,
			RoundTrips: w.RoundTrips}
		points = append(points, p)
		if watch {
			if err := cfg.writeStmts(fmt.Sprintf("writes-c%d", conc), stmts, p.Stats.Requests); err != nil {
				return nil, nil, nil, err
			}
		}
		suggestions = append(suggestions, writePoint{Name: "suggestion POST over HTTP", Concurrency: conc,
			Stats: ss.stats(), Failure: sfailure.get()})
	}
	for i, cl := range cls {
		ceilings = append(ceilings, writePoint{Name: cl.name, Concurrency: 1, Stats: ceilSamples[i].stats(),
			Failure: cl.failure.get()})
	}
	if watch {
		// Every update of units over the section's rounds (PATCHes,
		// suggestions, ceilings, the trigram step): heap-only or not.
		upd, hot, err := eng.hotUpdates(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		logf("writes: units updated %d times, %d of them heap-only (%.0f%%)", upd-upd0, hot-hot0,
			100*float64(hot-hot0)/float64(max(upd-upd0, 1)))
	}
	return points, suggestions, ceilings, nil
}

// benchUser creates a superuser with a token in db, as an administrator
// would with `tolk user add --admin` and `tolk token create`, and returns
// its id and the Authorization header presenting the token.
func benchUser(ctx context.Context, db *sqlstore.DB) (int64, string, error) {
	u, err := db.SaveUser(ctx, index.User{Username: "tolk-bench", FullName: "tolk-bench",
		IsActive: true, IsSuperuser: true})
	if err != nil {
		return 0, "", err
	}
	secret := index.NewToken(index.UserTokenPrefix)
	if _, err := db.CreateToken(ctx, index.Token{UserID: u.ID, Name: "tolk-bench", Hash: index.HashToken(secret),
		Prefix: index.UserTokenPrefix, Scope: index.ScopeAdmin}); err != nil {
		return 0, "", err
	}
	return u.ID, "Token " + secret, nil
}

// editableUnit is the condition on units u that an edit of the loads
// can save: not read-only (state 100 or a read-only flag) and not plural
// (a source holding index.PluralSeparator), since the loads send one
// string as the target. Its one argument is index.PluralSeparator.
const editableUnit = `u.state != 100 AND instr(u.source, ?) = 0
	AND u.flags NOT LIKE '%read-only%' AND u.extra_flags NOT LIKE '%read-only%'`

// sampleUnits picks up to perTranslation random units of every
// non-source translation in the index in st (of the component with id
// componentID; 0: of every component), by translation. It leaves out
// what a PATCH of one target form may not edit: read-only units and
// plural strings (which take the language's number of forms, separated
// by two record separators).
func sampleUnits(ctx context.Context, st *store, perTranslation int, componentID int64) ([][]int64, error) {
	return sampleUnitsOf(ctx, st, perTranslation, componentID, nil)
}

// sampleUnitsOf is sampleUnits keeping only the translations of the
// components keep accepts (nil: every one).
func sampleUnitsOf(ctx context.Context, st *store, perTranslation int, componentID int64, keep func(component int64) bool) ([][]int64, error) {
	raw, err := st.raw(true)
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	rows, err := raw.QueryContext(ctx, `SELECT translation_id, component_id, id FROM (
		SELECT u.translation_id, t.component_id, u.id, row_number() OVER (PARTITION BY u.translation_id ORDER BY random()) AS n
		FROM units u JOIN translations t ON t.id = u.translation_id
		WHERE t.is_source = 0 AND `+editableUnit+`
			AND (? = 0 OR t.component_id = ?)) AS sampled
		WHERE n <= ? ORDER BY translation_id, id`, index.PluralSeparator, componentID, componentID, perTranslation)
	if err != nil {
		return nil, fmt.Errorf("sample units: %w", err)
	}
	defer rows.Close()
	var out [][]int64
	last := int64(-1)
	for rows.Next() {
		var tr, comp, id int64
		if err := rows.Scan(&tr, &comp, &id); err != nil {
			return nil, fmt.Errorf("sample units: %w", err)
		}
		if keep != nil && !keep(comp) {
			continue
		}
		if tr != last {
			out, last = append(out, nil), tr
		}
		out[len(out)-1] = append(out[len(out)-1], id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sample units: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("sample units: no editable unit")
	}
	return out, nil
}

// edits hands out the edits of a load: a random unit of a random
// translation, a target never sent before and a state alternating
// between translated (20) and needs editing (10), so that every edit
// changes its unit, records a change and moves statistics. Safe for
// concurrent use.
type edits struct {
	units  [][]int64 // by translation
	prefix string
	seq    atomic.Int64
}

type edit struct {
	unit   int64
	target string
	state  index.State
}

func (e *edits) next() edit {
	n := e.seq.Add(1)
	state := index.StateTranslated
	if n%2 == 0 {
		state = index.StateFuzzy
	}
	tr := e.units[rand.IntN(len(e.units))]
	return edit{unit: tr[rand.IntN(len(tr))], target: "tolk-bench " + e.prefix + " edit " + strconv.FormatInt(n, 10), state: state}
}

// unitRequest is an op sending one request about the unit of e's next
// edit, as a client of the reference's API does: method to the unit's
// URL plus sub ("" for the unit itself), with body's JSON, expecting
// want. An answer of want counts in answered (when not nil), anything
// else is kept in failure.
func unitRequest(c *http.Client, base, auth string, e *edits, method, sub string, body func(edit) any, want int,
	answered *atomic.Int64, failure *firstError) op {
	return func(ctx context.Context, _ int64) (bool, error) {
		ed := e.next()
		b, err := json.Marshal(body(ed))
		if err != nil {
			return false, err
		}
		req, err := http.NewRequestWithContext(ctx, method,
			base+"/api/units/"+strconv.FormatInt(ed.unit, 10)+"/"+sub, bytes.NewReader(b))
		if err != nil {
			return false, err
		}
		req.Header.Set("Authorization", auth)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			failure.set(err.Error())
			return false, err
		}
		b, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			failure.set(fmt.Sprintf("unit %d: status %d: reading the body: %v", ed.unit, resp.StatusCode, err))
			return false, nil
		}
		if resp.StatusCode != want {
			failure.set(fmt.Sprintf("unit %d: status %d: %.200s", ed.unit, resp.StatusCode, b))
			return false, nil
		}
		if answered != nil {
			answered.Add(1)
		}
		return true, nil
	}
}

// patchUnits is an op PATCHing the unit of e's next edit with its target
// and state; a 200 counts in answered.
func patchUnits(c *http.Client, base, auth string, e *edits, answered *atomic.Int64, failure *firstError) op {
	return unitRequest(c, base, auth, e, http.MethodPatch, "", func(ed edit) any {
		return struct {
			Target []string `json:"target"`
			State  int      `json:"state"`
		}{[]string{ed.target}, int(ed.state)}
	}, http.StatusOK, answered, failure)
}

// suggestUnits is an op POSTing e's next target as a suggestion on its
// unit (`POST /api/units/<id>/suggestions/`, reference workspace §2.4);
// each text is new, so each answer is a 201 recording "Suggestion added"
// and moving the statistics' suggestions the first time a unit gets
// one.
func suggestUnits(c *http.Client, base, auth string, e *edits, answered *atomic.Int64, failure *firstError) op {
	return unitRequest(c, base, auth, e, http.MethodPost, "suggestions/", func(ed edit) any {
		return struct {
			Target []string `json:"target"`
		}{[]string{ed.target}}
	}, http.StatusCreated, answered, failure)
}

// firstError keeps the first failure of a load, to show beside the count
// of failures. Safe for concurrent use.
type firstError struct {
	mu  sync.Mutex
	msg string
}

func (f *firstError) set(msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.msg == "" {
		f.msg = msg
	}
}

func (f *firstError) get() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.msg
}

// copyIndex copies the index in src, with every committed write, to dst,
// an empty store of the same engine. Nothing may write to src meanwhile.
func copyIndex(ctx context.Context, src, dst *store) error {
	if src.schema != "" {
		return copySchema(ctx, src, dst)
	}
	raw, err := openRaw(src.path, false)
	if err != nil {
		return err
	}
	defer raw.Close()
	// The WAL is checkpointed into the main file first. The index
	// checkpoints in the background (index/sqlstore), which can hold the
	// checkpoint lock for a moment: busy is retried, briefly.
	for try := 0; ; try++ {
		var busy, logPages, moved int
		if err := raw.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logPages, &moved); err != nil {
			return fmt.Errorf("checkpoint %s: %w", src.path, err)
		}
		if busy == 0 {
			return copyFile(src.path, dst.path)
		}
		if try == 100 {
			return fmt.Errorf("checkpoint %s: the index is busy", src.path)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// indexCounts reads, from the index in st, its changes (New contributor
// aside: an edit records it once per author and translation) and how many
// translations' stored statistics differ from a recount of their units.
func indexCounts(ctx context.Context, st *store) (changes, mismatched int, err error) {
	raw, err := st.raw(true)
	if err != nil {
		return 0, 0, err
	}
	defer raw.Close()
	if err := raw.QueryRowContext(ctx, `SELECT count(*) FROM changes WHERE action != ?`,
		index.ActionNewContributor).Scan(&changes); err != nil {
		return 0, 0, fmt.Errorf("count changes: %w", err)
	}
	err = raw.QueryRowContext(ctx, `SELECT count(*) FROM stats s JOIN (
		SELECT translation_id, count(*) AS total, sum(CASE WHEN state >= 20 THEN 1 ELSE 0 END) AS translated,
			sum(CASE WHEN state = 10 THEN 1 ELSE 0 END) AS fuzzy, sum(CASE WHEN state = 30 THEN 1 ELSE 0 END) AS approved
		FROM units GROUP BY translation_id) r ON s.scope = 't' AND s.scope_key = CAST(r.translation_id AS TEXT)
		WHERE s.total != r.total OR s.translated != r.translated OR s.fuzzy != r.fuzzy OR s.approved != r.approved`).
		Scan(&mismatched)
	if err != nil {
		return 0, 0, fmt.Errorf("recount statistics: %w", err)
	}
	return changes, mismatched, nil
}

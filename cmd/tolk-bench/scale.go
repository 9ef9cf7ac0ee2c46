package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	tolksync "github.com/tolk-project/tolk/sync"
)

// The scale section (issue 31) grows one index: -scale 1,10,100 imports
// copy 1, measures, adds copies 2 to 10, measures, adds 11 to 100,
// measures, instead of importing 1 + 10 + 100 copies from scratch. Each
// copy is a Reconcile of its own (its three components), so the import
// is timed copy by copy (units/s per copy shows what slows down as the
// index grows) and an interruption leaves whole copies behind: -keep
// leaves the index and its checkouts in the run's directory, and
// -resume DIR continues it, skipping by slug the copies already there.

// scaleSchemaFile holds, in a scale index's directory, the name of the
// PostgreSQL schema the index lives in (an SQLite index is the file
// tolk.db beside it), so that -resume finds it after a kill.
const scaleSchemaFile = "schema"

// scaleCopySlug is the slug of copy i of the corpus component slug.
func scaleCopySlug(slug string, i int) string { return fmt.Sprintf("%s-%02d", slug, i) }

// scaleCopy is copy i (from 1) of every corpus component, in project
// scale-NN with NN = (i-1) mod projects + 1: the first project holds
// jellyfin-01, whose German translation the reads load, and each of the
// projects holds an equal share of the copies once there are enough.
// Copies in one project share every string: each is a peer of the
// others for propagation and the inconsistent check, whose work an
// import does per peer (-scale-projects measures it).
//
// Each project's tenth copy (copies 91 to 100 over ten projects) does
// not allow propagation (scaleIsolated): its edits write one unit, as
// every edit at 1x does, which the writes measure apart (scaleWrites).
func scaleCopy(repos []corpusRepo, i, projects int) tolksync.ProjectSpec {
	slug := scaleProject((i-1)%projects + 1)
	spec := tolksync.ProjectSpec{Project: index.Project{Name: slug, Slug: slug}}
	for _, c := range projectComponents(repos, 1) {
		c.Slug = scaleCopySlug(c.Slug, i)
		c.Name = c.Slug
		c.AllowTranslationPropagation = !scaleIsolated(i, projects)
		spec.Components = append(spec.Components, c)
	}
	return spec
}

// scaleIsolated reports whether copy i is its project's tenth, which
// does not allow translation propagation: neither its edits reach the
// other copies nor theirs it, as the reference gates propagation on
// both components (trans/models/unit.py, propagate: the other units are
// those of components with allow_translation_propagation; and only
// when the edited one's allows it).
func scaleIsolated(i, projects int) bool { return (i-1)/projects == 9 }

// scaleFanOut is how many peers an edit of copy i reaches in an index
// of copies copies: the other copies of its project that allow
// propagation, none when copy i does not.
func scaleFanOut(i, copies, projects int) int {
	if scaleIsolated(i, projects) {
		return 0
	}
	n := 0
	for j := (i-1)%projects + 1; j <= copies; j += projects {
		if j != i && !scaleIsolated(j, projects) {
			n++
		}
	}
	return n
}

// scalePlan says what an index holding the components named in have
// lacks for upTo copies: todo, the copies not all of whose components
// are there, in order, and done, the highest copy that is whole (0 if
// none). A Reconcile saves a component before it imports it, so the
// copy an interruption cut short may look whole: a resumed run imports
// done again first (a Reconcile of a whole copy parses nothing, and
// finishes a cut one).
func scalePlan(have map[string]bool, repos []corpusRepo, upTo int) (todo []int, done int) {
	for i := 1; i <= upTo; i++ {
		whole := true
		for _, r := range repos {
			whole = whole && have[scaleCopySlug(r.slug, i)]
		}
		if whole {
			done = i
		} else {
			todo = append(todo, i)
		}
	}
	return todo, done
}

// copyImport is one copy's import in a scale step.
type copyImport struct {
	Copy  int
	Units int     // units the copy's components hold
	Sec   float64 // its Reconcile
	CPU   float64 // CPU seconds of Tolk's process over it
	// ServerCPU is the PostgreSQL server's CPU seconds for the
	// database over it (engine.serverCPU), -1 where unknown (SQLite's
	// work is in CPU).
	ServerCPU float64
	IO        copyIO
}

// openScaleIndex opens the scale section's index in dir: the one a
// -keep run left there, or a new one (whose PostgreSQL schema is named
// in dir at once, so that a run killed before its end can be resumed).
// It returns the component slugs the index holds.
func openScaleIndex(ctx context.Context, e *engine, dir string, keep bool) (*instance, map[string]bool, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	schemaPath := filepath.Join(dir, scaleSchemaFile)
	name, err := os.ReadFile(schemaPath)
	var st *store
	switch {
	case err == nil && !e.postgres():
		return nil, nil, fmt.Errorf("%s holds a PostgreSQL index (schema %s): resume it with -db", dir, strings.TrimSpace(string(name)))
	case err == nil:
		if st, err = e.schemaStore(strings.TrimSpace(string(name))); err != nil {
			return nil, nil, err
		}
		var exists bool
		if err := e.admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`,
			st.schema).Scan(&exists); err != nil {
			return nil, nil, err
		}
		if !exists {
			return nil, nil, fmt.Errorf("%s names schema %s, which the database does not have", schemaPath, st.schema)
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, nil, err
	default:
		if e.postgres() {
			if _, err := os.Stat(filepath.Join(dir, "tolk.db")); err == nil {
				return nil, nil, fmt.Errorf("%s holds an SQLite index: resume it without -db", dir)
			}
		}
		if st, err = e.newStore(ctx, dir); err != nil {
			return nil, nil, err
		}
		if st.schema != "" {
			if err := os.WriteFile(schemaPath, []byte(st.schema+"\n"), 0o644); err != nil {
				st.drop()
				return nil, nil, err
			}
		}
	}
	st.kept = keep
	in, err := openInstanceOn(ctx, st, dir)
	if err != nil {
		return nil, nil, err
	}
	have, err := componentSlugs(ctx, in.store)
	if err != nil {
		in.Close()
		return nil, nil, err
	}
	return in, have, nil
}

// componentSlugs is the slugs of every component in s.
func componentSlugs(ctx context.Context, s *store) (map[string]bool, error) {
	raw, err := s.raw(true)
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	rows, err := raw.QueryContext(ctx, `SELECT slug FROM components`)
	if err != nil {
		return nil, fmt.Errorf("components: %w", err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var slug string
		if err := rows.Scan(&slug); err != nil {
			return nil, err
		}
		have[slug] = true
	}
	return have, rows.Err()
}

// copyUnits counts the units of copy i's components in s.
func copyUnits(ctx context.Context, s *store, repos []corpusRepo, i int) (int, error) {
	raw, err := s.raw(true)
	if err != nil {
		return 0, err
	}
	defer raw.Close()
	var slugs []any
	for _, r := range repos {
		slugs = append(slugs, scaleCopySlug(r.slug, i))
	}
	var n int
	err = raw.QueryRowContext(ctx, `SELECT count(*) FROM units u JOIN translations t ON t.id = u.translation_id
		JOIN components c ON c.id = t.component_id
		WHERE c.slug IN (?`+strings.Repeat(", ?", len(slugs)-1)+`)`, slugs...).Scan(&n)
	return n, err
}

// propagationStale reports whether one of spec's components, saved in
// db, allows translation propagation where spec does not (or the other
// way round).
func propagationStale(ctx context.Context, db *sqlstore.DB, spec tolksync.ProjectSpec) (bool, error) {
	for _, want := range spec.Components {
		c, err := db.FindComponent(ctx, spec.Project.Slug, want.Slug)
		if err != nil {
			return false, fmt.Errorf("component %s/%s: %w", spec.Project.Slug, want.Slug, err)
		}
		if c.AllowTranslationPropagation != want.AllowTranslationPropagation {
			return true, nil
		}
	}
	return false, nil
}

// benchScales grows the scale index through every -scale N in turn,
// measuring it at each.
func benchScales(ctx context.Context, cfg config, eng *engine, rep *report, repos []corpusRepo, tmp string, logf func(string, ...any)) error {
	keep := cfg.Keep || cfg.Resume != ""
	dir := filepath.Join(tmp, "scale")
	in, have, err := openScaleIndex(ctx, eng, dir, keep)
	if err != nil {
		return fmt.Errorf("scale index: %w", err)
	}
	defer func() {
		if keep {
			logf("-keep: the scale index is left in %s, its checkouts in %s; -resume %s continues it", in.store.where(), dir, tmp)
		}
		in.Close()
	}()
	if rep.Postgres {
		if rep.Settings, err = eng.settings(ctx); err != nil {
			return err
		}
	}
	top := cfg.Scales[len(cfg.Scales)-1]
	todo, done := scalePlan(have, repos, top)
	if done > 0 {
		// The copy an interruption may have cut short: parses nothing
		// when it is whole, and is not a measurement.
		// done (scalePlan), not len(have)/len(repos): a copy cut short
		// holds some of its components and is not whole.
		logf("scale: the index's last whole copy is %d; re-importing it", done)
		if err := in.svc.Reconcile(ctx, []tolksync.ProjectSpec{scaleCopy(repos, done, cfg.ScaleProjects)}); err != nil {
			return fmt.Errorf("scale: re-import copy %d: %w", done, err)
		}
		// An index kept before the tenth copies stopped propagating
		// (session 13) gets their setting from a Reconcile, which
		// saves each component as the spec says and parses nothing;
		// only once: a copy whose components are all saved so skips
		// its Reconcile (a minute of reading checkouts at 100x).
		for i := 1; i < done; i++ {
			if !scaleIsolated(i, cfg.ScaleProjects) {
				continue
			}
			spec := scaleCopy(repos, i, cfg.ScaleProjects)
			stale, err := propagationStale(ctx, in.db, spec)
			if err != nil {
				return fmt.Errorf("scale: copy %d: %w", i, err)
			}
			if !stale {
				continue
			}
			if err := in.svc.Reconcile(ctx, []tolksync.ProjectSpec{spec}); err != nil {
				return fmt.Errorf("scale: re-import copy %d: %w", i, err)
			}
		}
	}
	from := 0
	for _, n := range cfg.Scales {
		var step []int
		for _, i := range todo {
			if i > from && i <= n {
				step = append(step, i)
			}
		}
		res := &scaleResult{Copies: n, From: from, Projects: min(n, cfg.ScaleProjects), Skipped: n - from - len(step)}
		rep.Scales = append(rep.Scales, res)
		if err := benchScaleStep(ctx, cfg, eng, in, repos, step, res, logf); err != nil {
			return err
		}
		from = n
	}
	return nil
}

// benchScaleStep imports the copies step into the scale index and
// measures it: the import copy by copy, the trigram index after it, the
// index's size, read latency with the page caches on (as served) and off
// (every page read from the database), and edit latency.
func benchScaleStep(ctx context.Context, cfg config, eng *engine, in *instance, repos []corpusRepo, step []int, res *scaleResult, logf func(string, ...any)) error {
	logf("scale: %dx the corpus: %d copies to import", res.Copies, len(step))
	resetOK := resetPeakRSS()
	res.Import.PeakRSSNote = "VmHWM, reset before the step's import"
	if !resetOK {
		res.Import.PeakRSSNote = "VmHWM since process start (clear_refs not writable)"
	}
	before, err := eng.walMark(ctx)
	if err != nil {
		return err
	}
	err = cfg.cpuProfile(fmt.Sprintf("scale%d-import", res.Copies))(func() error {
		for _, i := range step {
			start, cpu, server, io := time.Now(), cpuSeconds(), eng.serverCPU(), eng.ioMark(ctx)
			if err := in.svc.Reconcile(ctx, []tolksync.ProjectSpec{scaleCopy(repos, i, cfg.ScaleProjects)}); err != nil {
				return fmt.Errorf("scale import of copy %d: %w", i, err)
			}
			ci := copyImport{Copy: i, Sec: time.Since(start).Seconds(), CPU: cpuSeconds() - cpu, ServerCPU: -1, IO: eng.ioSince(ctx, io)}
			if server >= 0 {
				ci.ServerCPU = eng.serverCPU() - server
			}
			var err error
			if ci.Units, err = copyUnits(ctx, in.store, repos, i); err != nil {
				return err
			}
			res.PerCopy = append(res.PerCopy, ci)
			res.Added += ci.Units
			res.Import.FullSec += ci.Sec
			res.Import.FullCPU += ci.CPU
			logf("scale: copy %d: %d units in %.1f s (%.0f units/s), CPU %.1f s Tolk, %.1f s server; %s", i, ci.Units, ci.Sec,
				float64(ci.Units)/ci.Sec, ci.CPU, ci.ServerCPU, ci.IO)
		}
		return nil
	})
	res.Import.PeakRSS = peakRSS()
	if err != nil {
		return err
	}
	if res.WAL, err = eng.walSince(ctx, before); err != nil {
		return err
	}
	cpu, server, io := cpuSeconds(), eng.serverCPU(), eng.ioMark(ctx)
	took, err := in.db.IndexTrigrams(ctx)
	if err != nil {
		return fmt.Errorf("trigram index after the import: %w", err)
	}
	res.Import.TrigramSec = took.Seconds()
	res.Trigram = copyImport{Units: res.Added, Sec: took.Seconds(), CPU: cpuSeconds() - cpu, ServerCPU: -1, IO: eng.ioSince(ctx, io)}
	if server >= 0 {
		res.Trigram.ServerCPU = eng.serverCPU() - server
	}
	logf("scale: %dx: trigram index in %.1f s, CPU %.1f s Tolk, %.1f s server; %s", res.Copies, res.Import.TrigramSec,
		res.Trigram.CPU, res.Trigram.ServerCPU, res.Trigram.IO)
	if err := cfg.heapProfile(fmt.Sprintf("scale%d-import", res.Copies)); err != nil {
		return err
	}
	var slugs []string
	for i := 1; i <= min(res.Copies, cfg.ScaleProjects); i++ {
		slugs = append(slugs, scaleProject(i))
	}
	if err := cfg.cpuProfile(fmt.Sprintf("scale%d-reimport", res.Copies))(func() error {
		return reimportAll(ctx, in, slugs, &res.Import)
	}); err != nil {
		return err
	}
	logf("scale: %dx: re-import of %d projects unchanged in %.2f s, CPU %.2f s, waiting for a CPU %.2f s", res.Copies, len(slugs),
		res.Import.ReimportSec, res.Import.ReimportCPU, res.Import.ReimportWait)
	if res.Tables, err = in.store.tableSizes(ctx); err != nil {
		return err
	}

	logf("scale: %dx reads", res.Copies)
	if err := fillChangesPage(ctx, in, res.Copies); err != nil {
		return err
	}
	// Latency is what should not grow: one client, no queueing.
	lo := loadOptions{Concurrency: []int{1}, Duration: cfg.Duration, MaxRequests: cfg.MaxRequests}
	eps := scaleEndpoints(scaleProject(1), scaleCopySlug("jellyfin", 1), loadLanguage)
	if res.Load, err = runLoad(ctx, in.db, eps, lo); err != nil {
		return fmt.Errorf("scale reads: %w", err)
	}
	// The same without the page caches: what the database does per
	// request, which the cached figures hide.
	if err := in.db.Close(); err != nil {
		return err
	}
	if in.db, err = in.store.openWith(ctx, sqlstore.NoPageCache); err != nil {
		return err
	}
	if err := cfg.stmtWatch(ctx, eng, fmt.Sprintf("scale%d-uncached", res.Copies), func() error {
		return cfg.cpuProfile(fmt.Sprintf("scale%d-uncached", res.Copies))(func() error {
			res.Uncached, err = runLoad(ctx, in.db, eps, lo)
			return err
		})
	}); err != nil {
		return fmt.Errorf("scale reads without the page cache: %w", err)
	}
	if err := in.db.Close(); err != nil {
		return err
	}
	if in.db, err = in.store.open(ctx); err != nil {
		return err
	}
	// The service holds the index it was made with: a new one on the
	// reopened index, for the next step's imports.
	if err := in.svc.Close(); err != nil {
		return err
	}
	if in.svc, err = tolksync.New(in.db, langdata.Default(), tolksync.Options{DataDir: in.dir}); err != nil {
		return err
	}
	logf("scale: %dx writes", res.Copies)
	if err := cfg.cpuProfile(fmt.Sprintf("scale%d-writes", res.Copies))(func() error {
		watch := func(suffix string, fn func() error) error {
			return cfg.stmtWatch(ctx, eng, fmt.Sprintf("scale%d-writes%s", res.Copies, suffix), fn)
		}
		res.Writes, err = scaleWrites(ctx, cfg, in, repos, res.Copies, watch)
		return err
	}); err != nil {
		return fmt.Errorf("scale writes: %w", err)
	}
	res.PeakRSS = peakRSS()
	if res.DBBytesAfter, err = in.store.size(ctx); err != nil {
		return err
	}
	return nil
}

// serverSettings are the PostgreSQL settings a big import depends on,
// reported beside the scale figures (docs/postgresql.md says what to set
// them to).
var serverSettings = []string{"shared_buffers", "effective_cache_size", "maintenance_work_mem", "work_mem",
	"max_wal_size", "checkpoint_timeout", "wal_compression", "full_page_writes", "fsync", "synchronous_commit",
	"autovacuum", "autovacuum_vacuum_cost_limit", "max_connections"}

// settings is the server's value of each of serverSettings, as SHOW
// writes it ("128MB").
func (e *engine) settings(ctx context.Context) ([]string, error) {
	var out []string
	for _, name := range serverSettings {
		var v string
		if err := e.admin.QueryRowContext(ctx, `SELECT current_setting($1)`, name).Scan(&v); err != nil {
			return nil, fmt.Errorf("setting %s: %w", name, err)
		}
		out = append(out, name+" "+v)
	}
	return out, nil
}

// walStats is what PostgreSQL's write-ahead log did over a step's
// import: bytes written, checkpoints (requested: max_wal_size was
// reached; timed: checkpoint_timeout), and pg_wal's size at the end
// (-1 where the role may not list it).
type walStats struct {
	Bytes              int64
	Requested, Timed   int64
	DirBytes           int64
	postgres           bool
	lsn                string
	requested0, timed0 int64
	statsErr           string
}

// walMark is the log's position and checkpoint counters now (nothing on
// SQLite, whose log the checkpointer keeps under 64 MiB).
func (e *engine) walMark(ctx context.Context) (walStats, error) {
	if !e.postgres() {
		return walStats{}, nil
	}
	w := walStats{postgres: true}
	if err := e.admin.QueryRowContext(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&w.lsn); err != nil {
		return w, fmt.Errorf("wal position: %w", err)
	}
	// PostgreSQL 17 moved the counters to pg_stat_checkpointer.
	if err := e.admin.QueryRowContext(ctx, `SELECT checkpoints_req, checkpoints_timed FROM pg_stat_bgwriter`).
		Scan(&w.requested0, &w.timed0); err != nil {
		w.statsErr = err.Error()
	}
	return w, nil
}

// walSince is what the log did since mark.
func (e *engine) walSince(ctx context.Context, mark walStats) (walStats, error) {
	if !mark.postgres {
		return mark, nil
	}
	w := mark
	if err := e.admin.QueryRowContext(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint`, mark.lsn).
		Scan(&w.Bytes); err != nil {
		return w, fmt.Errorf("wal written: %w", err)
	}
	if mark.statsErr == "" {
		var req, timed int64
		if err := e.admin.QueryRowContext(ctx, `SELECT checkpoints_req, checkpoints_timed FROM pg_stat_bgwriter`).
			Scan(&req, &timed); err == nil {
			w.Requested, w.Timed = req-mark.requested0, timed-mark.timed0
		}
	}
	if err := e.admin.QueryRowContext(ctx, `SELECT coalesce(sum(size), 0)::bigint FROM pg_ls_waldir()`).Scan(&w.DirBytes); err != nil {
		w.DirBytes = -1
	}
	return w, nil
}

// tableSize is one table of the index, or on SQLite one table or index
// (dbstat), with what it takes.
type tableSize struct {
	Name                string
	Total               int64 // PostgreSQL: pg_total_relation_size (heap, indexes, TOAST)
	Indexes, Toast      int64
	LiveRows, DeadRows  int64 // PostgreSQL's statistics (estimates)
	BiggestIndex        string
	BiggestIndexBytes   int64
	DatabaseBytesMarker bool // the row is the whole database (pg_database_size, or file + WAL)
}

// tableSizes lists what the index's tables take, the biggest first, with
// the database's total as the first row.
func (s *store) tableSizes(ctx context.Context) ([]tableSize, error) {
	if s.schema == "" {
		total, err := s.size(ctx)
		if err != nil {
			return nil, err
		}
		out := []tableSize{{Name: "file + WAL", Total: total, DatabaseBytesMarker: true}}
		raw, err := s.raw(true)
		if err != nil {
			return nil, err
		}
		defer raw.Close()
		// dbstat, where the driver has it: per table and index.
		rows, err := raw.QueryContext(ctx, `SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 16`)
		if err != nil {
			return out, nil
		}
		defer rows.Close()
		for rows.Next() {
			var t tableSize
			if err := rows.Scan(&t.Name, &t.Total); err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, rows.Err()
	}
	var db int64
	if err := s.e.admin.QueryRowContext(ctx, `SELECT pg_database_size(current_database())`).Scan(&db); err != nil {
		return nil, err
	}
	out := []tableSize{{Name: "database (every schema)", Total: db, DatabaseBytesMarker: true}}
	rows, err := s.e.admin.QueryContext(ctx, `SELECT c.relname, pg_total_relation_size(c.oid), pg_indexes_size(c.oid),
			coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0),
			coalesce(st.n_live_tup, 0), coalesce(st.n_dead_tup, 0),
			coalesce(bi.relname, ''), coalesce(pg_relation_size(bi.oid), 0)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_stat_user_tables st ON st.relid = c.oid
		LEFT JOIN LATERAL (SELECT i.oid, i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
			WHERE x.indrelid = c.oid ORDER BY pg_relation_size(i.oid) DESC LIMIT 1) bi ON true
		WHERE n.nspname = $1 AND c.relkind = 'r'
		ORDER BY 2 DESC LIMIT 12`, s.schema)
	if err != nil {
		return nil, fmt.Errorf("table sizes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t tableSize
		if err := rows.Scan(&t.Name, &t.Total, &t.Indexes, &t.Toast, &t.LiveRows, &t.DeadRows, &t.BiggestIndex,
			&t.BiggestIndexBytes); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// serverCPU is the CPU seconds, user and system, of the PostgreSQL
// server's processes of the database e.url names (its backends and its
// autovacuum workers), when the server runs on this machine (the URL's
// host a socket directory or localhost), so that a step's import can be
// split into Tolk's work and the server's; -1 otherwise. Backends that
// ended since the mark took their seconds with them: the index keeps its
// pool's connections, so the figure is a floor, close to the whole. It
// counts every client of the database: give the run a database of its
// own (createdb), as the runbook does.
func (e *engine) serverCPU() float64 {
	u, err := url.Parse(e.url)
	if err != nil || !e.localServer() {
		return -1
	}
	dbname := strings.TrimPrefix(u.Path, "/")
	if dbname == "" {
		return -1
	}
	// "postgres: USER DATABASE HOST STATE" for a backend,
	// "postgres: autovacuum worker DATABASE" for a worker.
	return e.serverProcCPU(func(f []string) bool {
		backend := len(f) >= 3 && f[2] == dbname && f[1] != "autovacuum"
		worker := len(f) >= 4 && f[1] == "autovacuum" && f[2] == "worker" && f[3] == dbname
		return backend || worker
	})
}

// localServer says whether e.url's server runs on this machine (its host
// a socket directory or localhost), where /proc shows its processes.
func (e *engine) localServer() bool {
	u, err := url.Parse(e.url)
	if err != nil || e.url == "" {
		return false
	}
	host := u.Query().Get("host")
	if host == "" {
		host = u.Hostname()
	}
	return strings.HasPrefix(host, "/") || host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// changesPageSize is the API's default page (api: 50 rows a page).
const changesPageSize = 50

// fillChangesPage edits changesPageSize units of the translation the
// reads measure (scaleEndpoints), so that its changes list's first page
// is full at every step. Without it the 1x step's page held the import's
// one change and the 100x step's 19 (earlier steps' edits propagated
// there): the two latencies compared pages of different work (session
// 11). The edits are the step's own (a new target each time), recorded
// before the reads.
func fillChangesPage(ctx context.Context, in *instance, step int) error {
	t, err := in.db.FindTranslation(ctx, scaleProject(1), scaleCopySlug("jellyfin", 1), loadLanguage)
	if err != nil {
		return fmt.Errorf("the changes page's translation: %w", err)
	}
	uid, _, err := benchUser(ctx, in.db)
	if err != nil {
		return err
	}
	user := index.User{ID: uid}
	raw, err := in.store.raw(true)
	if err != nil {
		return err
	}
	ids, err := func() ([]int64, error) {
		defer raw.Close()
		rows, err := raw.QueryContext(ctx, `SELECT id FROM units u WHERE translation_id = ? AND `+editableUnit+`
			ORDER BY id LIMIT ?`, t.ID, index.PluralSeparator, changesPageSize)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, rows.Err()
	}()
	if err != nil {
		return fmt.Errorf("the changes page's units: %w", err)
	}
	if len(ids) < changesPageSize {
		return fmt.Errorf("the changes page's translation %d has %d editable units, want %d", t.ID, len(ids), changesPageSize)
	}
	for i, id := range ids {
		target := fmt.Sprintf("scale %dx changes page %d", step, i)
		if _, err := in.db.UpdateUnit(ctx, id, index.UserActor(&user), func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
		}); err != nil {
			return fmt.Errorf("the changes page's edit of unit %d: %w", id, err)
		}
	}
	return nil
}

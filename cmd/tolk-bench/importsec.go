package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	jsonfmt "github.com/tolk-project/tolk/formats/json"
	"github.com/tolk-project/tolk/formats/tbx"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	tolksync "github.com/tolk-project/tolk/sync"

	// The insert ceiling talks to SQLite through database/sql directly,
	// with the same driver the index uses (already a dependency).
	_ "modernc.org/sqlite"
)

// importResult is one project's import, timed.
type importResult struct {
	Project      string
	Components   int
	Files        int     // files matching the filemasks
	Units        int     // rows in the units table afterwards
	FullSec      float64 // Reconcile into an empty index: clone, parse, index
	FullCPU      float64 // CPU seconds the process spent on it (all threads; SQLite's work is in-process)
	WriterSec    float64 // of FullSec, the index's writer running write batches (sqlstore.DB.WriterBusy)
	TrigramSec   float64 // the trigram index's upkeep after it, until no unit is left to index
	PeakRSS      int64   // bytes; VmHWM over the full import, 0 if unknown
	PeakRSSNote  string  // how PeakRSS was measured
	ReimportSec  float64 // ImportComponent of every unchanged component
	ReimportCPU  float64 // CPU seconds of the process over ReimportSec
	ReimportWait float64 // seconds its threads waited for a CPU, runnable, over ReimportSec (runWaitSeconds)
	ReimportRead int     // files parsed by the re-import (must be 0)
	DBBytes      int64   // size of the index after the import (SQLite: db + wal; PostgreSQL: the schema's tables)
}

// instance is an imported index and what serves it.
type instance struct {
	dir   string
	db    *sqlstore.DB
	svc   *tolksync.Service
	store *store // where db lives
}

// Close closes the index and drops its store's schema. It may be called
// more than once.
func (in *instance) Close() error {
	var err error
	if in.db != nil {
		err = in.db.Close()
		in.db = nil
	}
	return errors.Join(err, in.store.drop())
}

// openInstance opens a fresh index on e (its checkouts in dir), wired as
// cmd/tolk wires it.
func openInstance(ctx context.Context, e *engine, dir string) (*instance, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	st, err := e.newStore(ctx, dir)
	if err != nil {
		return nil, err
	}
	return openInstanceOn(ctx, st, dir)
}

// openInstanceOn opens the index in st (new or kept) with its checkouts
// in dir, wired as cmd/tolk wires it.
func openInstanceOn(ctx context.Context, st *store, dir string) (*instance, error) {
	in := &instance{dir: dir, store: st}
	var err error
	if in.db, err = in.store.open(ctx); err != nil {
		in.Close()
		return nil, err
	}
	langs := langdata.Default()
	if err := in.db.SeedLanguages(ctx, langs.All()); err != nil {
		in.Close()
		return nil, fmt.Errorf("seed languages: %w", err)
	}
	if in.svc, err = tolksync.New(in.db, langs, tolksync.Options{DataDir: dir}); err != nil {
		in.Close()
		return nil, err
	}
	return in, nil
}

// runImport imports comps as project slug into a fresh index under dir:
// a full import timed with its peak RSS, then a re-import of the
// unchanged repositories that must parse nothing. prof, if not nil,
// wraps the full import (a CPU profile).
func runImport(ctx context.Context, e *engine, dir, slug string, comps []index.Component, prof func(func() error) error) (*instance, importResult, error) {
	return runImportProjects(ctx, e, dir, []tolksync.ProjectSpec{{Project: index.Project{Name: slug, Slug: slug}, Components: comps}}, prof)
}

// runImportProjects is runImport of several projects at once, as one
// Reconcile (as tolk serve's setup file imports them). The trigram
// index is built after it (TrigramSec), as tolk serve's background step
// does (index/sqlstore/trigram_pending.go).
func runImportProjects(ctx context.Context, e *engine, dir string, spec []tolksync.ProjectSpec, prof func(func() error) error) (*instance, importResult, error) {
	var res importResult
	var slugs []string
	for _, p := range spec {
		slugs = append(slugs, p.Project.Slug)
		res.Components += len(p.Components)
	}
	res.Project = strings.Join(slugs, ", ")
	in, err := openInstance(ctx, e, dir)
	if err != nil {
		return nil, res, err
	}

	resetOK := resetPeakRSS()
	start, cpu, busy := time.Now(), cpuSeconds(), in.db.WriterBusy()
	err = prof(func() error { return in.svc.Reconcile(ctx, spec) })
	res.FullSec, res.FullCPU = time.Since(start).Seconds(), cpuSeconds()-cpu
	res.WriterSec = (in.db.WriterBusy() - busy).Seconds()
	res.PeakRSS = peakRSS()
	res.PeakRSSNote = "VmHWM, reset before the import"
	if !resetOK {
		res.PeakRSSNote = "VmHWM since process start (clear_refs not writable)"
	}
	if err != nil {
		in.Close()
		return nil, res, fmt.Errorf("full import: %w", err)
	}
	// The trigram index is written after the import, by a background
	// step (index/sqlstore/trigram_pending.go): its time is the
	// import's too.
	took, err := in.db.IndexTrigrams(ctx)
	if err != nil {
		in.Close()
		return nil, res, fmt.Errorf("trigram index after the import: %w", err)
	}
	res.TrigramSec = took.Seconds()

	if err := reimportAll(ctx, in, slugs, &res); err != nil {
		in.Close()
		return nil, res, err
	}
	return in, res, nil
}

// reimportAll times the re-import of every component of the projects
// slugs (unchanged: it must parse nothing), then counts the units and
// sizes the index, into res.
func reimportAll(ctx context.Context, in *instance, slugs []string, res *importResult) error {
	var saved []index.Component
	for _, slug := range slugs {
		p, err := in.db.FindProject(ctx, slug)
		if err != nil {
			return err
		}
		comps, err := in.db.FindComponents(ctx, p.ID)
		if err != nil {
			return err
		}
		saved = append(saved, comps...)
	}
	res.Files, res.ReimportRead = 0, 0
	start, cpu, wait := time.Now(), cpuSeconds(), runWaitSeconds()
	for _, c := range saved {
		sum, err := in.svc.ImportComponent(ctx, c)
		if err != nil {
			return fmt.Errorf("re-import %s: %w", c.Slug, err)
		}
		res.Files += sum.Files
		res.ReimportRead += sum.Parsed
	}
	res.ReimportSec = time.Since(start).Seconds()
	res.ReimportCPU, res.ReimportWait = cpuSeconds()-cpu, runWaitSeconds()-wait

	raw, err := in.store.raw(true)
	if err != nil {
		return err
	}
	defer raw.Close()
	if err := raw.QueryRowContext(ctx, `SELECT count(*) FROM units`).Scan(&res.Units); err != nil {
		return fmt.Errorf("count units: %w", err)
	}
	if res.DBBytes, err = in.store.size(ctx); err != nil {
		return fmt.Errorf("index size: %w", err)
	}
	return nil
}

// openRaw opens an SQLite file through database/sql with the index's
// pragmas (WAL, synchronous=NORMAL, 64 MiB cache), nothing else.
func openRaw(path string, readOnly bool) (*sql.DB, error) {
	q := url.Values{}
	if readOnly {
		q.Set("mode", "ro")
	}
	return openSQLite(path, q)
}

// openSQLite opens path on one connection with the index's pragmas and
// the DSN parameters of q.
func openSQLite(path string, q url.Values) (*sql.DB, error) {
	for _, p := range []string{"journal_mode(WAL)", "busy_timeout(10000)", "synchronous(NORMAL)",
		"cache_size(-65536)", "temp_store(MEMORY)"} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// ceilings is what the import could cost at best, measured in the same
// run: the formats alone over every file, and SQLite alone over the rows
// the import wrote.
type ceilings struct {
	ParseSec   float64
	ParseCPU   float64 // CPU seconds, as importResult.FullCPU
	ParseFiles int
	ParseUnits int   // units the parsers returned
	ParseBytes int64 // bytes parsed
	InsertSec  float64
	InsertCPU  float64 // 0 on PostgreSQL, whose work is the server's
	InsertRows int
}

// parseCeiling parses every file of every repository with the formats
// alone: the bytes are read into memory first, so only Decode and Units
// are timed (no git, no index).
func parseCeiling(repos []corpusRepo) (ceilings, error) {
	var c ceilings
	type file struct {
		repo corpusRepo
		path string
		data []byte
	}
	var files []file
	for _, r := range repos {
		for _, p := range r.files {
			data, err := os.ReadFile(filepath.Join(r.dir, p))
			if err != nil {
				return c, err
			}
			files = append(files, file{r, p, data})
			c.ParseBytes += int64(len(data))
		}
	}
	start, cpu := time.Now(), cpuSeconds()
	for _, f := range files {
		switch f.repo.format {
		case "json":
			jf, err := jsonfmt.Decode(bytes.NewReader(f.data))
			if err != nil {
				return c, fmt.Errorf("%s: %w", f.path, err)
			}
			c.ParseUnits += len(jf.Units())
		case "tbx":
			tf, err := tbx.Decode(bytes.NewReader(f.data))
			if err != nil {
				return c, fmt.Errorf("%s: %w", f.path, err)
			}
			c.ParseUnits += len(tf.Units(f.repo.source, langOf(f.path)))
		default:
			return c, fmt.Errorf("%s: unknown format %q", f.path, f.repo.format)
		}
		c.ParseFiles++
	}
	c.ParseSec, c.ParseCPU = time.Since(start).Seconds(), cpuSeconds()-cpu
	return c, nil
}

// unitRow is one row of the units table as the import wrote it: every
// column the import sets, so the ceiling writes rows of the same width.
type unitRow struct {
	translationID, position          int64
	context, source, target          string
	idHash, contentHash              int64
	location, note, flags, explainer string
	state, words, chars              int64
	timestamp                        string
}

// insertCeiling reads back the rows the import wrote to src and times
// the engine's best way of writing them into a bare table (no index, no
// constraint, no trigger), in one transaction, only that timed: on
// SQLite one prepared INSERT into a table of a new file in dir, on
// PostgreSQL COPY into a table of src's schema.
func insertCeiling(ctx context.Context, src *store, dir string) (sec, cpu float64, rows int, err error) {
	all, err := readUnitRows(ctx, src)
	if err != nil {
		return 0, 0, 0, err
	}
	if src.schema != "" {
		sec, err = copyCeiling(ctx, src, all)
	} else {
		sec, cpu, err = sqliteInsertCeiling(ctx, filepath.Join(dir, "ceiling.db"), all)
	}
	return sec, cpu, len(all), err
}

// unitColumns are the units columns the import sets, in unitRow's order.
var unitColumns = []string{"translation_id", "position", "context", "source", "target", "id_hash",
	"content_hash", "location", "note", "flags", "explanation", "state", "num_words", "num_chars", "timestamp"}

// bareUnitsTable creates name with unitColumns and nothing else, in SQL
// both engines take.
func bareUnitsTable(name string) string {
	return `CREATE TABLE ` + name + ` (translation_id BIGINT, position BIGINT,
		context TEXT, source TEXT, target TEXT, id_hash BIGINT, content_hash BIGINT, location TEXT,
		note TEXT, flags TEXT, explanation TEXT, state BIGINT, num_words BIGINT, num_chars BIGINT,
		timestamp TEXT)`
}

func (r *unitRow) values() []any {
	return []any{r.translationID, r.position, r.context, r.source, r.target, r.idHash, r.contentHash,
		r.location, r.note, r.flags, r.explainer, r.state, r.words, r.chars, r.timestamp}
}

// readUnitRows reads every row of the units table of src.
func readUnitRows(ctx context.Context, src *store) ([]unitRow, error) {
	in, err := src.raw(true)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	rs, err := in.QueryContext(ctx, `SELECT `+strings.Join(unitColumns, ", ")+` FROM units`)
	if err != nil {
		return nil, fmt.Errorf("read units: %w", err)
	}
	var all []unitRow
	for rs.Next() {
		var r unitRow
		if err := rs.Scan(&r.translationID, &r.position, &r.context, &r.source, &r.target, &r.idHash,
			&r.contentHash, &r.location, &r.note, &r.flags, &r.explainer, &r.state, &r.words, &r.chars,
			&r.timestamp); err != nil {
			rs.Close()
			return nil, fmt.Errorf("read units: %w", err)
		}
		all = append(all, r)
	}
	if err := errors.Join(rs.Err(), rs.Close()); err != nil {
		return nil, fmt.Errorf("read units: %w", err)
	}
	return all, nil
}

// sqliteInsertCeiling inserts all into a bare table of a new SQLite file
// at path with one prepared INSERT in one transaction, timed.
func sqliteInsertCeiling(ctx context.Context, path string, all []unitRow) (sec, cpu float64, err error) {
	out, err := openRaw(path, false)
	if err != nil {
		return 0, 0, err
	}
	defer out.Close()
	if _, err := out.ExecContext(ctx, bareUnitsTable("units")); err != nil {
		return 0, 0, fmt.Errorf("create bare table: %w", err)
	}
	debug.FreeOSMemory()
	start, cpu0 := time.Now(), cpuSeconds()
	tx, err := out.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO units VALUES (?`+strings.Repeat(", ?", len(unitColumns)-1)+`)`)
	if err != nil {
		return 0, 0, err
	}
	for i := range all {
		if _, err := stmt.ExecContext(ctx, all[i].values()...); err != nil {
			return 0, 0, fmt.Errorf("insert: %w", err)
		}
	}
	if err := stmt.Close(); err != nil {
		return 0, 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, err
	}
	return time.Since(start).Seconds(), cpuSeconds() - cpu0, nil
}

// copyCeiling writes all into a bare table of src's schema with COPY
// (pgx's CopyFrom, binary) in one transaction, timed: PostgreSQL's
// fastest way in.
func copyCeiling(ctx context.Context, src *store, all []unitRow) (float64, error) {
	db, err := src.raw(false)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, bareUnitsTable("ceiling_units")); err != nil {
		return 0, fmt.Errorf("create bare table: %w", err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var sec float64
	err = conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		debug.FreeOSMemory()
		start := time.Now()
		tx, err := pc.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		n, err := tx.CopyFrom(ctx, pgx.Identifier{"ceiling_units"}, unitColumns,
			pgx.CopyFromSlice(len(all), func(i int) ([]any, error) { return all[i].values(), nil }))
		if err != nil {
			return fmt.Errorf("copy: %w", err)
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		sec = time.Since(start).Seconds()
		if n != int64(len(all)) {
			return fmt.Errorf("copy: %d rows of %d", n, len(all))
		}
		return nil
	})
	return sec, err
}

// resetPeakRSS returns freed heap to the OS and resets the kernel's
// peak-RSS mark (VmHWM), so the next peakRSS covers only what follows.
// It reports false where /proc/self/clear_refs cannot be written.
func resetPeakRSS() bool {
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// cpuSeconds is the CPU time, user and system, the process has used so
// far (0 where getrusage fails). On a machine others load, a step's CPU
// seconds move far less than its wall time: the import against its
// ceiling is compared on both.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// runWaitSeconds is how long the process's threads have waited on a
// run queue, runnable but not running (the second field of each
// /proc/self/task/*/schedstat), 0 off Linux: on a loaded machine the
// wall time a phase spends beside its CPU seconds, where the rest is
// waiting on something (a lock, a timer, the disk). Threads that ended
// took theirs with them; Go's rarely end.
func runWaitSeconds() float64 {
	tasks, err := filepath.Glob("/proc/self/task/*/schedstat")
	if err != nil {
		return 0
	}
	var ns int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) >= 2 {
			if v, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				ns += v
			}
		}
	}
	return time.Duration(ns).Seconds()
}

// peakRSS is VmHWM from /proc/self/status in bytes, or 0 off Linux.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

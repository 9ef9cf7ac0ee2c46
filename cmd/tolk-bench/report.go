package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// report is everything one run measured.
type report struct {
	Date        time.Time
	Command     string
	Commit      string
	Machine     []string
	LoadBefore  string
	Quick       bool
	Engine      string        // the index's engine and where it ran
	Settings    []string      // PostgreSQL: the server's settings an import depends on (scale section)
	Postgres    bool          // the engine is PostgreSQL (-db)
	RoundTrip   time.Duration // median of a trivial statement on the engine
	PprofDir    string
	Duration    time.Duration
	MaxRequests int
	Corpus      []string

	Import   *importResult
	Ceilings *ceilings
	Load     []loadPoint
	Profiled string // endpoint profiled with -pprof
	Writes   *writesResult
	Mixed    *mixedResult
	Web      *webResult
	Search   *searchResult
	// Wrk is the wrk section; WrkFailure why it did not run.
	Wrk        []wrkPoint
	WrkFailure string
	Git        *gitResult
	Monorepo   *monorepoResult
	Formats    *formatsResult
	Scales     []*scaleResult // one per -scale N, in order: the steps of one growing index
	Memory     *memoryResult
}

// scaleResult is one step of the scale section: the index grown from
// From copies of the corpus to Copies, over Projects projects.
type scaleResult struct {
	Copies, Projects int
	From             int // copies in the index before the step
	Skipped          int // copies of the step already in the index (-resume)
	// Import: Units is the index's after the step, FullSec and FullCPU
	// the step's imports, PeakRSS over them; Added the units they added.
	Import       importResult
	Added        int
	PerCopy      []copyImport // the step's imports, copy by copy
	Trigram      copyImport   // the trigram index's build after them (Units: the units the step added)
	WAL          walStats     // PostgreSQL's log over the step's imports
	Tables       []tableSize  // after the import and its trigram index: the database, then its biggest tables
	Load         []loadPoint  // concurrency 1, page caches on
	Uncached     []loadPoint  // the same with the page caches off
	Writes       []writePoint // unit PATCHes at concurrency 1 and 8
	PeakRSS      int64        // VmHWM after the reads and writes (since the import's reset)
	DBBytesAfter int64        // the index's size after the writes
}

func newReport(cfg config) *report {
	return &report{
		Date:        time.Now().UTC(),
		Command:     strings.TrimSpace("go run ./cmd/tolk-bench " + strings.Join(redactArgs(cfg.Args), " ")),
		Commit:      gitDescribe(),
		Machine:     machine(),
		LoadBefore:  loadAvg(),
		Quick:       cfg.Quick,
		PprofDir:    cfg.PprofDir,
		Duration:    cfg.Duration,
		MaxRequests: cfg.MaxRequests,
	}
}

// redactArgs returns args with the password of -db's URL left out.
func redactArgs(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		switch {
		case (a == "-db" || a == "--db") && i+1 < len(out):
			out[i+1] = redactURL(out[i+1])
		case strings.HasPrefix(a, "-db=") || strings.HasPrefix(a, "--db="):
			k, v, _ := strings.Cut(a, "=")
			out[i] = k + "=" + redactURL(v)
		}
	}
	return out
}

// gitDescribe names the commit measured, marked dirty when the work tree
// differs from it.
func gitDescribe() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty", "--abbrev=12").Output()
	if err != nil {
		return "unknown (not a git checkout)"
	}
	return strings.TrimSpace(string(out))
}

// machine describes where the numbers came from.
func machine() []string {
	cpu := "unknown"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := "unknown"
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				mem = fmtBytes(kb << 10)
			}
		}
	}
	osName := runtime.GOOS + "/" + runtime.GOARCH
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		osName += ", kernel " + strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
				osName += ", " + strings.Trim(v, `"`)
			}
		}
	}
	return []string{
		fmt.Sprintf("CPUs: %d (nproc), GOMAXPROCS %d; %s", runtime.NumCPU(), runtime.GOMAXPROCS(0), cpu),
		"Memory: " + mem,
		"Go: " + runtime.Version(),
		"OS: " + osName,
	}
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// Markers delimit the generated part of BENCHMARKS.md; text outside them
// (notes, profiles, before/after) survives the next run. A PostgreSQL
// run (-db) writes a block of its own, so that the file keeps the figures
// of both engines.
const (
	beginMarker   = "<!-- tolk-bench:begin (generated; edit outside these markers) -->"
	endMarker     = "<!-- tolk-bench:end -->"
	pgBeginMarker = "<!-- tolk-bench:begin postgres (generated; edit outside these markers) -->"
	pgEndMarker   = "<!-- tolk-bench:end postgres -->"
)

// writeReport puts md between the markers of path (PostgreSQL's when
// postgres), creating the file when it does not exist. A file without
// the markers gets the block first, under a title, or with postgres at
// its end, after the SQLite run's block.
func writeReport(path, md string, postgres bool) error {
	begin, end := beginMarker, endMarker
	if postgres {
		begin, end = pgBeginMarker, pgEndMarker
	}
	block := begin + "\n" + md + end + "\n"
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var out []byte
	i, j := bytes.Index(old, []byte(begin)), bytes.Index(old, []byte(end))
	switch {
	case i >= 0 && j > i:
		out = append(append(append(out, old[:i]...), block...), bytes.TrimPrefix(old[j+len(end):], []byte("\n"))...)
	case postgres && len(old) > 0:
		out = append(append(append(out, bytes.TrimRight(old, "\n")...), "\n\n"...), block...)
	default:
		out = append([]byte("# Benchmarks\n\nMeasured with `go run ./cmd/tolk-bench` (see README.md). The block between the markers\nis rewritten by each run; notes outside it are kept.\n\n"), block...)
		if len(old) > 0 {
			out = append(append(out, '\n'), old...)
		}
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// Markdown renders the report.
func (r *report) Markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("## Run of %s\n\n", r.Date.Format("2006-01-02 15:04 MST"))
	w("- Command: `%s`\n", r.Command)
	w("- Commit: `%s`\n", r.Commit)
	if r.Engine != "" {
		w("- Index engine: %s\n", r.Engine)
	}
	if len(r.Settings) > 0 {
		w("- Server settings (docs/postgresql.md: what a big import wants): %s\n", strings.Join(r.Settings, ", "))
	}
	if r.RoundTrip > 0 {
		w("- One statement (`SELECT 1`, prepared, one connection, median of %d): %s, the least any statement of the "+
			"index costs on this engine; an edit's write transaction runs about 20, an import several per unit\n",
			roundTrips, fmtDur(r.RoundTrip))
	}
	if r.Postgres {
		w("- On PostgreSQL every statement is a round trip to the server process (here over a local socket) where " +
			"SQLite's is a call within Tolk's; a read that the index's caches could answer first asks write_log " +
			"whether another process wrote (one indexed read); each write transaction takes the advisory write lock " +
			"and appends to write_log; reads that span several queries run in REPEATABLE READ transactions. " +
			"Peak RSS is Tolk's alone: the server's memory is not in it. " +
			"Compare with the SQLite run of the same commit on the same machine.\n")
	}
	for _, m := range r.Machine {
		w("- %s\n", m)
	}
	w("- Load average at start: %s (other work on the machine makes every number noisy; compare ratios measured in one run)\n", r.LoadBefore)
	if len(r.Corpus) > 0 {
		w("- Load points: %s each, at most %s requests", r.Duration, fmtInt(r.MaxRequests))
		if r.Quick {
			w("; **-quick**: %d files per corpus, numbers only prove the tool works", quickFiles+2)
		}
		w("\n- Corpus: %s\n", strings.Join(r.Corpus, ", "))
	} else if r.Quick {
		w("- **-quick**: numbers only prove the tool works\n")
	}
	w("\n")

	if r.Import != nil {
		w("### Import\n\n")
		r.importTable(&b)
	}
	if len(r.Load) > 0 {
		w("### Reads under load\n\n")
		w("Real API (`api.New` over the imported index) and its ceiling (gin answering a pre-built body of the same size) on 127.0.0.1, Go client in the same process; each point alternates endpoint and ceiling in 4 rounds so that other load on the machine falls on both. Latency is send to last body byte. The index keeps pages read since the last write (its page cache), so the repeated units and changes pages are served from memory; \"every page in turn\" requests each units page of every translation of the component in order (thousands of pages, more than the cache holds), so it measures pages read from %s, against the ceiling of its first page's size.\n\n", r.engineName())
		loadTable(&b, r.Load)
		if r.Profiled != "" {
			w("\nCPU profile of the slowest endpoint (%s, concurrency 8): `reads-slowest.cpu.pprof`.\n", r.Profiled)
		}
		w("\n")
	}
	if len(r.Wrk) > 0 || r.WrkFailure != "" {
		w("### Reads under wrk\n\n")
		wrkTable(&b, r.Wrk, r.WrkFailure)
	}
	if r.Git != nil {
		w("### Git (issue 10)\n\n")
		gitTable(&b, r.Git, r.PprofDir != "")
	}
	if r.Monorepo != nil {
		w("### Monorepo: %s files outside the filemask\n\n", fmtInt(r.Monorepo.Files))
		monorepoTable(&b, r.Monorepo)
	}
	if r.Writes != nil {
		w("### Writes under load\n\n")
		writesTable(&b, r.Writes, r.PprofDir != "", r.Postgres)
	}
	if r.Mixed != nil {
		w("### Reads while writing\n\n")
		mixedTable(&b, r.Mixed)
	}
	if r.Search != nil {
		w("### Search (issue 27)\n\n")
		searchTable(&b, r.Search, r.Postgres)
	}
	if r.Web != nil {
		w("### Pages and the editor (issue 16)\n\n")
		webTable(&b, r.Web)
	}
	for _, sc := range r.Scales {
		w("### Scale: %d× the corpus\n\n", sc.Copies)
		r.scaleTable(&b, sc)
	}
	if r.Memory != nil {
		w("### Translation memory: %d× the corpus (issue 29)\n\n", r.Memory.Copies)
		memoryTable(&b, r.Memory)
	}
	if r.Formats != nil {
		w("### Formats: Decode and one edit's Apply\n\n")
		formatsTable(&b, r.Formats, r.PprofDir)
	}
	return b.String()
}

func (r *report) importTable(b *strings.Builder) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	im, c := r.Import, r.Ceilings
	w("| step | seconds | work | units/s | notes |\n|---|---:|---:|---:|---|\n")
	w("| full import: clone + parse + index (%d components, %d files) | %.2f | %s units | %s | peak RSS %s (%s); index %s; the writer busy %.2f s (%.0f%%) |\n",
		im.Components, im.Files, im.FullSec, fmtInt(im.Units), fmtRate(im.Units, im.FullSec),
		fmtBytes(im.PeakRSS), im.PeakRSSNote, fmtBytes(im.DBBytes), im.WriterSec, pct(im.WriterSec, im.FullSec))
	w("| trigram index of the imported units, after the import (the background step, timed to its end) | %.2f | %s units | %s | searches read the units not indexed yet exactly meanwhile |\n",
		im.TrigramSec, fmtInt(im.Units), fmtRate(im.Units, im.TrigramSec))
	w("| re-import, repositories unchanged | %.3f | %d files parsed | | **%.1f%% of full** (target < 5%%) |\n",
		im.ReimportSec, im.ReimportRead, pct(im.ReimportSec, im.FullSec))
	if c != nil {
		w("| ceiling (a): parse only, formats alone (%d files, %s in memory) | %.2f | %s parsed units | %s | |\n",
			c.ParseFiles, fmtBytes(c.ParseBytes), c.ParseSec, fmtInt(c.ParseUnits), fmtRate(c.ParseUnits, c.ParseSec))
		how := "inserted"
		if r.Postgres {
			how = "COPYed (pgx CopyFrom)"
		}
		w("| ceiling (b): insert only, the same rows %s into a bare table, one transaction | %.2f | %s rows | %s | |\n",
			how, c.InsertSec, fmtInt(c.InsertRows), fmtRate(c.InsertRows, c.InsertSec))
		sum := c.ParseSec + c.InsertSec
		w("| ceiling (a) + (b) | %.2f | %s rows | %s | **full import = %.1f× ceiling** (target ≤ 2×); with the trigram index after it %.1f× |\n",
			sum, fmtInt(c.InsertRows), fmtRate(c.InsertRows, sum), ratio(im.FullSec, sum), ratio(im.FullSec+im.TrigramSec, sum))
		if !r.Postgres && c.ParseCPU+c.InsertCPU > 0 {
			// The same comparison in CPU seconds, which another load
			// on the machine stretches far less than wall time; the
			// import's include its other threads (the checks of a new
			// translation run beside its insert), which a quiet 2-core
			// machine overlaps in wall time.
			w("| CPU seconds: full import %.2f, ceiling (a) + (b) %.2f (%.2f + %.2f) | | | | **full import = %.1f× ceiling in CPU** |\n",
				im.FullCPU, c.ParseCPU+c.InsertCPU, c.ParseCPU, c.InsertCPU, ratio(im.FullCPU, c.ParseCPU+c.InsertCPU))
		}
	}
	w("\n")
}

func loadTable(b *strings.Builder, points []loadPoint) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("| endpoint | bytes | conc | req/s | p50 | p99 | ceiling req/s | ceiling p50 | ceiling p99 | %% of ceiling |\n")
	w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range points {
		name := p.Endpoint + " `" + p.Path + "`"
		switch {
		case p.Err != "":
			w("| %s | | %d | error: %s | | | | | | |\n", name, p.Concurrency, strings.ReplaceAll(p.Err, "|", "/"))
		case p.NA:
			w("| %s | | %d | n/a (404: not served by this build) | | | | | | |\n", name, p.Concurrency)
		default:
			w("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %.0f%% |\n", name, fmtInt(p.Bytes), p.Concurrency,
				fmtInt(int(p.Real.RPS+0.5)), fmtDur(p.Real.P50), fmtDur(p.Real.P99),
				fmtInt(int(p.Ceil.RPS+0.5)), fmtDur(p.Ceil.P50), fmtDur(p.Ceil.P99), p.PctOfCeiling())
		}
	}
}

// engineName is the index's engine in a sentence.
func (r *report) engineName() string {
	if r.Postgres {
		return "PostgreSQL"
	}
	return "SQLite"
}

func writesTable(b *strings.Builder, wr *writesResult, profiled, postgres bool) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("Unit edits: `PATCH /api/units/<id>/` with `{\"target\": [...], \"state\": ...}` and a superuser's token, "+
		"through the real API (`api.New` over the 1× index, after the reads) on 127.0.0.1, Go client in the same process. "+
		"Each edit picks one of the %d non-source translations at random, then one of up to %d of its units "+
		"(%s in all; read-only and plural units aside), and sends a target never sent before with the state "+
		"alternating between translated (20) and needs editing (10): every edit changes its unit, records a change "+
		"and moves the statistics of 5 scopes. Latency is send to last body byte; every transport error and "+
		"every answer but a 200 is an error.\n\n", wr.Translations, unitsPerTranslation, fmtInt(wr.Units))
	statements := "the clock guard, the unit, translation and scope reads, the unit UPDATE, the change INSERT with its " +
		"author lookup and 5 last-change upserts, the contributor check, 5 statistics upserts, COMMIT"
	if postgres {
		w("Ceilings: the statements of that edit's write transaction (`sqlstore.DB.UpdateUnit`: BEGIN, the "+
			"index's advisory write lock `pg_advisory_xact_lock`, %s) run straight through database/sql on pgx, "+
			"one connection, on a copy of the index in a second schema (made by the migrations, so with the same "+
			"indexes and list_counts triggers; rows copied): no HTTP, authentication or rules, and no write_log "+
			"entry (the index appends one per transaction for other processes' caches). One edit per transaction "+
			"at concurrency 1: every write of the index takes the one advisory lock, so more clients only queue; "+
			"the index itself commits the edits that arrive together in one transaction, which is why it can pass "+
			"this ceiling under concurrency. \"Prepared once\" keeps every statement prepared across "+
			"transactions; \"compiled as the index does\" sends the texts as the index does (pgx prepares and "+
			"caches each text per connection, so the two differ little). ", statements)
	} else {
		w("Ceilings: the statements of that edit's write transaction (`sqlstore.DB.UpdateUnit`: BEGIN IMMEDIATE, "+
			"%s) run straight through database/sql on a copy of the same index file opened as the index opens it: "+
			"no HTTP, authentication or rules. One edit per transaction at concurrency 1: SQLite has one writer, so "+
			"more clients only queue. \"Prepared once\" keeps every statement prepared across transactions; "+
			"\"compiled as the index does\" compiles them per transaction or per use, as the index does today. ",
			statements)
	}
	w("Each API level runs in %d rounds alternating with rounds of both ceilings, so other load on the machine "+
		"falls on all alike; the %% column is against the prepared-once ceiling.\n\n", pairRounds)
	w("| what | conc | edits | errors | edits/s | p50 | p99 | %% of ceiling |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	var ceil float64
	if len(wr.Ceilings) > 0 {
		ceil = wr.Ceilings[0].Stats.RPS
	}
	var failures []string
	for _, p := range slices.Concat(wr.API, wr.Suggestions, wr.Ceilings) {
		s := p.Stats
		w("| %s | %d | %s | %s | %s | %s | %s | %.0f%% |\n", p.Name, p.Concurrency, fmtInt(s.Requests),
			fmtInt(s.Errors), fmtInt(int(s.RPS+0.5)), fmtDur(s.P50), fmtDur(s.P99), pct(s.RPS, ceil))
		if s.Errors > 0 {
			failures = append(failures, fmt.Sprintf("%s at %d: %s of %s failed, first: %s", p.Name, p.Concurrency,
				fmtInt(s.Errors), fmtInt(s.Requests), p.Failure))
		}
	}
	for _, f := range failures {
		w("\n**Errors**: %s\n", f)
	}
	w("\nSuggestions: `POST /api/units/<id>/suggestions/` with `{\"target\": [...]}` (a text never sent before) " +
		"to the same units, by the same user, measured in the same rounds as the PATCHes; each is a 201 " +
		"recording \"Suggestion added\" (issue 27: its p50 within 1.5× a PATCH's).\n\n")
	for _, sp := range wr.Suggestions {
		for _, pp := range wr.API {
			if pp.Concurrency == sp.Concurrency && pp.Stats.P50 > 0 {
				w("- concurrency %d: suggestion POST p50 %s, PATCH p50 %s: %.2f×\n", sp.Concurrency,
					fmtDur(sp.Stats.P50), fmtDur(pp.Stats.P50), float64(sp.Stats.P50)/float64(pp.Stats.P50))
			}
		}
	}
	w("\nWhat landed (warm-ups included): %s PATCHes and suggestion POSTs answered 200/201 and the index gained %s changes; "+
		"the ceilings committed %s edits and the copy gained %s changes (New contributor aside, recorded once "+
		"per author and translation). Translations whose stored statistics differ from a recount afterwards: "+
		"%d in the index, %d in the copy.\n", fmtInt(wr.Answered), fmtInt(wr.Recorded), fmtInt(wr.CeilingEdits),
		fmtInt(wr.CeilingRecorded), wr.Mismatched, wr.CeilingMismatched)
	if profiled {
		w("\nCPU profile of the PATCHes at concurrency 8: `writes.cpu.pprof`.\n")
	}
	w("\n")
	if len(wr.Comments) > 0 {
		commentsTable(b, wr.Comments)
	}
	if wr.Bulk != nil {
		bulkTable(b, wr.Bulk)
	}
}

func gitTable(b *strings.Builder, g *gitResult, profiled bool) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("Component `%s` (%d files), imported above. %s pending edits were made through the index's edit path "+
		"(`sqlstore.DB.UpdateUnit`, as a PATCH makes them; %.1f s, not timed against anything), one distinct unit "+
		"each, spread round-robin over its %d translations, all by one author with an e-mail, so Tolk makes one "+
		"commit per translation. `Service.Commit` then writes each translation's pending values into its file at "+
		"HEAD and commits. Its checkout was cloned without a work tree, which the first commit checks out: that "+
		"was done before, with a commit of one edit (%.2f s), so the row measures what every later commit costs. "+
		"The ceiling writes the same files (the bytes Tolk committed) into a go-git clone already "+
		"checked out, stages them and makes one commit: no index, no rendering, one commit.\n\n",
		g.Component, g.Files, fmtInt(g.Edits), g.EditSec, g.Translations, g.FirstCommitSec)
	w("Pulls: Tolk's checkout, pushed and so level with upstream, pulls with `Service.Pull` (fetch; when "+
		"upstream moved, move onto it keeping the edits it lacks, re-import the changed files, commit on top; "+
		"when it did not and the index holds HEAD, nothing more), as the API and the scheduler run it. The ceiling is a go-git clone doing a fetch and a hard reset to what it fetched (no reset when "+
		"the fetch brought nothing). "+
		"Each row is the median of %d rounds, Tolk and ceiling alternating; in the second row every round starts "+
		"with a new upstream commit changing one string of one translation file.\n\n", gitRounds)
	w("| step | seconds | work | edits/s | notes |\n|---|---:|---:|---:|---|\n")
	w("| `Service.Commit` of the pending edits | %.2f | %s edits, %d commits | %s | %.1f× the ceiling |\n",
		g.CommitSec, fmtInt(g.Edits), g.Commits, fmtRate(g.Edits, g.CommitSec), ratio(g.CommitSec, g.CeilingSec))
	same := "same tree as Tolk's head"
	if !g.SameTree {
		same = "**tree differs from Tolk's head**"
	}
	w("| ceiling: the same %d files written, staged and committed once with go-git | %.2f | %s edits, 1 commit | %s | %s |\n",
		g.ChangedFiles, g.CeilingSec, fmtInt(g.Edits), fmtRate(g.Edits, g.CeilingSec), same)
	for _, p := range g.Pulls {
		note := "checked"
		if len(p.Failures) > 0 {
			note = "**" + strings.Join(p.Failures, "; ") + "**"
		}
		w("| %s | %.3f | | | %.1f× the ceiling; %s |\n", p.Name, p.Sec, ratio(p.Sec, p.CeilSec), note)
		ceil := "HEAD = upstream"
		if !p.CeilingChecked {
			ceil = "**HEAD differs from upstream**"
		}
		w("| ceiling: go-git fetch + hard reset | %.3f | | | %s |\n", p.CeilSec, ceil)
	}
	w("\nWhat the commits hold, read back from the repository after `Service.Push`: %d commits over the head "+
		"before the edits, %d files changed, %s values differing from those before (want %s), %d edits missing; the index "+
		"owes afterwards %d edits, %d removed strings, %d files. Pull checks: Tolk's HEAD is upstream's after "+
		"each pull, and the string changed upstream reads back from the index.\n",
		g.PushedCommits, g.ChangedFiles, fmtInt(g.ChangedValues), fmtInt(g.Edits), g.Missing,
		g.PendingAfter.Units, g.PendingAfter.Removed, g.PendingAfter.Files)
	if profiled {
		w("\nCPU profile of `Service.Commit`: `git-commit.cpu.pprof`.\n")
	}
	w("\n")
}

func monorepoTable(b *strings.Builder, m *monorepoResult) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("A repository of %s files in folders of %s under `vendor/` and a component of %d locale files "+
		"(`locales/*.json`, %d strings each), built with git fast-import (%.1f s) and imported with "+
		"`Service.Reconcile` (a clone without a work tree, %d files parsed; %.1f s). Tolk's first commit, of "+
		"one edit, builds the checkout's git index from HEAD (every entry skip-worktree but the file it writes); "+
		"the pull then fetches an upstream commit adding %s files under `more/` and changing a string of "+
		"`locales/%s.json`, moves onto it and re-imports that file. Ceiling: the git CLI (%s) doing the same git "+
		"work, a clone without a work tree and with a sparse checkout of `locales/`, so the same index and only "+
		"locale files on disk: `git read-tree -mu HEAD`, the file Tolk committed written, `git add`, `git commit`; "+
		"then, level with Tolk's pushed head, `git pull --ff-only` (fetch over file://, the index rewritten). "+
		"A normal clone would write the %s files Tolk never writes; go-git's reset is the quadratic path Tolk no "+
		"longer takes. One round each, Tolk first. Target: each under %.0f s.\n\n",
		fmtInt(m.Files), fmtInt(monorepoPerDir), m.Locales, monorepoStrings, m.BuildSec, m.Locales, m.ImportSec,
		fmtInt(m.Files), loadLanguage, m.Git, fmtInt(m.Files), monorepoTarget.Seconds())
	w("| step | seconds | target | ceiling, s | × ceiling |\n|---|---:|---|---:|---:|\n")
	target := func(sec float64) string {
		if sec < monorepoTarget.Seconds() {
			return "met"
		}
		return "**missed**"
	}
	w("| first commit of one edit on the fresh checkout (`Service.Commit`) | %.2f | %s | %.2f | %.1f× |\n",
		m.FirstSec, target(m.FirstSec), m.FirstCeilSec, ratio(m.FirstSec, m.FirstCeilSec))
	w("| pull of %s new files and 1 changed translation file (`Service.Pull`) | %.2f | %s | %.2f | %.1f× |\n",
		fmtInt(m.Files), m.PullSec, target(m.PullSec), m.PullCeilSec, ratio(m.PullSec, m.PullCeilSec))
	checks := func(failures []string) string {
		if len(failures) == 0 {
			return "all passed"
		}
		return "**failed: " + strings.Join(failures, "; ") + "**"
	}
	w("\nChecks, Tolk's %s: the pushed first commit changed %d file, with the edit in it; the pull left HEAD at "+
		"upstream, the changed string in the index and nothing owed; the work tree held %d file after the commit "+
		"and %d after the pull, %d outside the filemask. The ceiling's %s: its commit has Tolk's tree, its pull "+
		"left HEAD at upstream and the new files off disk.\n\n",
		checks(m.Failures), m.ChangedFiles, m.FirstWorkTree, m.PulledWorkTree, m.Outside, checks(m.CeilFailures))
}

// scaleBase is what scale step s is compared with: the -scale 1 step
// when there was one before it (measured the same way), else the 1×
// sections' figures (cached reads only, over one project), else nothing.
func (r *report) scaleBase(s *scaleResult) (*scaleResult, string) {
	if s.Copies == 1 {
		return nil, "nothing: it is the baseline of the steps after it"
	}
	if len(r.Scales) > 0 && r.Scales[0].Copies == 1 && r.Scales[0] != s {
		return r.Scales[0], "the `-scale 1` step"
	}
	if r.Import == nil {
		return nil, "nothing (a resumed run without its 1× step: see the run that made it)"
	}
	b := &scaleResult{Copies: 1, Import: *r.Import, Added: r.Import.Units, Load: r.Load}
	if r.Writes != nil {
		b.Writes = r.Writes.API
	}
	return b, "the 1× sections (one project)"
}

// stepRate is the units/s of a step's imports.
func stepRate(s *scaleResult) string { return fmtRate(s.Added, s.Import.FullSec) }

func (r *report) scaleTable(b *strings.Builder, s *scaleResult) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	base, baseName := r.scaleBase(s)
	w("Copies %d to %d of each corpus component (`jellyfin-NN`...), each a component with its own checkout of the same repository, "+
		"added to the index of the steps before (one index grows through every -scale N, a Reconcile per copy), "+
		"spread over %d projects (`scale-01`...); the reads load `scale-01/jellyfin-01/de`. Compared with %s.\n\n",
		s.From+1, s.Copies, s.Projects, baseName)
	if s.Skipped > 0 {
		w("%d copies of this step were in the index already (-resume) and were not imported again.\n\n", s.Skipped)
	}
	im := &s.Import
	if base == nil {
		w("| | %d× |\n|---|---:|\n| units | %s |\n| units imported by the step | %s |\n| import of the step, s | %.2f |\n"+
			"| units/s | %s |\n| trigram index after it, s | %.2f |\n| peak RSS, import | %s |\n"+
			"| index size | %s |\n| re-import unchanged, s | %.3f |\n", s.Copies, fmtInt(im.Units), fmtInt(s.Added), im.FullSec,
			stepRate(s), im.TrigramSec, fmtBytes(im.PeakRSS), fmtBytes(im.DBBytes), im.ReimportSec)
		w("| re-import unchanged: CPU s, waiting for a CPU s | %.3f, %.3f |\n", im.ReimportCPU, im.ReimportWait)
	} else {
		one, steps := &base.Import, s.Copies-s.From
		w("| | 1× | %d× | growth | linear |\n|---|---:|---:|---:|---:|\n", s.Copies)
		w("| units | %s | %s | %.1f× | %d× |\n", fmtInt(one.Units), fmtInt(im.Units), ratio(float64(im.Units), float64(one.Units)), s.Copies)
		w("| units imported by the step | %s | %s | %.1f× | %d× |\n", fmtInt(base.Added), fmtInt(s.Added),
			ratio(float64(s.Added), float64(base.Added)), steps)
		w("| import of the step, s | %.2f | %.2f | %.1f× | %d× |\n", one.FullSec, im.FullSec, ratio(im.FullSec, one.FullSec), steps)
		w("| units/s | %s | %s | %.2f× | 1× |\n", stepRate(base), stepRate(s),
			ratio(float64(s.Added)/im.FullSec, float64(base.Added)/one.FullSec))
		w("| trigram index after it, s | %.2f | %.2f | %.1f× | %d× |\n", one.TrigramSec, im.TrigramSec, ratio(im.TrigramSec, one.TrigramSec), steps)
		w("| peak RSS, import | %s | %s | %.1f× | ≤ %d× |\n", fmtBytes(one.PeakRSS), fmtBytes(im.PeakRSS), ratio(float64(im.PeakRSS), float64(one.PeakRSS)), s.Copies)
		w("| index size | %s | %s | %.1f× | %d× |\n", fmtBytes(one.DBBytes), fmtBytes(im.DBBytes), ratio(float64(im.DBBytes), float64(one.DBBytes)), s.Copies)
		w("| re-import unchanged, s | %.3f | %.3f | %.1f× | %d× |\n", one.ReimportSec, im.ReimportSec, ratio(im.ReimportSec, one.ReimportSec), s.Copies)
		// The re-import's wall is its CPU, its wait for a CPU (a loaded
		// machine's share) and the rest (locks, timers, the disk).
		w("| re-import unchanged: CPU s | %.3f | %.3f | %.1f× | %d× |\n", one.ReimportCPU, im.ReimportCPU, ratio(im.ReimportCPU, one.ReimportCPU), s.Copies)
		w("| re-import unchanged: waiting for a CPU, s | %.3f | %.3f | %.1f× | |\n", one.ReimportWait, im.ReimportWait, ratio(im.ReimportWait, one.ReimportWait))
	}
	if len(s.PerCopy) > 0 {
		var rates []string
		for _, c := range s.PerCopy {
			if c.ServerCPU >= 0 {
				rates = append(rates, fmt.Sprintf("%d: %s (%.1f + %.1f)", c.Copy, fmtRate(c.Units, c.Sec), c.CPU, c.ServerCPU))
			} else {
				rates = append(rates, fmt.Sprintf("%d: %s (%.1f)", c.Copy, fmtRate(c.Units, c.Sec), c.CPU))
			}
		}
		w("\nUnits/s copy by copy, with the CPU seconds of Tolk (+ the server's for the database, when it runs here) "+
			"(what slows as the index grows): %s.\n", strings.Join(rates, ", "))
		w("\n| copy | units/s | CPU ms / 1,000 units, Tolk | server | what it read past the database's cache |\n|---:|---:|---:|---:|---|\n")
		for _, c := range append(slices.Clip(s.PerCopy), s.Trigram) {
			name := strconv.Itoa(c.Copy)
			if c.Copy == 0 {
				name = "trigram index after them"
			}
			if c.Units == 0 || c.Sec == 0 {
				continue
			}
			server := "–"
			if c.ServerCPU >= 0 {
				server = fmt.Sprintf("%.1f", 1e6*c.ServerCPU/float64(c.Units))
			}
			w("| %s | %s | %.1f | %s | %s |\n", name, fmtRate(c.Units, c.Sec), 1e6*c.CPU/float64(c.Units), server, c.IO)
		}
	}
	if s.WAL.postgres {
		dir := fmtBytes(s.WAL.DirBytes)
		if s.WAL.DirBytes < 0 {
			dir = "unknown (pg_ls_waldir needs pg_monitor)"
		}
		w("\nWrite-ahead log over the step's import: %s written, %d checkpoints requested (max_wal_size reached), %d timed; "+
			"pg_wal after it: %s.\n", fmtBytes(s.WAL.Bytes), s.WAL.Requested, s.WAL.Timed, dir)
	}
	if len(s.Tables) > 0 {
		w("\nWhat the index takes after the step's import and trigram index:\n\n")
		w("| table | total | indexes | TOAST | rows (live / dead) | biggest index |\n|---|---:|---:|---:|---:|---|\n")
		for _, t := range s.Tables {
			if t.DatabaseBytesMarker || t.LiveRows+t.DeadRows+t.Indexes == 0 {
				w("| %s | %s | | | | |\n", t.Name, fmtBytes(t.Total))
				continue
			}
			w("| %s | %s | %s | %s | %s / %s | %s %s |\n", t.Name, fmtBytes(t.Total), fmtBytes(t.Indexes), fmtBytes(t.Toast),
				fmtInt(int(t.LiveRows)), fmtInt(int(t.DeadRows)), t.BiggestIndex, fmtBytes(t.BiggestIndexBytes))
		}
	}
	w("\nPeak RSS over the import, reads and writes: %s; index after the writes: %s.\n", fmtBytes(s.PeakRSS), fmtBytes(s.DBBytesAfter))
	var baseLoad, baseUncached []loadPoint
	var baseWrites []writePoint
	if base != nil {
		baseLoad, baseUncached, baseWrites = base.Load, base.Uncached, base.Writes
	}
	loadRows := func(title string, points, base []loadPoint) {
		if len(points) == 0 {
			return
		}
		w("\n%s\n\n", title)
		w("| endpoint | 1× p50 | %d× p50 | %d×/1× | 1× p99 | %d× p99 | %d× req/s |\n|---|---:|---:|---:|---:|---:|---:|\n",
			s.Copies, s.Copies, s.Copies, s.Copies)
		for _, p := range points {
			var bp *loadPoint
			for i := range base {
				if base[i].Endpoint == p.Endpoint && base[i].Concurrency == p.Concurrency {
					bp = &base[i]
				}
			}
			switch {
			case p.Err != "":
				w("| %s | | error: %s | | | | |\n", p.Endpoint, strings.ReplaceAll(p.Err, "|", "/"))
			case p.NA:
				w("| %s | | n/a (404) | | | | |\n", p.Endpoint)
			case bp == nil || bp.NA || bp.Err != "":
				w("| %s | | %s | | | %s | %s |\n", p.Endpoint, fmtDur(p.Real.P50), fmtDur(p.Real.P99), fmtInt(int(p.Real.RPS+0.5)))
			default:
				w("| %s | %s | %s | %.2f× | %s | %s | %s |\n", p.Endpoint, fmtDur(bp.Real.P50), fmtDur(p.Real.P50),
					ratio(float64(p.Real.P50), float64(bp.Real.P50)), fmtDur(bp.Real.P99), fmtDur(p.Real.P99),
					fmtInt(int(p.Real.RPS+0.5)))
			}
		}
	}
	loadRows("Read latency at concurrency 1, as served (page caches on; should not depend on the site's size):", s.Load, baseLoad)
	loadRows("The same reads with the page caches off (`PageCacheBytes: NoPageCache`): every list page and search read from the database:", s.Uncached, baseUncached)
	w("\n")
	if len(s.Writes) == 0 {
		return
	}
	w("Unit PATCHes as in the writes section, over the %d× index (issue 31: within 1.5× of the 1× figures); peers is how many "+
		"units each edit's string propagates to: 0 edits units of copies with no peer (each project's tenth copy does not "+
		"propagate), the same work as at 1× (until session 13 this table had one row a concurrency, of edits of every copy, "+
		"most reaching 9 peers at 100×); the 1× columns are the 1× edits (no peer) in every row. CPU is the "+
		"process's per edit (the load's client and the server alike, with the index's background work), wait its threads' "+
		"time runnable but waiting for a CPU per edit (the machine's load):\n\n", s.Copies)
	w("| conc | peers | 1× edits/s | %d× edits/s | 1× p50 | %d× p50 | %d×/1× p50 | 1× p99 | %d× p99 | 1× CPU, wait | %d× CPU, wait | %d×/1× CPU | errors |\n"+
		"|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", s.Copies, s.Copies, s.Copies, s.Copies, s.Copies, s.Copies)
	for _, p := range s.Writes {
		var base *writePoint
		for i := range baseWrites {
			if baseWrites[i].Concurrency == p.Concurrency && baseWrites[i].Peers == 0 {
				base = &baseWrites[i]
			}
		}
		if base == nil {
			w("| %d | %d | | %s | | %s | | | %s | | %s | | %d |\n", p.Concurrency, p.Peers, fmtInt(int(p.Stats.RPS+0.5)),
				fmtDur(p.Stats.P50), fmtDur(p.Stats.P99), perEdit(p), p.Stats.Errors)
			continue
		}
		w("| %d | %d | %s | %s | %s | %s | %.2f× | %s | %s | %s | %s | %.2f× | %d |\n", p.Concurrency, p.Peers,
			fmtInt(int(base.Stats.RPS+0.5)), fmtInt(int(p.Stats.RPS+0.5)), fmtDur(base.Stats.P50), fmtDur(p.Stats.P50),
			ratio(float64(p.Stats.P50), float64(base.Stats.P50)), fmtDur(base.Stats.P99), fmtDur(p.Stats.P99),
			perEdit(*base), perEdit(p), ratio(cpuPerEdit(p), cpuPerEdit(*base)), p.Stats.Errors)
	}
	w("\n")
}

// cpuPerEdit is a write point's CPU seconds per request (0 unmeasured).
func cpuPerEdit(p writePoint) float64 {
	if p.Stats.Requests == 0 {
		return 0
	}
	return p.CPU / float64(p.Stats.Requests)
}

// perEdit is a write point's CPU and wait for a CPU per request.
func perEdit(p writePoint) string {
	if p.Stats.Requests == 0 || p.CPU == 0 {
		return ""
	}
	n := float64(p.Stats.Requests)
	return fmtDur(time.Duration(p.CPU/n*1e9)) + ", " + fmtDur(time.Duration(p.Wait/n*1e9))
}

func pct(part, whole float64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * part / whole
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func fmtRate(n int, sec float64) string {
	if sec <= 0 {
		return "–"
	}
	return fmtInt(int(float64(n)/sec + 0.5))
}

// fmtInt writes n with thousands separators.
func fmtInt(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + fmtInt(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func fmtBytes(n int64) string {
	switch {
	case n <= 0:
		return "unknown"
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", d.Seconds()*1e3)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", d.Seconds()*1e3)
	default:
		return fmt.Sprintf("%.0f µs", d.Seconds()*1e6)
	}
}

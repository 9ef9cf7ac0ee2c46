// Command tolk-bench measures Tolk's import and API reads on the real
// corpus (../shared/corpus), each beside a ceiling measured in the same
// run, and writes the results to BENCHMARKS.md.
//
//	go run ./cmd/tolk-bench [-quick] [-only SECTIONS] [-out FILE] [-scale N] [-duration D] [-pprof DIR] [-db URL]
//
// The index is SQLite, a file per index in a temporary directory; with
// -db postgres://... it is that PostgreSQL database, each index in a
// fresh schema of its own (tolk_bench_<pid>_<n>, dropped at the end), and
// the report goes into a block of its own in FILE, beside SQLite's.
//
// Sections:
//   - import: bare repositories built with make-repo.sh, imported with the
//     real sync.Service into a fresh index (full, then unchanged);
//     ceilings: the formats alone over every file, and the same unit rows
//     written into a bare table in one transaction (SQLite: a prepared
//     INSERT; PostgreSQL: COPY).
//   - reads: the real API on 127.0.0.1:0 under a Go load generator at
//     concurrency 1, 8 and 64; ceiling: gin answering a pre-built body of
//     the same size.
//   - writes: unit PATCHes through the real API at concurrency 1, 8 and
//     64 on the 1x index (after the reads, which they would otherwise
//     disturb); ceilings: the same write transaction's statements run
//     straight on a copy of the index (PostgreSQL: in a second schema,
//     under the index's advisory write lock), at concurrency 1.
//   - git: 10,000 pending edits spread over every translation of the
//     jellyfin component, made through the index's edit path, committed
//     with the real sync.Service (and pushed and read back to check);
//     then a pull of an unchanged upstream and of an upstream commit
//     touching one file. Ceilings: the same files written and committed
//     once with go-git; a go-git fetch and hard reset of the same change.
//   - search: /api/units/?q=… over every unit of the 1x index, one
//     request at a time, for field terms, bare words and regular
//     expressions, each beside its target (issue 27: p99 under 50 ms for
//     field terms, 200 ms for words and regex).
//   - mixed: each read endpoint at concurrency 8, idle and while unit
//     PATCHes arrive at 500 a second, in alternating rounds.
//   - web: the pages of issue 16 with a browser's session, one request
//     at a time: the translation page, the editor (first string, a
//     filter, a deep offset, a search, the script's partial page) and
//     save-and-next (the save's POST and the next string's page).
//   - wrk (only when named): the reads' endpoints under Debian's wrk
//     -t2 -c8, the API and then its ceiling.
//   - scale: one index grown to each -scale N in turn (copies of the
//     corpus components over 10 projects, a Reconcile per copy; scale.go):
//     import time and units/s copy by copy, the trigram index after it,
//     the index's size by table, the write-ahead log, peak RSS, read and
//     edit latency against the 1x step; -keep and -resume DIR let a
//     long run stop and go on.
//   - memory: the translation memory of -memory-copies copies of the
//     corpus (13: over 2 million entries), imported into an index of
//     its own: the first lookup (which builds the index of source
//     texts) against the import's time, one-string and 100-string
//     lookups through the API, 2,000 strings in one store call, and unit
//     PATCHes with the memory idle and in use, each against issue 29's
//     target.
//   - monorepo: a repository of 100,000 files outside the filemask of a
//     component of 6 locale files, built with git fast-import and
//     imported with the real sync.Service into an index of its own: the
//     checkout's first commit, of one edit, and a pull of an upstream
//     commit adding 100,000 files and changing one locale file (target:
//     each under 2 s). Ceiling: the git CLI in a sparse checkout of the
//     locale folder: read-tree and commit, then pull --ff-only.
//   - formats: every codec's Decode over the files of each corpus
//     component of internal/corpusspec, in memory (target: 100,000
//     units/s per format); ceiling: the bytes tokenized by encoding/json
//     or encoding/xml, or their lines counted for line-based formats.
//     Then one edit's Apply in the largest and smallest file of each
//     format. Needs the corpus but not its import; a few seconds.
//
// -only import,reads,search,git,writes,mixed,web,scale,memory,monorepo,formats runs
// just the sections named. Every section but monorepo and formats needs
// the corpus's import, which runs when any of them is named; monorepo
// needs no corpus.
//
// Everything runs on loopback and in a temporary directory, is bounded in
// requests and time, and stops by itself. Numbers never fail the run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/pgstat"
	"github.com/tolk-project/tolk/machinery"
	"github.com/tolk-project/tolk/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "tolk-bench:", err)
		}
		os.Exit(1)
	}
}

// config is what the command line asks for.
type config struct {
	Quick  bool
	Out    string // "" or "-": stdout only
	Scales []int  // -scale: copies of the corpus for the scale section, a run each; none skips it
	Keep   bool   // -keep: leave the scale index in place, to inspect or -resume
	Resume string // -resume: the directory of a kept scale index, to grow further
	// ScaleProjects is how many projects the scale copies are spread
	// over (-scale-projects; issue 31: 10).
	ScaleProjects int
	Duration      time.Duration
	MaxRequests   int
	Concurrency   []int
	PprofDir      string
	PGStatements  string // -pg-statements: where to write pg_stat_statements' deltas of the scale steps and PATCH levels
	CorpusDir     string
	DB            string          // -db: a PostgreSQL URL; "" for SQLite files
	NoChecks      bool            // -no-checks: every index without the quality checks (sqlstore.Options.NoChecks)
	DBWriters     int             // -db-writers: sqlstore.Options.Writers on PostgreSQL (0: the default)
	DBNoSolo      bool            // -db-no-solo: sqlstore.Options.NoSolo on PostgreSQL
	Sections      map[string]bool // sections to run; "import" always runs
	Args          []string        // as given, for the report

	// MemoryCopies is the copies of the corpus in the memory section:
	// 13 make the 2 million entries (10 make 1.6 million).
	MemoryCopies int
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	cfg := config{Args: args}
	fs := flag.NewFlagSet("tolk-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&cfg.Quick, "quick", false, "a few files per corpus and short load points (for CI; seconds, not minutes)")
	fs.StringVar(&cfg.Out, "out", "BENCHMARKS.md", `Markdown file to write the results into ("-": stdout only)`)
	scale := fs.String("scale", "", "copies of the corpus in the scale section, over 10 projects; a comma-separated, growing list "+
		"grows one index to each in turn (1,10,100: copy 1, measured, copies 2-10 added, measured, 11-100 added, measured; "+
		"a table per N, compared with the first); 0 skips it (default 10, or 2 with -quick)")
	fs.BoolVar(&cfg.Keep, "keep", false, "leave the scale index in place (PostgreSQL: its schema; SQLite: its file) with "+
		"the run's directory, and log where: to inspect its queries, or to grow it further with -resume")
	fs.IntVar(&cfg.ScaleProjects, "scale-projects", scaleProjectCount, "projects the scale copies are spread over, copy i in "+
		"project (i-1) mod N + 1; copies in one project share every string (propagation and the inconsistent check compare them): "+
		"fewer projects measure at 2x or 3x what 100x over 10 projects does per string")
	fs.StringVar(&cfg.Resume, "resume", "", "continue the scale index a -keep run (or an interrupted one) left in this "+
		"directory, the one it logged: the copies already in it are skipped by slug (implies -keep; -only scale)")
	fs.IntVar(&cfg.MemoryCopies, "memory-copies", 0, "copies of the corpus in the memory section (default 13, over 2 million "+
		"entries, or 2 with -quick)")
	fs.DurationVar(&cfg.Duration, "duration", 0, "time per load point (default 2s, or 100ms with -quick)")
	fs.IntVar(&cfg.MaxRequests, "requests", 0, "at most this many requests per load point (default 200000, or 2000 with -quick)")
	conc := fs.String("concurrency", "1,8,64", "comma-separated concurrency levels of the reads and writes sections")
	fs.IntVar(&cfg.DBWriters, "db-writers", 0, "writers of each PostgreSQL index (tolk serve --db-writers; 0: the default)")
	fs.BoolVar(&cfg.DBNoSolo, "db-no-solo", false, "keep each PostgreSQL index checking write_log even when alone on its database (tolk serve --db-no-solo)")
	fs.BoolVar(&cfg.NoChecks, "no-checks", false, "open every index without the quality checks, to measure what they cost "+
		"(issue 26: the import with them at most 1.25x the import without)")
	fs.StringVar(&cfg.PGStatements, "pg-statements", "", "PostgreSQL with pg_stat_statements: write each scale step's "+
		"per-statement deltas over its uncached reads and its edits into this directory (scaleN-uncached.tsv, scaleN-writes.tsv and, edits reaching peers, scaleN-writes-peers.tsv), "+
		"and the writes section's PATCHes' at each concurrency, a PATCH's share too (writes-cN.tsv); execution time only")
	fs.StringVar(&cfg.PprofDir, "pprof", "", "write CPU and heap profiles of each section into this directory")
	fs.StringVar(&cfg.CorpusDir, "corpus", "", "corpus directory (default: shared/corpus beside the checkout)")
	fs.StringVar(&cfg.DB, "db", "", "measure on this PostgreSQL database (a postgres:// URL), each index in a fresh schema "+
		"of its own, dropped at the end (default: SQLite files in a temporary directory)")
	only := fs.String("only", strings.Join(sections, ","), "comma-separated sections to run (the corpus's import runs with every one but monorepo; "+
		"wrk, which needs Debian's wrk, only when named)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	for _, s := range strings.Split(*conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("-concurrency: %q is not a positive number", s)
		}
		cfg.Concurrency = append(cfg.Concurrency, n)
	}
	cfg.Sections = map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(sections, s) && s != "wrk" {
			return cfg, fmt.Errorf("-only: unknown section %q (have %s, wrk)", s, strings.Join(sections, ", "))
		}
		cfg.Sections[s] = true
		if !slices.Contains(standalone, s) {
			cfg.Sections["import"] = true
		}
	}
	if *scale == "" {
		*scale = "10"
		if cfg.Quick {
			*scale = "2"
		}
	}
	for _, f := range strings.Split(*scale, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return cfg, fmt.Errorf("-scale: %q is not a number of copies", f)
		}
		if n > 0 && len(cfg.Scales) > 0 && n <= cfg.Scales[len(cfg.Scales)-1] {
			return cfg, fmt.Errorf("-scale: %d after %d: the sizes grow one index, so each must be larger", n, cfg.Scales[len(cfg.Scales)-1])
		}
		if n > 0 {
			cfg.Scales = append(cfg.Scales, n)
		}
	}
	if cfg.ScaleProjects < 1 {
		return cfg, fmt.Errorf("-scale-projects: %d is not a number of projects", cfg.ScaleProjects)
	}
	if cfg.Resume != "" {
		for s := range cfg.Sections {
			if s != "scale" && s != "import" {
				return cfg, fmt.Errorf("-resume: grows the scale index alone (-only scale), not %s", s)
			}
		}
		if len(cfg.Scales) == 0 {
			return cfg, errors.New("-resume: no -scale to grow the index to")
		}
		if fi, err := os.Stat(filepath.Join(cfg.Resume, "scale")); err != nil || !fi.IsDir() {
			return cfg, fmt.Errorf("-resume: %s holds no scale index (its scale directory)", cfg.Resume)
		}
	}
	if cfg.MemoryCopies <= 0 {
		cfg.MemoryCopies = 13
		if cfg.Quick {
			cfg.MemoryCopies = 2
		}
	}
	if cfg.MaxRequests <= 0 {
		cfg.MaxRequests = 200000
		if cfg.Quick {
			cfg.MaxRequests = 2000
		}
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 2 * time.Second
		if cfg.Quick {
			cfg.Duration = 100 * time.Millisecond
		}
	}
	if cfg.PGStatements != "" && cfg.DB == "" {
		return cfg, errors.New("-pg-statements: reads PostgreSQL's pg_stat_statements, so it needs -db")
	}
	return cfg, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	rep, err := bench(ctx, cfg, stderr)
	if rep != nil {
		md := rep.Markdown()
		fmt.Fprint(stdout, md)
		if cfg.Out != "" && cfg.Out != "-" {
			if werr := writeReport(cfg.Out, md, cfg.DB != ""); werr != nil {
				err = errors.Join(err, werr)
			}
		}
	}
	return err
}

// sections are the parts of a run, in order.
var sections = []string{"import", "reads", "search", "git", "writes", "mixed", "web", "scale", "memory", "monorepo", "formats"}

// standalone are the sections that build what they measure themselves:
// the corpus is imported only when another section is named.
var standalone = []string{"monorepo", "formats"}

// roundTrips is how many trivial statements time the engine's round trip.
const roundTrips = 1000

// quickFiles is how many translation files per corpus -quick imports
// (beside the template).
const quickFiles = 3

// bench runs every section and returns the report, partial if a section
// failed.
func bench(ctx context.Context, cfg config, progress io.Writer) (*report, error) {
	logf := func(format string, args ...any) {
		fmt.Fprintf(progress, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	if cfg.PprofDir != "" {
		if err := os.MkdirAll(cfg.PprofDir, 0o755); err != nil {
			return nil, err
		}
	}
	tmp := cfg.Resume
	if tmp == "" {
		var err error
		if tmp, err = os.MkdirTemp("", "tolk-bench-"); err != nil {
			return nil, err
		}
	}
	defer func() {
		if (cfg.Keep || cfg.Resume != "") && cfg.Sections["scale"] && len(cfg.Scales) > 0 {
			logf("-keep: left %s in place", tmp)
			return
		}
		os.RemoveAll(tmp)
	}()

	eng, err := openEngine(ctx, cfg.DB)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	if cfg.PGStatements != "" && eng.postgres() {
		// Asked once before any step: a server without the extension
		// otherwise failed the run after the first step's import (10
		// minutes at 10x the corpus).
		if err := pgstat.Available(ctx, eng.admin); err != nil {
			return nil, fmt.Errorf("-pg-statements: %w", err)
		}
	}
	eng.noChecks = cfg.NoChecks
	eng.writers = cfg.DBWriters
	eng.noSolo = cfg.DBNoSolo
	rep := newReport(cfg)
	rep.Engine, rep.Postgres = eng.Describe(), eng.postgres()
	if cfg.Sections["import"] {
		if err := benchCorpus(ctx, cfg, eng, rep, tmp, logf); err != nil {
			return rep, err
		}
	}
	if cfg.Sections["monorepo"] {
		n := monorepoFiles
		if cfg.Quick {
			n = monorepoFilesQuick
		}
		if rep.Monorepo, err = benchMonorepo(ctx, eng, filepath.Join(tmp, "monorepo"), n, logf); err != nil {
			return rep, fmt.Errorf("monorepo: %w", err)
		}
	}
	if cfg.Sections["formats"] {
		corpus, err := findCorpus(cfg.CorpusDir)
		if err != nil {
			return rep, err
		}
		limit := 0
		if cfg.Quick {
			limit = quickFiles
		}
		var slowest func(func() error) error
		if cfg.PprofDir != "" {
			slowest = cfg.cpuProfile("formats-slowest")
		}
		if rep.Formats, err = benchFormats(corpus, limit, cfg.Quick, cfg.cpuProfile("formats"), slowest, logf); err != nil {
			return rep, fmt.Errorf("formats: %w", err)
		}
	}
	logf("done")
	return rep, nil
}

// benchCorpus runs the sections over the corpus: its import, then those
// of cfg.Sections that need it.
func benchCorpus(ctx context.Context, cfg config, eng *engine, rep *report, tmp string, logf func(string, ...any)) error {
	corpus, err := findCorpus(cfg.CorpusDir)
	if err != nil {
		return err
	}
	limit := 0
	if cfg.Quick {
		limit = quickFiles
	}
	logf("building repositories from %s", corpus)
	repos, err := buildRepos(ctx, corpus, tmp, limit)
	if err != nil {
		return err
	}
	for _, r := range repos {
		rep.Corpus = append(rep.Corpus, fmt.Sprintf("%s (%s, %d files)", r.folder, r.format, len(r.files)))
	}

	// The scale section alone, from 1x: it is its own baseline, so the
	// corpus's import and its ceilings would only take the time.
	if scaleOnly(cfg) {
		return benchScales(ctx, cfg, eng, rep, repos, tmp, logf)
	}

	// Import, 1x.
	logf("import: full and unchanged")
	in, res, err := runImport(ctx, eng, filepath.Join(tmp, "x1"), "bench", projectComponents(repos, 1), cfg.cpuProfile("import"))
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer in.Close()
	rep.Import = &res
	if err := cfg.heapProfile("import"); err != nil {
		return err
	}
	if rep.RoundTrip, err = in.store.roundTrip(ctx, roundTrips); err != nil {
		return fmt.Errorf("round trip: %w", err)
	}
	logf("import: ceilings")
	c, err := parseCeiling(repos)
	if err != nil {
		return fmt.Errorf("parse ceiling: %w", err)
	}
	if c.InsertSec, c.InsertCPU, c.InsertRows, err = insertCeiling(ctx, in.store, tmp); err != nil {
		return fmt.Errorf("insert ceiling: %w", err)
	}
	rep.Ceilings = &c

	if cfg.Sections["reads"] {
		if err := benchReads(ctx, cfg, rep, in, logf); err != nil {
			return err
		}
	}
	if cfg.Sections["search"] {
		if err := benchSearch(ctx, cfg, rep, in, logf); err != nil {
			return fmt.Errorf("search: %w", err)
		}
	}
	if cfg.Sections["wrk"] {
		logf("wrk: every endpoint, API then ceiling, %s each", max(cfg.Duration, time.Second))
		rep.Wrk, err = benchWrk(ctx, cfg, eng, in.db, max(cfg.Duration, time.Second))
		if err != nil {
			rep.WrkFailure = err.Error()
		}
	}
	// Before the writes, whose PATCHes would otherwise be committed too.
	if cfg.Sections["git"] {
		if err := benchGit(ctx, cfg, rep, in, repos, filepath.Join(tmp, "git"), logf); err != nil {
			return err
		}
	}
	if cfg.Sections["writes"] || cfg.Sections["mixed"] {
		if err := benchWrites(ctx, cfg, rep, in, filepath.Join(tmp, "writes"), logf); err != nil {
			return err
		}
	}
	// After the writes: its saves edit what they would read.
	if cfg.Sections["web"] {
		if err := benchWeb(ctx, cfg, rep, in, logf); err != nil {
			return err
		}
	}
	// The scale section needs the memory: the 1x index is done with.
	if err := in.Close(); err != nil {
		return err
	}

	if cfg.Sections["scale"] {
		if err := benchScales(ctx, cfg, eng, rep, repos, tmp, logf); err != nil {
			return err
		}
	}
	if cfg.Sections["memory"] {
		if rep.Memory, err = benchMemory(ctx, cfg, eng, repos, tmp, logf); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
	}
	return nil
}

// benchReads loads the API over the 1x index.
func benchReads(ctx context.Context, cfg config, rep *report, in *instance, logf func(string, ...any)) error {
	var err error
	logf("reads: %d endpoints x concurrency %v, %s each", len(endpoints("", "", "")), cfg.Concurrency, cfg.Duration)
	lo := loadOptions{Concurrency: cfg.Concurrency, Duration: cfg.Duration, MaxRequests: cfg.MaxRequests, Ceiling: true}
	eps := endpoints("bench", "jellyfin", loadLanguage)
	stopProf := cfg.startCPU("reads")
	rep.Load, err = runLoad(ctx, in.db, eps, lo)
	stopProf()
	if err != nil {
		return fmt.Errorf("reads: %w", err)
	}
	if slowest, ok := slowestPoint(rep.Load); ok && cfg.PprofDir != "" {
		logf("reads: profiling the slowest endpoint, %s", slowest.Endpoint)
		rep.Profiled = slowest.Endpoint
		if err := profileEndpoint(ctx, in.db, slowest.Paths, 8, 2*cfg.Duration, cfg.cpuProfile("reads-slowest")); err != nil {
			return err
		}
	}
	return nil
}

// scaleOnly reports whether the scale section is the only one that
// needs the corpus and its first run is 1x, its own baseline.
func scaleOnly(cfg config) bool {
	for s := range cfg.Sections {
		if s != "scale" && s != "import" && !slices.Contains(standalone, s) {
			return false
		}
	}
	return cfg.Sections["scale"] && len(cfg.Scales) > 0 && (cfg.Scales[0] == 1 || cfg.Resume != "")
}

// scaleEndpoints are the reads of the scale section: the reads section's
// and searches, one scoped to the loaded translation (what should not
// grow with the site) and one over every unit (whose count must grow).
func scaleEndpoints(project, component, lang string) []endpoint {
	tr := "/api/translations/" + project + "/" + component + "/" + lang + "/"
	return append(endpoints(project, component, lang),
		endpoint{Name: "search in the translation", Path: tr + "units/?q=play"},
		endpoint{Name: "search, scoped by terms", Path: "/api/units/?q=" + url.QueryEscape("project:"+project+" component:"+component+" language:"+lang+" play")},
		endpoint{Name: "search, every unit (grows)", Path: "/api/units/?q=" + url.QueryEscape(`source:"the file"`)},
	)
}

// scaleWrites measures unit PATCHes over the scale index at concurrency
// 1 and 8, as the writes section does over the 1x one (issue 31: edit
// latency must not grow with the site), twice where the two differ:
// edits of units without a peer (the copies alone in their project, or
// each project's tenth copy, which does not propagate: scaleIsolated),
// the same work as an edit at 1x; and edits of units whose string
// propagates to the other copies of their project (Peers says to how
// many), what a peer costs. Until session 13 the one measurement took
// units of every copy, at 100x nearly all of them propagating to 9
// peers. watch runs the measured edits (-pg-statements' snapshots
// around them, not around the setup), named by a suffix.
func scaleWrites(ctx context.Context, cfg config, in *instance, repos []corpusRepo, copies int,
	watch func(suffix string, fn func() error) error) ([]writePoint, error) {
	_, auth, err := benchUser(ctx, in.db)
	if err != nil {
		return nil, err
	}
	fanOut, err := scaleComponentFanOut(ctx, in, repos, copies, cfg.ScaleProjects)
	if err != nil {
		return nil, err
	}
	// The sets measured are the fan-outs that occur: edits reaching no
	// peer where some copy has none, and those reaching the most peers
	// where any copy has some (at -scale 11-90 over 10 projects every
	// copy has a peer and none is a tenth copy).
	alone, peers := false, 0
	for _, n := range fanOut {
		alone, peers = alone || n == 0, max(peers, n)
	}
	type unitSet struct {
		peers  int
		suffix string
	}
	var sets []unitSet
	if alone {
		sets = append(sets, unitSet{0, ""})
	}
	if peers > 0 {
		sets = append(sets, unitSet{peers, "-peers"})
	}
	apiSrv, err := serve(serverHandler(in.db, api.Options{}))
	if err != nil {
		return nil, err
	}
	defer apiSrv.Close()
	client := newClient()
	defer client.CloseIdleConnections()
	var answered atomic.Int64
	var points []writePoint
	for _, set := range sets {
		units, err := sampleUnitsOf(ctx, in.store, unitsPerTranslation, 0, func(c int64) bool {
			n, ok := fanOut[c]
			return ok && n == set.peers
		})
		if err != nil {
			return nil, fmt.Errorf("units with %d peers: %w", set.peers, err)
		}
		e := &edits{units: units, prefix: "scale"}
		err = watch(set.suffix, func() error {
			for _, conc := range []int{1, 8} {
				var failure firstError
				cpu, wait := cpuSeconds(), runWaitSeconds()
				st := measure(ctx, patchUnits(client, apiSrv.base(), auth, e, &answered, &failure), conc, cfg.Duration, cfg.MaxRequests)
				points = append(points, writePoint{Name: "unit PATCH over HTTP", Concurrency: conc, Peers: set.peers, Stats: st,
					Failure: failure.get(), CPU: cpuSeconds() - cpu, Wait: runWaitSeconds() - wait})
			}
			return ctx.Err()
		})
		if err != nil {
			return points, err
		}
	}
	return points, nil
}

// scaleComponentFanOut maps the id of every component of the scale
// index's copies to the peers an edit of its copy reaches (scaleFanOut),
// so that each set of edits takes whole copies, their glossary with
// them, in the mix an edit at 1x has (a glossary's edits reach none).
func scaleComponentFanOut(ctx context.Context, in *instance, repos []corpusRepo, copies, projects int) (map[int64]int, error) {
	copyOf := map[string]int{}
	for i := 1; i <= copies; i++ {
		for _, r := range repos {
			copyOf[scaleCopySlug(r.slug, i)] = i
		}
	}
	out := map[int64]int{}
	for p := 1; p <= min(copies, projects); p++ {
		proj, err := in.db.FindProject(ctx, scaleProject(p))
		if err != nil {
			return nil, fmt.Errorf("scale project %d: %w", p, err)
		}
		comps, err := in.db.FindComponents(ctx, proj.ID)
		if err != nil {
			return nil, fmt.Errorf("scale project %d: %w", p, err)
		}
		for _, c := range comps {
			i, ok := copyOf[c.Slug]
			if !ok {
				continue
			}
			out[c.ID] = scaleFanOut(i, copies, projects)
			if want := !scaleIsolated(i, projects); !c.IsGlossary && c.AllowTranslationPropagation != want {
				return nil, fmt.Errorf("scale component %s allows propagation: %v, want %v", c.Slug, c.AllowTranslationPropagation, want)
			}
		}
	}
	return out, nil
}

// slowestPoint is the served endpoint furthest below its ceiling at the
// highest concurrency measured.
func slowestPoint(points []loadPoint) (loadPoint, bool) {
	var best loadPoint
	found := false
	top := 0
	for _, p := range points {
		top = max(top, p.Concurrency)
	}
	for _, p := range points {
		if p.NA || p.Err != "" || p.Concurrency != top || p.Real.RPS == 0 {
			continue
		}
		if !found || p.Real.RPS < best.Real.RPS {
			best, found = p, true
		}
	}
	return best, found
}

// cpuProfile returns a wrapper that records a CPU profile of fn into
// DIR/name.cpu.pprof with -pprof, and just runs fn without.
func (cfg config) cpuProfile(name string) func(func() error) error {
	return func(fn func() error) error {
		stop := cfg.startCPU(name)
		err := fn()
		stop()
		return err
	}
}

// startCPU starts a CPU profile into DIR/name.cpu.pprof; the returned
// func stops it. Without -pprof both do nothing. A profile that cannot
// be written is reported and the run goes on: it is not a measurement.
func (cfg config) startCPU(name string) func() {
	if cfg.PprofDir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(cfg.PprofDir, name+".cpu.pprof"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tolk-bench: cpu profile:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "tolk-bench: cpu profile:", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// heapProfile writes DIR/name.heap.pprof (allocations since start and
// what is live now) with -pprof.
func (cfg config) heapProfile(name string) error {
	if cfg.PprofDir == "" {
		return nil
	}
	runtime.GC()
	f, err := os.Create(filepath.Join(cfg.PprofDir, name+".heap.pprof"))
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("heap profile: %w", err)
	}
	return f.Close()
}

// concurrencyLevels lists the distinct levels of points in order.
func concurrencyLevels(points []loadPoint) []int {
	var out []int
	for _, p := range points {
		if !slices.Contains(out, p.Concurrency) {
			out = append(out, p.Concurrency)
		}
	}
	return out
}

// serverHandler serves the API and the pages over db as tolk serve
// does, on an edge of default options.
func serverHandler(db *sqlstore.DB, opts api.Options) http.Handler {
	// The memory as tolk serve has it by default (cmd/tolk's
	// DefaultMachinery): the editor fills the memory's box while
	// rendering, so the editor's pages include a memory lookup.
	broker, err := machinery.New(machinery.Options{SameSource: db, Memory: db,
		Site: map[string]machinery.Config{"weblate-translation-memory": {}}})
	if err != nil {
		panic(err) // the zero options validate
	}
	if opts.Machinery == nil {
		opts.Machinery = broker
	}
	e := edge.New(db, edge.Options{})
	api.New(e, db, opts)
	web.New(e, db, web.Options{Machinery: broker})
	return e.Handler()
}

package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/pgstat"
	tolksync "github.com/tolk-project/tolk/sync"
)

// TestQuickRun runs the tool as CI does (-quick) on the real corpus and
// checks that every section measured something and nothing failed. It
// asserts no time: benchmarks never fail on a number.
func TestQuickRun(t *testing.T) {
	if _, err := findCorpus(""); err != nil {
		t.Skip(err)
	}
	if testing.Short() {
		t.Skip("imports the corpus and loads the API for several seconds")
	}
	out := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	// Hand-written notes outside the markers must survive a run.
	if err := os.WriteFile(out, []byte("# Benchmarks\n\nkept note\n\n"+beginMarker+"\nold\n"+endMarker+"\n\nkept after\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, rep := mustBench(t, "-quick", "-out", out, "-duration", "50ms", "-pprof", t.TempDir())
	if err := writeReport(out, rep.Markdown(), false); err != nil {
		t.Fatal(err)
	}

	checkImport(t, rep)
	served := checkReads(t, rep.Load, len(cfg.Concurrency))
	checkWrites(t, rep.Writes, cfg.Concurrency)
	checkMixed(t, rep.Mixed, served/3)
	checkGit(t, rep.Git)
	checkWeb(t, rep.Web)
	checkSearch(t, rep.Search)
	checkScale(t, rep)
	checkMonorepo(t, rep.Monorepo, monorepoFilesQuick)
	checkFormats(t, rep.Formats)

	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{"kept note", "kept after", "### Import", "### Reads under load",
		"### Writes under load", "| unit PATCH over HTTP | 64 |", "### Reads while writing", "| upload of jellyfin/de",
		"### Pages and the editor (issue 16)", "| save and next ", "### Search (issue 27)", "| words | `play` |", "### Git (issue 10)", "### Scale: 2×", "### Monorepo: 2,000 files outside the filemask",
		"### Formats: Decode and one edit's Apply", "| kooha | po |", "| stringsdict | mastodon-ios/stringsdict ",
		"ceiling (a) + (b)", "units late page", "Command: `go run ./cmd/tolk-bench -quick", "CPUs: ", "Index engine: SQLite 3."} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "\nold\n") || strings.Count(md, beginMarker) != 1 {
		t.Errorf("generated block not replaced:\n%s", md)
	}
	if f := flag.Lookup("test.cpuprofile"); f != nil && f.Value.String() != "" {
		return // one CPU profile at a time: the tool's own could not start
	}
	for _, name := range []string{"import.cpu.pprof", "reads.cpu.pprof", "reads-slowest.cpu.pprof", "writes.cpu.pprof", "bulk.cpu.pprof", "git-commit.cpu.pprof", "scale2-import.cpu.pprof",
		"formats.cpu.pprof", "formats-slowest.cpu.pprof"} {
		if fi, err := os.Stat(filepath.Join(cfg.PprofDir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("profile %s: %v", name, err)
		}
	}
}

// TestQuickRunPostgres runs the quick bench with -db on the PostgreSQL
// server of TOLK_TEST_POSTGRES, shortened to the sections whose figures
// depend on the engine: the import and its COPY ceiling, the reads, the
// git jobs, the writes with their ceiling on a copied schema, and the
// scale section's second index. It checks what TestQuickRun checks of them, that the
// report names the engine, and that the run dropped every schema it
// made.
func TestQuickRunPostgres(t *testing.T) {
	dbURL := os.Getenv("TOLK_TEST_POSTGRES")
	if dbURL == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no PostgreSQL server in CI: TOLK_TEST_POSTGRES is not set")
		}
		t.Skip("no PostgreSQL server: set TOLK_TEST_POSTGRES to one's URL (.ci/postgres starts one)")
	}
	if _, err := findCorpus(""); err != nil {
		t.Skip(err)
	}
	if testing.Short() {
		t.Skip("imports the corpus and loads the API for several seconds")
	}
	cfg, rep := mustBench(t, "-quick", "-db", dbURL, "-only", "reads,git,writes,scale", "-duration", "50ms",
		"-concurrency", "1,8", "-out", "-")
	checkImport(t, rep)
	checkReads(t, rep.Load, len(cfg.Concurrency))
	checkGit(t, rep.Git)
	checkWrites(t, rep.Writes, cfg.Concurrency)
	for _, p := range rep.Writes.API {
		if p.RoundTrips < p.Batches*2 { // BEGIN with the locks, COMMIT with the closing statements
			t.Errorf("PATCH at concurrency %d: %d round trips for %d batches", p.Concurrency, p.RoundTrips, p.Batches)
		}
	}
	checkScale(t, rep)
	// The test server runs here: its CPU for the database is counted
	// (not checked further: other tests share the database), and the
	// log and the tables are read.
	if s := rep.Scales[0]; s.PerCopy[0].ServerCPU == -1 || s.PerCopy[0].IO.BlocksHit <= 0 || s.PerCopy[0].IO.ClusterCPU < 0 ||
		s.WAL.Bytes <= 0 || len(s.Tables) < 2 || len(rep.Settings) != len(serverSettings) {
		t.Errorf("scale on PostgreSQL: copy %+v, log %+v, %d tables, settings %v", s.PerCopy[0], s.WAL, len(s.Tables), rep.Settings)
	}
	md := rep.Markdown()
	for _, want := range []string{"Index engine: PostgreSQL ", "COPYed (pgx CopyFrom) into a bare table",
		"`pg_advisory_xact_lock`", "| unit PATCH over HTTP | 8 |", "### Scale: 2×", "pages read from PostgreSQL"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if u, err := url.Parse(dbURL); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && strings.Contains(md, p) {
			t.Errorf("the report shows the database's password")
		}
	}

	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var left []string
	rows, err := db.QueryContext(context.Background(), `SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`,
		fmt.Sprintf("tolk\\_bench\\_%d\\_%%", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		left = append(left, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("schemas left behind: %v", left)
	}
}

// TestWriteReportEngines checks that runs on each engine rewrite their
// own block of BENCHMARKS.md and keep the other's and the notes.
func TestWriteReportEngines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	steps := []struct {
		md       string
		postgres bool
	}{{"sqlite 1\n", false}, {"postgres 1\n", true}, {"sqlite 2\n", false}, {"postgres 2\n", true}}
	for _, s := range steps {
		if err := writeReport(path, s.md, s.postgres); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	want := beginMarker + "\nsqlite 2\n" + endMarker + "\n\n" + pgBeginMarker + "\npostgres 2\n" + pgEndMarker + "\n"
	if !strings.HasPrefix(got, "# Benchmarks\n") || !strings.HasSuffix(got, want) || strings.Contains(got, " 1\n") {
		t.Errorf("BENCHMARKS.md after two runs on each engine:\n%s", got)
	}
}

// TestRedact checks that the report's command line and engine line keep
// a -db URL's user and host but never its password.
func TestRedact(t *testing.T) {
	got := strings.Join(redactArgs([]string{"-quick", "-db", "postgres://tolk:s3cret@db.example:5432/tolk?sslmode=disable",
		"-db=postgresql://u:p4ss@h/d", "-db", "postgres://u@h/d?password=pw&sslmode=disable", "-out", "-"}), " ")
	want := "-quick -db postgres://tolk@db.example:5432/tolk?sslmode=disable -db=postgresql://u@h/d " +
		"-db postgres://u@h/d?sslmode=disable -out -"
	if got != want {
		t.Errorf("redactArgs = %q, want %q", got, want)
	}
	for _, u := range []string{"postgres://tolk@/tolk?host=/tmp/pg", "not a url"} {
		if got := redactURL(u); got != u {
			t.Errorf("redactURL(%q) = %q, want it unchanged", u, got)
		}
	}
	e := &engine{url: "postgres://tolk:s3cret@db.example/tolk", Name: "PostgreSQL", Version: "15"}
	if d := e.Describe(); strings.Contains(d, "s3cret") || !strings.Contains(d, "postgres://tolk@db.example/tolk") {
		t.Errorf("Describe() = %q", d)
	}
}

// checkScale checks that the scale section imported twice the 1x units
// and measured reads and writes over them without an error.
func checkScale(t *testing.T, rep *report) {
	t.Helper()
	if len(rep.Scales) != 1 {
		t.Fatalf("scale runs = %d, want 1", len(rep.Scales))
	}
	s := rep.Scales[0]
	if s.Import.Units != 2*rep.Import.Units || s.Projects != 2 || len(s.Load) == 0 || len(s.Uncached) != len(s.Load) || len(s.Writes) != 2 {
		t.Fatalf("scale = %+v", s)
	}
	for _, p := range append(slices.Clone(s.Load), s.Uncached...) {
		if p.Err != "" || p.NA || p.Real.Requests == 0 {
			t.Errorf("scale read %s: %+v", p.Endpoint, p)
		}
	}
	for _, p := range s.Writes {
		if p.Stats.Requests == 0 || p.Stats.Errors != 0 {
			t.Errorf("scale writes at %d: %+v, first failure %q", p.Concurrency, p.Stats, p.Failure)
		}
	}
	// A copy reads its checkout's files at least; the trigram step is
	// timed over the units the step added.
	for _, c := range s.PerCopy {
		if c.IO.ReadCalls <= 0 || c.IO.ReadBytes <= 0 {
			t.Errorf("copy %d read nothing: %+v", c.Copy, c.IO)
		}
	}
	if s.Trigram.Units != s.Added || s.Trigram.Sec <= 0 || s.Trigram.CPU < 0 {
		t.Errorf("scale trigram step = %+v, want %d units", s.Trigram, s.Added)
	}
}

// checkImport checks that the import wrote units and its re-import
// parsed nothing, and that both import ceilings measured every row.
func checkImport(t *testing.T, rep *report) {
	t.Helper()
	im := rep.Import
	if im == nil || im.Units == 0 || im.Files == 0 || im.FullSec <= 0 || im.ReimportSec <= 0 || im.DBBytes <= 0 {
		t.Fatalf("import = %+v", im)
	}
	if im.ReimportRead != 0 {
		t.Errorf("re-import of unchanged repositories parsed %d files", im.ReimportRead)
	}
	// The writer ran the import's batches, within the import's time.
	if im.WriterSec <= 0 || im.WriterSec > im.FullSec {
		t.Errorf("writer busy %.3f s of a %.3f s import", im.WriterSec, im.FullSec)
	}
	if rep.RoundTrip <= 0 {
		t.Errorf("round trip of a statement: %s", rep.RoundTrip)
	}
	c := rep.Ceilings
	if c == nil || c.ParseUnits == 0 || c.ParseSec <= 0 || c.InsertRows != im.Units || c.InsertSec <= 0 {
		t.Errorf("ceilings = %+v, import wrote %d units", c, im.Units)
	}
}

// checkReads checks that every endpoint was served at every one of levels
// concurrency levels against its ceiling, without an error, and returns
// the points served.
func checkReads(t *testing.T, points []loadPoint, levels int) int {
	t.Helper()
	served := 0
	for _, p := range points {
		if p.Err != "" {
			t.Errorf("%s at %d: %s", p.Endpoint, p.Concurrency, p.Err)
		}
		if p.NA {
			continue
		}
		served++
		if p.Endpoint == "units, every page in turn" && len(p.Paths) < 2 {
			t.Errorf("the page sweep requests %d pages", len(p.Paths))
		}
		if p.Real.Requests == 0 || p.Real.RPS <= 0 || p.Real.P50 <= 0 || p.Real.P99 < p.Real.P50 || p.Ceil.RPS <= 0 || p.Bytes == 0 {
			t.Errorf("%s at %d: %+v", p.Endpoint, p.Concurrency, p)
		}
	}
	if want := levels * len(endpoints("", "", "")); served != want {
		t.Errorf("%d load points served, want %d", served, want)
	}
	return served
}

// checkSearch checks that every search was answered, with the same
// count each time, and that the scope and state searches found units
// (a quick import has the three files of each corpus).
func checkSearch(t *testing.T, sr *searchResult) {
	t.Helper()
	if sr == nil || len(sr.Points) != len(searchQueries) || sr.Units == 0 {
		t.Fatalf("search section = %+v", sr)
	}
	for _, p := range sr.Points {
		if p.Failure != "" || p.Stats.Requests == 0 || p.Stats.Errors != 0 || p.Matches < 0 || p.Matches > sr.Units {
			t.Errorf("search %s: %+v", p.Query, p)
		}
		if (p.Query == "play" || p.Query == "state:<translated") && p.Matches == 0 {
			t.Errorf("search %s found nothing", p.Query)
		}
	}
}

// checkWeb checks that every page of the web section was timed without
// an error, save-and-next included.
func checkWeb(t *testing.T, wr *webResult) {
	t.Helper()
	if wr == nil || len(wr.Points) != 8 {
		t.Fatalf("web section = %+v", wr)
	}
	for _, p := range wr.Points {
		if p.Failure != "" || p.Stats.Requests == 0 || p.Stats.Errors != 0 || p.Bytes == 0 || p.Stats.P50 <= 0 {
			t.Errorf("web %s: %+v", p.Name, p)
		}
	}
}

// checkWrites checks that the writes section served every concurrency
// level and both ceilings without an error, and that every edit landed:
// the index gained one change per 200, the ceiling's copy one per commit,
// and the statistics still add up.
func checkWrites(t *testing.T, wr *writesResult, levels []int) {
	t.Helper()
	if wr == nil {
		t.Fatal("no writes section")
	}
	if wr.Translations == 0 || wr.Units < wr.Translations {
		t.Errorf("writes picked from %d units of %d translations", wr.Units, wr.Translations)
	}
	var got []int
	measured := 0
	for _, p := range wr.API {
		got = append(got, p.Concurrency)
		measured += p.Stats.Requests
		// Each PATCH is a write of some batch (the writer's counts, read
		// around the level's rounds).
		if p.Stats.Requests > 0 && (p.Batches == 0 || p.Writes < p.Batches || p.Writes < uint64(p.Stats.Requests)) {
			t.Errorf("PATCH at concurrency %d: %d requests in %d writes of %d batches", p.Concurrency,
				p.Stats.Requests, p.Writes, p.Batches)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(levels) {
		t.Errorf("writes measured at concurrency %v, want %v", got, levels)
	}
	if len(wr.Ceilings) != 2 {
		t.Errorf("%d write ceilings, want 2", len(wr.Ceilings))
	}
	for _, p := range wr.Suggestions {
		measured += p.Stats.Requests
	}
	if len(wr.Suggestions) != len(levels) {
		t.Errorf("suggestions measured at %d levels, want %d", len(wr.Suggestions), len(levels))
	}
	// The comment section alternates PATCH and comment POST rounds: two
	// points a level, every request answered as expected.
	if len(wr.Comments) != 2*len(levels) {
		t.Errorf("comments measured in %d points, want %d", len(wr.Comments), 2*len(levels))
	}
	for _, p := range slices.Concat(wr.API, wr.Suggestions, wr.Ceilings, wr.Comments) {
		s := p.Stats
		if s.Requests == 0 || s.Errors != 0 || s.RPS <= 0 || s.P50 <= 0 || s.P99 < s.P50 {
			t.Errorf("%s at %d: %+v, first failure %q", p.Name, p.Concurrency, s, p.Failure)
		}
	}
	if wr.Answered < measured || wr.Recorded != wr.Answered {
		t.Errorf("%d PATCHes measured, %d answered 200, %d changes recorded", measured, wr.Answered, wr.Recorded)
	}
	if wr.CeilingEdits == 0 || wr.CeilingRecorded != wr.CeilingEdits {
		t.Errorf("ceilings committed %d edits, their copy gained %d changes", wr.CeilingEdits, wr.CeilingRecorded)
	}
	if wr.Mismatched != 0 || wr.CeilingMismatched != 0 {
		t.Errorf("statistics differ from a recount in %d translations of the index, %d of the copy",
			wr.Mismatched, wr.CeilingMismatched)
	}
	if b := wr.Bulk; b == nil || b.Failure != "" || len(b.Upload) != bulkRounds || len(b.Add) != bulkRounds ||
		b.UploadUnits == 0 || b.UploadChange != b.UploadUnits || b.Translations < 2 {
		t.Errorf("bulk writes: %+v", b)
	}
}

// checkMixed checks that the mixed section measured every endpoint idle
// and busy while edits ran, with no failure.
func checkMixed(t *testing.T, m *mixedResult, endpoints int) {
	t.Helper()
	if m == nil || len(m.Points) != endpoints {
		t.Fatalf("mixed section: %+v, want %d endpoints", m, endpoints)
	}
	for _, p := range m.Points {
		if p.Idle.RPS <= 0 || p.Busy.RPS <= 0 || p.Edits.Requests == 0 || p.Edits.Errors != 0 ||
			p.Idle.Errors != 0 || p.Busy.Errors != 0 {
			t.Errorf("mixed %s: idle %+v, busy %+v, edits %+v, first failure %q", p.Endpoint, p.Idle, p.Busy,
				p.Edits, p.Failure)
		}
	}
}

// checkGit checks that the git section committed every edit, one commit
// per translation, that the pushed files hold them and the ceiling wrote
// the same tree, and that both pulls and their ceilings passed their
// checks.
func checkGit(t *testing.T, g *gitResult) {
	t.Helper()
	if g == nil {
		t.Fatal("no git section")
	}
	if g.Edits != gitEditsQuick || g.Translations < 2 || g.CommitSec <= 0 || g.CeilingSec <= 0 {
		t.Errorf("git commit: %d edits over %d translations in %.3f s, ceiling %.3f s", g.Edits, g.Translations,
			g.CommitSec, g.CeilingSec)
	}
	if g.Commits != g.Translations || g.PushedCommits != g.Commits || g.ChangedFiles != g.Translations {
		t.Errorf("%d commits made, %d pushed, %d files changed; want one per translation (%d)", g.Commits,
			g.PushedCommits, g.ChangedFiles, g.Translations)
	}
	if g.ChangedValues != g.Edits || g.Missing != 0 || !g.SameTree || g.PendingAfter.Any() {
		t.Errorf("%d values changed for %d edits, %d missing, same tree %v, pending afterwards %+v", g.ChangedValues,
			g.Edits, g.Missing, g.SameTree, g.PendingAfter)
	}
	if len(g.Pulls) != 2 {
		t.Fatalf("%d pull rows, want 2", len(g.Pulls))
	}
	for _, p := range g.Pulls {
		if p.Rounds != gitRounds || p.Sec <= 0 || p.CeilSec <= 0 || len(p.Failures) > 0 || !p.CeilingChecked {
			t.Errorf("%s: %+v", p.Name, p)
		}
	}
}

// testWriter sends the tool's progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func TestParseFlagsOnly(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		want    []string // sections run
		wantErr bool
	}{
		{name: "default runs all", args: nil, want: []string{"import", "reads", "search", "git", "writes", "mixed", "web", "scale", "memory", "monorepo", "formats"}},
		{name: "memory implies import", args: []string{"-only", "memory"}, want: []string{"import", "memory"}},
		{name: "monorepo needs no import", args: []string{"-only", "monorepo"}, want: []string{"monorepo"}},
		{name: "formats needs no import", args: []string{"-only", "formats"}, want: []string{"formats"}},
		{name: "monorepo beside git", args: []string{"-only", "monorepo,git"}, want: []string{"import", "git", "monorepo"}},
		{name: "web implies import", args: []string{"-only", "web"}, want: []string{"import", "web"}},
		{name: "git implies import", args: []string{"-only", "git"}, want: []string{"import", "git"}},
		{name: "import only", args: []string{"-only", "import"}, want: []string{"import"}},
		{name: "reads imply import", args: []string{"-only", "reads"}, want: []string{"import", "reads"}},
		{name: "writes imply import", args: []string{"-only", "writes"}, want: []string{"import", "writes"}},
		{name: "spaces", args: []string{"-only", "import, scale"}, want: []string{"import", "scale"}},
		{name: "unknown", args: []string{"-only", "imports"}, wantErr: true},
		{name: "pg-statements without -db", args: []string{"-only", "scale", "-pg-statements", "/tmp/x"}, wantErr: true},
		{name: "pg-statements with -db", args: []string{"-only", "scale", "-pg-statements", "/tmp/x", "-db", "postgres://x/y"}, want: []string{"import", "scale"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseFlags(tc.args, io.Discard)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("parseFlags(%q) = nil error", tc.args)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range sections {
				if cfg.Sections[s] {
					got = append(got, s)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("parseFlags(%q) sections = %v, want %v", tc.args, got, tc.want)
			}
		})
	}
}

// mustBench runs tolk-bench with the given flags, within five minutes,
// its progress going to the test's log. A -quick run takes a minute or
// two on a quiet machine; two minutes were exceeded at load 25 once the
// scale section loaded its reads twice (page caches on and off).
func mustBench(t *testing.T, args ...string) (config, *report) {
	t.Helper()
	cfg, err := parseFlags(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := bench(ctx, cfg, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, rep
}

func TestParseFlagsScale(t *testing.T) {
	kept := t.TempDir()
	if err := os.Mkdir(filepath.Join(kept, "scale"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []int
		err  bool
	}{
		{nil, []int{10}, false},
		{[]string{"-quick"}, []int{2}, false},
		{[]string{"-scale", "1,10"}, []int{1, 10}, false},
		{[]string{"-scale", "0"}, nil, false},
		{[]string{"-scale", "ten"}, nil, true},
		{[]string{"-scale", "-3"}, nil, true},
		{[]string{"-scale", "1,10,100"}, []int{1, 10, 100}, false},
		{[]string{"-scale", "1,3", "-scale-projects", "1"}, []int{1, 3}, false},
		{[]string{"-scale", "1,3", "-scale-projects", "0"}, nil, true},
		{[]string{"-scale", "10,1"}, nil, true}, // one index grows: sizes must increase
		{[]string{"-scale", "1,1"}, nil, true},
		{[]string{"-only", "scale", "-scale", "10", "-resume", kept}, []int{10}, false},
		{[]string{"-only", "scale", "-scale", "10", "-resume", t.TempDir()}, nil, true}, // no scale index there
		{[]string{"-only", "scale,reads", "-scale", "10", "-resume", kept}, nil, true},  // the scale index alone
		{[]string{"-only", "scale", "-scale", "0", "-resume", kept}, nil, true},         // nothing to grow to
	} {
		cfg, err := parseFlags(tc.args, io.Discard)
		if (err != nil) != tc.err {
			t.Errorf("parseFlags(%q) error = %v, want error %v", tc.args, err, tc.err)
			continue
		}
		if err == nil && !slices.Equal(cfg.Scales, tc.want) {
			t.Errorf("parseFlags(%q) scales = %v, want %v", tc.args, cfg.Scales, tc.want)
		}
	}
}

// TestScaleCopy checks that the scale section's copies are spread over
// at most 10 projects, the first holding jellyfin-01, every component
// slug unique.
func TestScaleCopy(t *testing.T) {
	repos := []corpusRepo{{corpusComponent: corpusComponents[0]}, {corpusComponent: corpusComponents[2]}}
	for _, copies := range []int{1, 2, 10, 25} {
		projects := map[string]bool{}
		seen := map[string]bool{}
		for i := 1; i <= copies; i++ {
			p := scaleCopy(repos, i, scaleProjectCount)
			projects[p.Project.Slug] = true
			if len(p.Components) != len(repos) {
				t.Fatalf("copy %d: %d components, want %d", i, len(p.Components), len(repos))
			}
			for _, c := range p.Components {
				if seen[c.Slug] {
					t.Errorf("%d copies: component %s twice", copies, c.Slug)
				}
				seen[c.Slug] = true
			}
		}
		if want := min(copies, 10); len(projects) != want {
			t.Errorf("%d copies: %d projects, want %d", copies, len(projects), want)
		}
		first := scaleCopy(repos, 1, scaleProjectCount)
		if first.Project.Slug != "scale-01" || !slices.ContainsFunc(first.Components, func(c index.Component) bool {
			return c.Slug == "jellyfin-01"
		}) {
			t.Errorf("copy 1 in %s holds %v", first.Project.Slug, first.Components)
		}
	}
	if got := scaleCopy(repos, 100, scaleProjectCount); got.Project.Slug != "scale-10" || got.Components[0].Slug != "jellyfin-100" {
		t.Errorf("copy 100: %s/%s, want scale-10/jellyfin-100", got.Project.Slug, got.Components[0].Slug)
	}
	if got := scaleCopy(repos, 3, 1); got.Project.Slug != "scale-01" {
		t.Errorf("copy 3 over one project: in %s", got.Project.Slug)
	}
}

// TestScaleFanOut checks the scale section's two sets of edits: each
// project's tenth copy does not propagate (its edits, and those of a
// copy alone in its project, reach no peer, as at 1x), and at 100x the
// other copies reach the 8 others of their project that propagate.
func TestScaleFanOut(t *testing.T) {
	repos := []corpusRepo{{corpusComponent: corpusComponents[0]}}
	for _, tc := range []struct{ i, copies, want int }{
		{1, 1, 0}, {1, 10, 0}, {10, 10, 0}, {1, 20, 1}, {11, 20, 1},
		{1, 100, 8}, {90, 100, 8}, {91, 100, 0}, {100, 100, 0}, {5, 95, 8}, {95, 95, 0},
	} {
		if got := scaleFanOut(tc.i, tc.copies, scaleProjectCount); got != tc.want {
			t.Errorf("copy %d of %d: %d peers, want %d", tc.i, tc.copies, got, tc.want)
		}
	}
	for i, want := range map[int]bool{1: true, 90: true, 91: false, 100: false} {
		if got := scaleCopy(repos, i, scaleProjectCount).Components[0].AllowTranslationPropagation; got != want {
			t.Errorf("copy %d allows propagation: %v, want %v", i, got, want)
		}
	}
}

// TestScalePlan checks what a resumed scale run imports: the copies
// not all of whose components are in the index, and the last whole one
// again (an interruption may have cut its import short).
func TestScalePlan(t *testing.T) {
	repos := []corpusRepo{{corpusComponent: corpusComponents[0]}, {corpusComponent: corpusComponents[2]}}
	slugs := func(copies ...int) map[string]bool {
		have := map[string]bool{}
		for _, i := range copies {
			for _, r := range repos {
				have[scaleCopySlug(r.slug, i)] = true
			}
		}
		return have
	}
	cut := slugs(1, 2, 3)
	cut[scaleCopySlug(repos[0].slug, 4)] = true // copy 4's first component only
	for _, tc := range []struct {
		name string
		have map[string]bool
		upTo int
		todo []int
		done int
	}{
		{"empty", slugs(), 3, []int{1, 2, 3}, 0},
		{"whole", slugs(1, 2, 3), 3, nil, 3},
		{"grows", slugs(1, 2, 3), 5, []int{4, 5}, 3},
		{"cut inside a copy", cut, 5, []int{4, 5}, 3},
		{"a hole", slugs(1, 3), 4, []int{2, 4}, 3},
		{"other components ignored", map[string]bool{"jellyfin": true, "other-01": true}, 2, []int{1, 2}, 0},
	} {
		todo, done := scalePlan(tc.have, repos, tc.upTo)
		if !slices.Equal(todo, tc.todo) || done != tc.done {
			t.Errorf("%s: scalePlan = %v, %d; want %v, %d", tc.name, todo, done, tc.todo, tc.done)
		}
	}
}

// TestScaleTablesPerN checks the report of -scale 1,10: a table per
// step, the 1x one on its own, the 10x one (copies 2 to 10 added to the
// same index) against it, with its units/s copy by copy, the log and
// the tables' sizes, and reads with and without the page caches.
func TestScaleTablesPerN(t *testing.T) {
	point := func(name string, p50 time.Duration) loadPoint {
		return loadPoint{Endpoint: name, Concurrency: 1, Real: loadStats{Requests: 10, P50: p50, P99: 2 * p50, RPS: 100}}
	}
	one := &scaleResult{Copies: 1, Projects: 1, Import: importResult{Units: 1000, FullSec: 1, TrigramSec: 0.5, DBBytes: 1 << 20},
		Added: 1000, PerCopy: []copyImport{{Copy: 1, Units: 1000, Sec: 1}},
		Load: []loadPoint{point("units page 1", time.Millisecond)}, Uncached: []loadPoint{point("units page 1", 2*time.Millisecond)}}
	ten := &scaleResult{Copies: 10, From: 1, Projects: 10, Import: importResult{Units: 10000, FullSec: 12, TrigramSec: 6, DBBytes: 10 << 20},
		Added: 9000, PerCopy: []copyImport{{Copy: 2, Units: 1000, Sec: 1, CPU: 0.8, ServerCPU: 2.5,
			IO: copyIO{ReadCalls: 4120, ReadBytes: 16 << 20, BlocksHit: 1200000, BlocksRead: 3400, ClusterCPU: 0.4}},
			{Copy: 10, Units: 1000, Sec: 2, CPU: 1.5, ServerCPU: -1, IO: copyIO{ReadCalls: 10, ReadBytes: 1 << 10, BlocksHit: -1, BlocksRead: -1, ClusterCPU: -1}}},
		Trigram: copyImport{Units: 9000, Sec: 6, CPU: 4.5, ServerCPU: -1, IO: copyIO{BlocksHit: -1, BlocksRead: -1, ClusterCPU: -1}},
		WAL:     walStats{postgres: true, Bytes: 3 << 30, Requested: 4, Timed: 1, DirBytes: 1 << 30},
		Tables:  []tableSize{{Name: "database (every schema)", Total: 11 << 20, DatabaseBytesMarker: true}, {Name: "units", Total: 5 << 20, Indexes: 2 << 20, LiveRows: 10000, DeadRows: 5, BiggestIndex: "units_pkey", BiggestIndexBytes: 1 << 20}},
		Load:    []loadPoint{point("units page 1", time.Millisecond)}, Uncached: []loadPoint{point("units page 1", 3*time.Millisecond)}}
	one.Import.ReimportSec, one.Import.ReimportCPU, one.Import.ReimportWait = 0.1, 0.05, 0.02
	ten.Import.ReimportSec, ten.Import.ReimportCPU, ten.Import.ReimportWait = 1, 0.5, 0.4
	one.Writes = []writePoint{{Concurrency: 1, Stats: loadStats{Requests: 100, RPS: 100, P50: time.Millisecond, P99: 2 * time.Millisecond},
		CPU: 0.05, Wait: 0.01}}
	ten.Writes = []writePoint{{Concurrency: 1, Stats: loadStats{Requests: 50, RPS: 50, P50: 2 * time.Millisecond, P99: 4 * time.Millisecond},
		CPU: 0.05, Wait: 0.1}}
	md := (&report{Scales: []*scaleResult{one, ten}, Settings: []string{"shared_buffers 128MB"}}).Markdown()
	for _, want := range []string{"### Scale: 1× the corpus", "| | 1× |\n|---|---:|\n| units | 1,000 |", "| trigram index after it, s | 0.50 |",
		"### Scale: 10× the corpus", "Copies 2 to 10 of each corpus component", "Compared with the `-scale 1` step.",
		"| units | 1,000 | 10,000 | 10.0× | 10× |", "| units imported by the step | 1,000 | 9,000 | 9.0× | 9× |",
		"| import of the step, s | 1.00 | 12.00 | 12.0× | 9× |", "| units/s | 1,000 | 750 | 0.75× | 1× |",
		"| trigram index after it, s | 0.50 | 6.00 | 12.0× | 9× |", "(what slows as the index grows): 2: 1,000 (0.8 + 2.5), 10: 500 (1.5).",
		"| 2 | 1,000 | 800.0 | 2500.0 | 4,120 reads (16.0 MiB); buffers 1,200,000 hit, 3,400 read; whole server 0.4 s CPU |",
		"| 10 | 500 | 1500.0 | – | 10 reads (1.0 KiB) |", "| trigram index after them | 1,500 | 500.0 | – | 0 reads (0 B) |",
		"3.00 GiB written, 4 checkpoints requested", "| database (every schema) | 11.0 MiB |", "| units | 5.0 MiB | 2.0 MiB | unknown | 10,000 / 5 | units_pkey 1.0 MiB |",
		"Server settings (docs/postgresql.md: what a big import wants): shared_buffers 128MB",
		"| units page 1 | 1.00 ms | 1.00 ms | 1.00× |", "| units page 1 | 2.00 ms | 3.00 ms | 1.50× |",
		"| re-import unchanged: CPU s | 0.050 | 0.500 | 10.0× | 10× |", "| re-import unchanged: waiting for a CPU, s | 0.020 | 0.400 | 20.0× | |",
		"| re-import unchanged: CPU s, waiting for a CPU s | 0.050, 0.020 |",
		"| 1 | 0 | 100 | 50 | 1.00 ms | 2.00 ms | 2.00× | 2.00 ms | 4.00 ms | 500 µs, 100 µs | 1.00 ms, 2.00 ms | 2.00× | 0 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	// A resumed run without its 1x step compares with nothing.
	md = (&report{Scales: []*scaleResult{{Copies: 10, From: 1, Projects: 10, Skipped: 3, Added: 6000}}}).Markdown()
	for _, want := range []string{"a resumed run without its 1× step", "3 copies of this step were in the index already", "| units imported by the step | 6,000 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("resumed report lacks %q:\n%s", want, md)
		}
	}
}

// TestAddStmtDelta: -pg-statements' per-level sums add each round's
// calls and times per statement, skip statements that did not run and
// the snapshots' own query, and write each statement's share a request.
func TestAddStmtDelta(t *testing.T) {
	snap := func(calls int64, ms float64) map[int64]pgstat.Statement {
		return map[int64]pgstat.Statement{
			1: {Query: "UPDATE units SET target = $1", Calls: calls, ExecMS: ms, Hit: 10 * calls},
			2: {Query: "SELECT 1", Calls: 5, ExecMS: 1},
			3: {Query: "SELECT queryid FROM public.pg_stat_statements", Calls: calls, ExecMS: 100 * ms},
		}
	}
	sum := map[int64]pgstat.Statement{}
	addStmtDelta(sum, snap(10, 1), snap(14, 3)) // a round: 4 calls, 2 ms
	addStmtDelta(sum, snap(20, 5), snap(26, 8)) // another: 6 calls, 3 ms
	if len(sum) != 1 {
		t.Fatalf("summed %v, want the UPDATE alone", sum)
	}
	if u := sum[1]; u.Calls != 10 || u.ExecMS != 5 || u.Hit != 100 {
		t.Errorf("the UPDATE summed to %+v, want 10 calls, 5 ms, 100 blocks", u)
	}
	cfg := config{PGStatements: t.TempDir()}
	if err := cfg.writeStmts("writes-c8", sum, 5); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(cfg.PGStatements, "writes-c8.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	// 10 calls and 5,000 µs over 5 requests: 2 calls, 1,000 µs a request.
	if lines := strings.Split(string(b), "\n"); len(lines) < 2 || !strings.HasPrefix(lines[0], "calls_per_request\tus_per_request\t") ||
		!strings.HasPrefix(lines[1], "2.000\t1000.0\t5.0\t10\t500.0\t") {
		t.Errorf("writes-c8.tsv:\n%s", b)
	}
}

// TestPropagationStale checks what a resumed scale run re-saves of the
// tenth copies: a copy saved while it propagated is stale until a
// Reconcile saves its spec, and is not afterwards (so -resume reads its
// checkouts once, not at every run).
func TestPropagationStale(t *testing.T) {
	corpus, err := findCorpus("")
	if err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	tmp := t.TempDir()
	repos, err := buildRepos(ctx, corpus, tmp, 1)
	if err != nil {
		t.Fatal(err)
	}
	repos = repos[:1]
	in, err := openInstance(ctx, &engine{}, filepath.Join(tmp, "index"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	const isolated = 91 // scale-01's tenth copy
	spec := scaleCopy(repos, isolated, scaleProjectCount)
	old := spec
	old.Components = slices.Clone(spec.Components)
	for i := range old.Components {
		old.Components[i].AllowTranslationPropagation = true // as session 12's index saved it
	}
	if err := in.svc.Reconcile(ctx, []tolksync.ProjectSpec{old}); err != nil {
		t.Fatal(err)
	}
	if stale, err := propagationStale(ctx, in.db, spec); err != nil || !stale {
		t.Fatalf("copy saved propagating: stale %v (%v), want true", stale, err)
	}
	if err := in.svc.Reconcile(ctx, []tolksync.ProjectSpec{spec}); err != nil {
		t.Fatal(err)
	}
	if stale, err := propagationStale(ctx, in.db, spec); err != nil || stale {
		t.Fatalf("copy saved as its spec says: stale %v (%v), want false", stale, err)
	}
}

package main

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	cfg, err := parseFlags([]string{"-quick", "-out", out, "-duration", "50ms", "-pprof", t.TempDir()}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := bench(ctx, cfg, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	if err := writeReport(out, rep.Markdown()); err != nil {
		t.Fatal(err)
	}

	im := rep.Import
	if im == nil || im.Units == 0 || im.Files == 0 || im.FullSec <= 0 || im.ReimportSec <= 0 {
		t.Fatalf("import = %+v", im)
	}
	if im.ReimportRead != 0 {
		t.Errorf("re-import of unchanged repositories parsed %d files", im.ReimportRead)
	}
	c := rep.Ceilings
	if c == nil || c.ParseUnits == 0 || c.ParseSec <= 0 || c.InsertRows != im.Units || c.InsertSec <= 0 {
		t.Errorf("ceilings = %+v, import wrote %d units", c, im.Units)
	}
	served := 0
	for _, p := range rep.Load {
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
	// Every endpoint, at three levels.
	if want := 3 * len(endpoints("", "", "")); served != want {
		t.Errorf("%d load points served, want %d", served, want)
	}
	if s := rep.Scale; s == nil || s.Import.Units != 2*im.Units || len(s.Load) == 0 {
		t.Errorf("scale = %+v", s)
	}

	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{"kept note", "kept after", "### Import", "### Reads under load", "### Scale: 2×",
		"ceiling (a) + (b)", "units late page", "Command: `go run ./cmd/tolk-bench -quick", "CPUs: "} {
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
	for _, name := range []string{"import.cpu.pprof", "reads.cpu.pprof", "reads-slowest.cpu.pprof", "scale-import.cpu.pprof"} {
		if fi, err := os.Stat(filepath.Join(cfg.PprofDir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("profile %s: %v", name, err)
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
		{name: "default runs all", args: nil, want: []string{"import", "reads", "scale"}},
		{name: "import only", args: []string{"-only", "import"}, want: []string{"import"}},
		{name: "reads imply import", args: []string{"-only", "reads"}, want: []string{"import", "reads"}},
		{name: "spaces", args: []string{"-only", "import, scale"}, want: []string{"import", "scale"}},
		{name: "unknown", args: []string{"-only", "imports"}, wantErr: true},
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

package checks

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// allFlags enables every target check that has a flag.
func allFlags(tb testing.TB, extra string) Flags {
	tb.Helper()
	var fs []string
	for _, c := range registry {
		if c.Kind != Target || c.Flag == "" {
			continue
		}
		if k, _ := kindOf(c.Flag); k == plain && !slices.Contains(fs, c.Flag) {
			fs = append(fs, c.Flag)
		}
	}
	fs = append(fs, "max-length:10", "max-lines:2", `regex:(a+)+$`, "placeholders:$A$:%s", "accelerator:&")
	if extra != "" {
		fs = append(fs, extra)
	}
	f, err := ParseFlags(strings.Join(fs, ","))
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// hostile are the hostile strings: long text, deep markup, many
// placeholders, and worst cases for the scanners.
var hostile = map[string][2]string{
	"100k text":     {strings.Repeat("word ", 20_000), strings.Repeat("mot ", 25_000)},
	"10k nesting":   {strings.Repeat("<b>", 10_000) + "x" + strings.Repeat("</b>", 10_000), strings.Repeat("<b>", 10_000) + "y" + strings.Repeat("</b>", 10_000)},
	"50k unclosed":  {strings.Repeat("<b>", 50_000), strings.Repeat("<i>", 50_000)},
	"50k printf":    {strings.Repeat("%s {0} ", 50_000/2), strings.Repeat("%d {1} ", 50_000/2)},
	"50k markdown":  {strings.Repeat("[a](http://x) **b** ", 5_000), strings.Repeat("[c](./y) *d* _e_ ", 5_000)},
	"100k brackets": {strings.Repeat("[", 50_000) + strings.Repeat("]", 50_000), strings.Repeat("(", 100_000)},
	"100k amp":      {strings.Repeat("&", 100_000), strings.Repeat("&a", 50_000)},
	"100k braces":   {strings.Repeat("{", 100_000), strings.Repeat("}{", 50_000)},
	"100k percent":  {strings.Repeat("%", 100_000), strings.Repeat("%(", 50_000)},
}

// TestHostile runs every check on each hostile string: Run never panics,
// finishes in well under a second of CPU per unit on an idle machine (the
// limit allows for a shared one), and reports the bounded checks skipped.
func TestHostile(t *testing.T) {
	f := allFlags(t, "")
	for name, in := range hostile {
		t.Run(name, func(t *testing.T) {
			u := Unit{Source: []string{in[0]}, Target: []string{in[1]}, Language: "fr", Flags: f}
			start := time.Now()
			r := RunDetailed(u)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("RunDetailed took %v", d)
			}
			for _, id := range []string{"md-syntax", "md-link", "md-reflink", "safe-html"} {
				if !slices.Contains(r.Skipped, id) {
					t.Errorf("%s not skipped on a %d-byte form: %q", id, len(in[1]), r.Skipped)
				}
			}
			if len(r.Failed) == 0 {
				t.Error("no check fails on a hostile string (max-length:10 must)")
			}
		})
	}
}

// TestManyPlaceholders: 50,000 placeholders: entries are bounded on
// entries × length, not on length alone.
func TestManyPlaceholders(t *testing.T) {
	var ps []string
	for i := range 50_000 {
		ps = append(ps, "$P"+strings.Repeat("x", i%7)+"$")
	}
	f := mustFlags(t, "placeholders:"+strings.Join(ps, ":"))
	long := Unit{Source: []string{strings.Repeat("$Px$ ", 2_000)}, Target: []string{strings.Repeat("$Py$ ", 2_000)}, Language: "de", Flags: f}
	start := time.Now()
	r := RunDetailed(long)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	if !slices.Contains(r.Skipped, "placeholders") {
		t.Errorf("placeholders not skipped: %+v", r)
	}
	// A short string with the same flag is checked.
	short := long
	short.Source, short.Target = []string{"Open $Px$"}, []string{"Öffnen"}
	if r := RunDetailed(short); !slices.Equal(ids(r.Failed), []string{"placeholders"}) || len(r.Skipped) != 0 {
		t.Errorf("short: %+v", r)
	}
}

// TestBoundEdge: a form exactly at the bound is checked, one byte over is
// skipped, and Run reports neither skipped nor passed checks.
func TestBoundEdge(t *testing.T) {
	f := mustFlags(t, "md-text")
	at := strings.Repeat("a", markupBytes-len("**b**")) + "**b**"
	u := Unit{Source: []string{at}, Target: []string{strings.Repeat("a", markupBytes)}, Language: "de", Flags: f}
	if r := RunDetailed(u); !slices.Contains(ids(r.Failed), "md-syntax") || len(r.Skipped) != 0 {
		t.Errorf("at the bound: %+v", r)
	}
	u.Target[0] += "a"
	r := RunDetailed(u)
	if slices.Contains(ids(r.Failed), "md-syntax") || !slices.Contains(r.Skipped, "md-syntax") {
		t.Errorf("over the bound: %+v", r)
	}
	if got := ids(Run(u)); !slices.Equal(got, ids(r.Failed)) {
		t.Errorf("Run = %q, RunDetailed.Failed = %q", got, ids(r.Failed))
	}
}

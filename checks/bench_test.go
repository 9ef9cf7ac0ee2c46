package checks

import (
	"strings"
	"testing"
)

// typicalUnit is a corpus-sized unit: about 30 characters a side and ten
// flags, the way a PO file with c-format and a component's check_flags
// give them. markup adds xml-text and md-text.
func typicalUnit(tb testing.TB, markup bool) Unit {
	tb.Helper()
	flags := "c-format, max-length:80, ignore-same, placeholders:$URL$, strict-format, priority:100, font-size:12, case-insensitive, ignore-end-stop, python-brace-format"
	if markup {
		flags += ", xml-text, md-text"
	}
	f, err := ParseFlags(flags)
	if err != nil {
		tb.Fatal(err)
	}
	return Unit{
		Source:   []string{"Saved %d files to the <b>folder</b>."},
		Target:   []string{"%d Dateien im <b>Ordner</b> gespeichert."},
		Language: "de",
		Flags:    f,
	}
}

func BenchmarkRun(b *testing.B) {
	for _, markup := range []bool{false, true} {
		name := "typical"
		if markup {
			name = "markup"
		}
		b.Run(name, func(b *testing.B) {
			u := typicalUnit(b, markup)
			if got := Run(u); len(got) != 0 {
				b.Fatalf("typical unit fails %v", ids(got))
			}
			b.ReportAllocs()
			for b.Loop() {
				Run(u)
			}
		})
	}
	b.Run("plain", func(b *testing.B) {
		u := Unit{Source: []string{"Open the settings dialog"}, Target: []string{"Einstellungsdialog öffnen"}, Language: "de"}
		b.ReportAllocs()
		for b.Loop() {
			Run(u)
		}
	})
}

// BenchmarkRunHostile times one unit of each hostile kind with every
// check enabled.
func BenchmarkRunHostile(b *testing.B) {
	f := allFlags(b, "")
	for _, name := range []string{"100k text", "10k nesting", "50k printf", "50k markdown", "100k amp"} {
		in := hostile[name]
		u := Unit{Source: []string{in[0]}, Target: []string{in[1]}, Language: "fr", Flags: f}
		b.Run(strings.ReplaceAll(name, " ", "-"), func(b *testing.B) {
			b.SetBytes(int64(len(in[0]) + len(in[1])))
			b.ReportAllocs()
			for b.Loop() {
				if len(RunDetailed(u).Skipped) == 0 {
					b.Fatal("nothing skipped")
				}
			}
		})
	}
}

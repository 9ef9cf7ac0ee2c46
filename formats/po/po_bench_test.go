package po

import (
	"bytes"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// loadCorpus reads every .po file of the corpus and checks that each
// round-trips before anything is timed.
func loadCorpus(b *testing.B) (files [][]byte, total, units int) {
	b.Helper()
	for _, path := range corpusFiles(b, false) {
		data := mustRead(b, path)
		if out := mustApply(b, Codec{}, data, deFile()); !bytes.Equal(out, data) {
			b.Fatalf("%s does not round-trip", path)
		}
		files = append(files, data)
		total += len(data)
		units += len(mustDecode(b, Codec{}, data))
	}
	return files, total, units
}

// BenchmarkDecode decodes the 35 translations, as an import does.
func BenchmarkDecode(b *testing.B) {
	files, total, units := loadCorpus(b)
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, data := range files {
			u, err := Codec{}.Decode(data, formats.File{})
			if err != nil {
				b.Fatal(err)
			}
			n += len(u)
		}
		if n != units {
			b.Fatalf("%d units, want %d", n, units)
		}
	}
	b.ReportMetric(float64(units), "units/op")
}

// BenchmarkApply writes every translation with the shape of a typical
// write-back: four edited units (one plural, one fuzzy toggle) and one
// added unit, so the header is updated too.
func BenchmarkApply(b *testing.B) {
	files, total, _ := loadCorpus(b)
	edits := make([][]formats.Edit, len(files))
	for i, data := range files {
		units := mustDecode(b, Codec{}, data)
		for j := 0; j < len(units); j += len(units) / 4 {
			u := units[j]
			t := make([]string, len(u.Target))
			for k := range t {
				t[k] = "Tolk \"edit\" ü"
			}
			edits[i] = append(edits[i], formats.Edit{Context: u.Context, Source: u.Source, Target: t, Fuzzy: !u.Fuzzy})
		}
		edits[i] = append(edits[i], formats.Edit{Context: "tolk", Source: []string{"new"}, Target: []string{"neu"}})
		if out := mustApply(b, Codec{}, data, deFile(), edits[i]...); bytes.Equal(out, data) {
			b.Fatal("edits changed nothing")
		}
	}
	f := deFile()
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for i, data := range files {
			if _, err := (Codec{}).Apply(data, f, edits[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

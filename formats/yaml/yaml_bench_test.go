package yaml

import (
	"bytes"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// loadCorpus reads every corpus file and checks that each round-trips
// before anything is timed.
func loadCorpus(b *testing.B) (files [][]byte, fs []formats.File, total, units int) {
	b.Helper()
	for _, path := range corpusFiles(b) {
		data := mustRead(b, path)
		f := fileOf(path)
		if out := mustApply(b, Ruby, data, f); !bytes.Equal(out, data) {
			b.Fatalf("%s does not round-trip", path)
		}
		files, fs = append(files, data), append(fs, f)
		total += len(data)
		units += len(mustDecode(b, data, f))
	}
	return files, fs, total, units
}

// BenchmarkDecode decodes every diaspora file, as an import does.
func BenchmarkDecode(b *testing.B) {
	files, fs, total, units := loadCorpus(b)
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for i, data := range files {
			us, err := Ruby.Decode(data, fs[i])
			if err != nil {
				b.Fatal(err)
			}
			n += len(us)
		}
		if n != units {
			b.Fatalf("%d units, want %d", n, units)
		}
	}
}

// BenchmarkApply writes every diaspora file with three edits and one
// added unit, the shape of a typical write-back.
func BenchmarkApply(b *testing.B) {
	files, fs, total, _ := loadCorpus(b)
	edits := make([][]formats.Edit, len(files))
	for j, data := range files {
		units := mustDecode(b, data, fs[j])
		for k := 0; k < len(units); k += max(1, len(units)/3) {
			if len(units[k].Target) == 1 {
				edits[j] = append(edits[j], formats.Edit{Context: units[k].Context, Target: []string{"Geändert " + units[k].Target[0]}})
			}
		}
		edits[j] = append(edits[j], formats.Edit{Context: "tolk->added", Target: []string{"neu"}})
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for j, data := range files {
			out, err := Ruby.Apply(data, fs[j], edits[j])
			if err != nil {
				b.Fatal(err)
			}
			if len(out) <= len(data) {
				b.Fatal("output not longer than input")
			}
		}
	}
}

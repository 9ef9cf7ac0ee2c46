package arb

import (
	"bytes"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// loadCorpus reads every corpus file and checks that each round-trips
// before anything is timed.
func loadCorpus(b *testing.B) (files [][]byte, total, units int) {
	b.Helper()
	for _, path := range corpusFiles(b) {
		data := mustRead(b, path)
		if out := mustApply(b, data); !bytes.Equal(out, data) {
			b.Fatalf("%s does not round-trip", path)
		}
		files = append(files, data)
		total += len(data)
		units += len(mustDecode(b, data))
	}
	return files, total, units
}

// BenchmarkDecode decodes every fluffychat file, as an import does.
func BenchmarkDecode(b *testing.B) {
	files, total, units := loadCorpus(b)
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, data := range files {
			us, err := Codec{}.Decode(data, formats.File{})
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

// BenchmarkApply writes every fluffychat file with three edits and one
// added message, the shape of a typical write-back.
func BenchmarkApply(b *testing.B) {
	files, total, _ := loadCorpus(b)
	edits := make([][]formats.Edit, len(files))
	for j, data := range files {
		units := mustDecode(b, data)
		for k := 0; k < len(units); k += max(1, len(units)/3) {
			edits[j] = append(edits[j], formats.Edit{Context: units[k].Context, Target: []string{"Geändert " + units[k].Target[0]}})
		}
		edits[j] = append(edits[j], formats.Edit{Context: "tolkAdded", Target: []string{"neu"}})
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for j, data := range files {
			out, err := Codec{}.Apply(data, formats.File{}, edits[j])
			if err != nil {
				b.Fatal(err)
			}
			if len(out) <= len(data) {
				b.Fatal("output not longer than input")
			}
		}
	}
}

package properties

import (
	"bytes"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// loadCorpus reads every file of a corpus and checks that each
// round-trips before anything is timed.
func loadCorpus(b *testing.B, i int) (files [][]byte, total, units int) {
	b.Helper()
	cp := corpora[i]
	for _, path := range corpusFiles(b, cp.name, cp.dir) {
		data := mustRead(b, path)
		if out := mustApply(b, cp.codec, data); !bytes.Equal(out, data) {
			b.Fatalf("%s does not round-trip", path)
		}
		files = append(files, data)
		total += len(data)
		units += len(mustDecode(b, cp.codec, data))
	}
	return files, total, units
}

// BenchmarkDecode decodes every file of a corpus, as an import does.
func BenchmarkDecode(b *testing.B) {
	for i, cp := range corpora {
		b.Run(cp.name, func(b *testing.B) {
			files, total, units := loadCorpus(b, i)
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for _, data := range files {
					us, err := cp.codec.Decode(data, formats.File{})
					if err != nil {
						b.Fatal(err)
					}
					n += len(us)
				}
				if n != units {
					b.Fatalf("%d units, want %d", n, units)
				}
			}
		})
	}
}

// BenchmarkApply writes every file of a corpus with three edits and one
// added key, the shape of a typical write-back.
func BenchmarkApply(b *testing.B) {
	for i, cp := range corpora {
		b.Run(cp.name, func(b *testing.B) {
			files, total, _ := loadCorpus(b, i)
			edits := make([][]formats.Edit, len(files))
			for j, data := range files {
				units := mustDecode(b, cp.codec, data)
				for k := 0; k < len(units); k += max(1, len(units)/3) {
					edits[j] = append(edits[j], formats.Edit{Context: units[k].Context, Target: []string{"Geändert " + units[k].Target[0]}})
				}
				edits[j] = append(edits[j], formats.Edit{Context: "tolk.added", Target: []string{"neu"}})
			}
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				for j, data := range files {
					out, err := cp.codec.Apply(data, formats.File{}, edits[j])
					if err != nil {
						b.Fatal(err)
					}
					if len(out) <= len(data) {
						b.Fatalf("output not longer than input")
					}
				}
			}
		})
	}
}

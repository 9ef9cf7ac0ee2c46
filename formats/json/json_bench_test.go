package json

import (
	"bytes"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// loadCorpus reads every file of a corpus and checks that each round-trips
// before anything is timed, so a fast wrong answer cannot pass.
func loadCorpus(b *testing.B, name string) (files [][]byte, total, units int) {
	b.Helper()
	for _, path := range corpusFiles(b, name) {
		data := mustRead(b, path)
		f := mustDecode(b, data)
		if out := mustEncode(b, f); !bytes.Equal(out, data) {
			b.Fatalf("%s does not round-trip", path)
		}
		files = append(files, data)
		total += len(data)
		units += f.Len()
	}
	return files, total, units
}

// BenchmarkDecode decodes every file of a corpus and builds its units, as
// an import does.
func BenchmarkDecode(b *testing.B) {
	for _, name := range corpora {
		b.Run(name, func(b *testing.B) {
			files, total, units := loadCorpus(b, name)
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for _, data := range files {
					f, err := Decode(bytes.NewReader(data))
					if err != nil {
						b.Fatal(err)
					}
					n += len(f.Units())
				}
				if n != units {
					b.Fatalf("%d units, want %d", n, units)
				}
			}
			b.ReportMetric(float64(units), "units/op")
		})
	}
}

// BenchmarkEncode writes the largest file of each corpus with a few edits
// and one insertion, the shape of a typical write-back.
func BenchmarkEncode(b *testing.B) {
	cases := []struct{ name, file string }{
		{"jellyfin-web", "jellyfin-web/src/strings/ta.json"},
		{"kavita", "kavita/UI/Web/src/assets/langs/ga.json"},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			corpusFiles(b, tc.name)
			data := mustRead(b, corpusDir+"/"+tc.file)
			f := mustDecode(b, data)
			units := f.Units()
			var edits []formats.Edit
			for i := 0; i < len(units); i += len(units) / 4 {
				edits = append(edits, edit(units[i].Context, "Tolk \"edit\" <b>ü</b>"))
			}
			edits = append(edits, edit(units[len(units)/2].Context+"_tolk_new", "new"))
			if out := mustEncode(b, f, edits...); bytes.Equal(out, data) {
				b.Fatal("edits changed nothing")
			}
			// A reused buffer, as a writer that batches files would keep.
			var out bytes.Buffer
			out.Grow(2 * len(data))
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				out.Reset()
				if err := f.Encode(&out, edits); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

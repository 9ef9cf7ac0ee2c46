package xliff

import (
	"bytes"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// loadCorpus reads every file of a corpus and checks, before anything is
// timed, that each decodes and that Apply without edits returns it.
func loadCorpus(b *testing.B, name string, c Codec) (files [][]byte, total, units int) {
	b.Helper()
	for _, path := range corpusFiles(b, name) {
		data := mustRead(b, path)
		units += len(mustDecode(b, c, data, de()))
		if out := mustApply(b, c, data, de()); !bytes.Equal(out, data) {
			b.Fatalf("%s does not round-trip", path)
		}
		files = append(files, data)
		total += len(data)
	}
	return files, total, units
}

// BenchmarkDecode decodes every file of each corpus, as an import does.
func BenchmarkDecode(b *testing.B) {
	for _, cp := range corpora {
		b.Run(cp.name, func(b *testing.B) {
			files, total, units := loadCorpus(b, cp.name, cp.codec)
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for _, data := range files {
					us, err := cp.codec.Decode(data, de())
					if err != nil {
						b.Fatal(err)
					}
					n += len(us)
				}
				if n != units {
					b.Fatalf("%d units, want %d", n, units)
				}
			}
			b.ReportMetric(float64(units), "units/op")
		})
	}
}

// BenchmarkApply writes the largest file of each corpus with an edit of
// every tenth unit and one added unit, the shape of a write-back.
func BenchmarkApply(b *testing.B) {
	cases := []struct {
		name, file string
		codec      Codec
	}{
		{"kimai", "kimai/translations/messages.de.xlf", XLIFF},
		{"pkspot", "pkspot/src/locale/messages.de-CH.xlf", XLIFF2},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			corpusFiles(b, tc.name)
			data := mustRead(b, corpusDir+"/"+tc.file)
			units := mustDecode(b, tc.codec, data, de())
			var edits []formats.Edit
			for i := 0; i < len(units); i += 10 {
				edits = append(edits, formats.Edit{Context: units[i].Context, Source: units[i].Source, Target: []string{"Tolk <x id=\"1\"/> ü"}})
			}
			edits = append(edits, formats.Edit{Context: "tolk.bench.new", Source: []string{"New"}, Target: []string{"Neu"}})
			if out := mustApply(b, tc.codec, data, de(), edits...); bytes.Equal(out, data) {
				b.Fatal("edits changed nothing")
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tc.codec.Apply(data, de(), edits); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

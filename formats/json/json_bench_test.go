package json

import (
	"bytes"
	"fmt"
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

// BenchmarkDialectUnits builds the units of one synthetic file of 2,000
// keys, a quarter of them plurals, in i18next v4 and v3 (numbered keys,
// Russian), so the v3 walk's key lookups can be compared with v4's.
func BenchmarkDialectUnits(b *testing.B) {
	var v4, v3 bytes.Buffer
	v4.WriteString("{\n")
	v3.WriteString("{\n")
	for i := range 2000 {
		sep := ",\n"
		if i == 1999 {
			sep = "\n"
		}
		if i%4 == 0 {
			fmt.Fprintf(&v4, "  \"section.key%d_one\": \"one %d\",\n  \"section.key%d_few\": \"few %d\",\n  \"section.key%d_many\": \"many %d\"%s", i, i, i, i, i, i, sep)
			fmt.Fprintf(&v3, "  \"section.key%d_0\": \"one %d\",\n  \"section.key%d_1\": \"few %d\",\n  \"section.key%d_2\": \"many %d\"%s", i, i, i, i, i, i, sep)
		} else {
			fmt.Fprintf(&v4, "  \"section.key%d\": \"value %d\"%s", i, i, sep)
			fmt.Fprintf(&v3, "  \"section.key%d\": \"value %d\"%s", i, i, sep)
		}
	}
	v4.WriteString("}\n")
	v3.WriteString("}\n")
	for _, tc := range []struct {
		name string
		d    Dialect
		data []byte
	}{{"i18nextv4", I18nextV4, v4.Bytes()}, {"i18next", I18nextV3, v3.Bytes()}} {
		b.Run(tc.name, func(b *testing.B) {
			f := mustDecode(b, tc.data)
			f.Dialect, f.Plurals = tc.d, catsRU
			if n := len(f.Units()); n != 2000 {
				b.Fatalf("%d units, want 2000", n)
			}
			b.SetBytes(int64(len(tc.data)))
			b.ReportAllocs()
			for b.Loop() {
				if n := len(f.Units()); n != 2000 {
					b.Fatalf("%d units", n)
				}
			}
		})
	}
}

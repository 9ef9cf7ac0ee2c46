package apple

import (
	"bytes"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// benchCorpus returns the corpus files of one extension, after checking
// that each round-trips, so a fast wrong answer cannot pass.
func benchCorpus(b *testing.B, ext string, c formats.Codec, f formats.File) (files [][]byte, total, units int) {
	b.Helper()
	names, all := corpusFiles(b, ext)
	for _, name := range names {
		data := all[name]
		if out, err := c.Apply(data, f, nil); err != nil || !bytes.Equal(out, data) {
			b.Fatalf("%s does not round-trip (%v)", name, err)
		}
		u, _ := c.Decode(data, f)
		files = append(files, data)
		total += len(data)
		units += len(u)
	}
	return files, total, units
}

var benchCodecs = []struct {
	name, ext string
	codec     formats.Codec
}{
	{"strings", ".strings", StringsUTF8},
	{"stringsdict", ".stringsdict", Stringsdict},
}

// BenchmarkDecode decodes every corpus file, as an import does.
func BenchmarkDecode(b *testing.B) {
	f := fileWith("one", "other")
	for _, bc := range benchCodecs {
		b.Run(bc.name, func(b *testing.B) {
			files, total, units := benchCorpus(b, bc.ext, bc.codec, f)
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for _, data := range files {
					u, err := bc.codec.Decode(data, f)
					if err != nil {
						b.Fatal(err)
					}
					n += len(u)
				}
				if n != units {
					b.Fatalf("%d units, want %d", n, units)
				}
			}
		})
	}
}

// BenchmarkApply writes three edits and one new unit into every corpus
// file, the shape of a typical write-back.
func BenchmarkApply(b *testing.B) {
	f := fileWith("one", "other")
	for _, bc := range benchCodecs {
		b.Run(bc.name, func(b *testing.B) {
			files, total, _ := benchCorpus(b, bc.ext, bc.codec, f)
			edits := make([][]formats.Edit, len(files))
			for i, data := range files {
				u, _ := bc.codec.Decode(data, f)
				for _, j := range []int{0, len(u) / 2, len(u) - 1} {
					tg := make([]string, len(u[j].Target))
					for k := range tg {
						tg[k] = "edited \"value\" & <more>"
					}
					edits[i] = append(edits[i], formats.Edit{Context: u[j].Context, Target: tg})
				}
				edits[i] = append(edits[i], formats.Edit{Context: "bench.new:count", Target: []string{"one", "other"}})
			}
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				for i, data := range files {
					out, err := bc.codec.Apply(data, f, edits[i])
					if err != nil || bytes.Equal(out, data) {
						b.Fatalf("Apply changed nothing (%v)", err)
					}
				}
			}
		})
	}
}

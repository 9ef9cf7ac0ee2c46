package tbx

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkDecode decodes every Slicer glossary and lists its units, as an
// import does.
func BenchmarkDecode(b *testing.B) {
	files := mustCorpus(b, "slicer")
	var size int64
	for _, cf := range files {
		size += int64(len(cf.data))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, cf := range files {
			f, err := Decode(bytes.NewReader(cf.data))
			if err != nil {
				b.Fatal(err)
			}
			n += len(f.Units(cf.source, cf.target))
		}
		if n != 6938 {
			b.Fatalf("%d units, want 6938", n)
		}
	}
}

// BenchmarkEncode writes ca.tbx, the largest Slicer file, with no edits,
// with every entry's target edited, and with one new entry (built with
// etree).
func BenchmarkEncode(b *testing.B) {
	cf := mustCorpusFile(b, "slicer", "ca.tbx")
	f := mustDecode(b, cf.data)
	var all []Edit
	for _, u := range f.Units(cf.source, cf.target) {
		all = append(all, Edit{Source: u.Source[0], Context: u.Context, Target: []string{u.Target[0] + " & nou"}})
	}
	for _, bc := range []struct {
		name  string
		edits []Edit
	}{
		{"unchanged", nil},
		{"one", all[100:101]},
		{"all", all},
		{"add", []Edit{{Source: "new term", Context: "n1", Target: []string{"terme nou"}, Add: true}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(cf.data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := f.EncodeTerms(io.Discard, cf.source, cf.target, bc.edits); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package android

import (
	"bytes"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// BenchmarkDecode decodes every strings.xml of the newpipe corpus, as an
// import does; the unit count is checked against SOURCE.md before and
// inside the timed loop.
func BenchmarkDecode(b *testing.B) {
	files := corpusFiles(b)
	total := 0
	for _, c := range files {
		total += len(c.data)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, c := range files {
			units, err := Codec{}.Decode(c.data, fileFor(c))
			if err != nil {
				b.Fatal(err)
			}
			n += len(units)
		}
		if n != 18023 {
			b.Fatalf("%d units, want 18023", n)
		}
	}
}

// BenchmarkApply writes a few edits, a plural and a new string into
// every file of the corpus, the shape of a typical write-back; the output
// is checked to differ before timing.
func BenchmarkApply(b *testing.B) {
	files := corpusFiles(b)
	type job struct {
		data  []byte
		f     formats.File
		edits []formats.Edit
	}
	var jobs []job
	total := 0
	for _, c := range files {
		f := fileFor(c)
		units := mustDecode(b, c.data, f)
		var edits []formats.Edit
		for i := 0; i < len(units); i += len(units)/4 + 1 {
			edits = append(edits, formats.Edit{Context: units[i].Context, Target: []string{"Tolk's \"edit\" <b>ü</b>\nline"}})
		}
		edits = append(edits, formats.Edit{Context: "tolk_new", Target: []string{"new"}})
		if out := mustApply(b, c.data, f, edits...); bytes.Equal(out, c.data) {
			b.Fatalf("%s: edits changed nothing", c.path)
		}
		jobs = append(jobs, job{c.data, f, edits})
		total += len(c.data)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, j := range jobs {
			if _, err := (Codec{}).Apply(j.data, j.f, j.edits); err != nil {
				b.Fatal(err)
			}
		}
	}
}

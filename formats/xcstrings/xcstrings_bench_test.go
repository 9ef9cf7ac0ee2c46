package xcstrings

import (
	"bytes"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// BenchmarkDecode reads one language of the 2 MB IceCubes catalog.
func BenchmarkDecode(b *testing.B) {
	data := mustCorpus(b)
	f := file("fr", []string{"one", "many", "other"})
	if units := mustDecode(b, data, f); len(units) != 747 {
		b.Fatalf("%d units, want 747", len(units))
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Codec{}).Decode(data, f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApply writes into the catalog: no edits, one edit, and every
// French unit rewritten with its own value (a full commit of a language).
func BenchmarkApply(b *testing.B) {
	data := mustCorpus(b)
	f := file("fr", []string{"one", "many", "other"})
	var all []formats.Edit
	for _, u := range mustDecode(b, data, f) {
		if !empty(u.Target) {
			all = append(all, formats.Edit{Context: u.Context, Target: u.Target, Fuzzy: u.Fuzzy})
		}
	}
	for _, bc := range []struct {
		name  string
		edits []formats.Edit
	}{
		{"none", nil},
		{"one", []formats.Edit{{Context: "account.joined", Target: []string{"Inscrit le"}}}},
		{"all", all},
	} {
		b.Run(bc.name, func(b *testing.B) {
			out := mustApply(b, data, f, bc.edits...)
			if bc.name != "one" && !bytes.Equal(out, data) {
				b.Fatal("rewriting values with themselves changed the file")
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (Codec{}).Apply(data, f, bc.edits); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeLanguages reads every language of the catalog but the
// source from one parse, as an import does.
func BenchmarkDecodeLanguages(b *testing.B) {
	data := mustCorpus(b)
	var fs []formats.File
	for _, l := range corpusLangs {
		if l != "en" {
			fs = append(fs, file(l, []string{"one", "many", "other"}))
		}
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Codec{}).DecodeLanguages(data, fs); err != nil {
			b.Fatal(err)
		}
	}
}

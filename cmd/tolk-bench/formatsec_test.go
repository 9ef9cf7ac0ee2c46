package main

import (
	"slices"
	"testing"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/internal/corpusspec"
)

// TestFormats runs the formats section on a few files of each corpus
// component, as -quick does, and checks what it measured.
func TestFormats(t *testing.T) {
	corpus, err := findCorpus("")
	if err != nil {
		t.Skip(err)
	}
	fr, err := benchFormats(corpus, quickFiles, true, func(fn func() error) error { return fn() }, nil, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	checkFormats(t, fr)
}

// checkFormats checks that every format Tolk offers was measured on a
// corpus component, that each row decoded units beside its ceiling, and
// that each format's edit changed a few lines of its largest and
// smallest files, not the file.
func checkFormats(t *testing.T, fr *formatsResult) {
	t.Helper()
	if fr == nil {
		t.Fatal("no formats section")
	}
	var measured []string
	for _, r := range fr.Components {
		measured = append(measured, r.Format)
		if r.Files == 0 || r.Units == 0 || r.Bytes == 0 || r.Sec <= 0 || r.CeilSec <= 0 || r.Ceiling == "" {
			t.Errorf("%s: %d files, %d units, %d bytes, Decode %.6f s, ceiling %q %.6f s",
				r.Component, r.Files, r.Units, r.Bytes, r.Sec, r.Ceiling, r.CeilSec)
		}
	}
	if len(fr.Components) != len(corpusspec.Components) {
		t.Errorf("%d components measured, corpusspec has %d", len(fr.Components), len(corpusspec.Components))
	}
	// The formats the corpus has no component of: JSON dialects and
	// variants of a measured format's codec. A new format needs a
	// corpus component in corpusspec, or its name here.
	var missing []string
	for _, f := range formats.All() {
		if !slices.Contains(measured, f.Name) {
			missing = append(missing, f.Name)
		}
	}
	if want := []string{"i18next", "i18nextv4", "go-i18n-json", "go-i18n-json-v2", "webextension", "po-mono", "plainxliff", "poxliff", "strings", "yaml"}; !slices.Equal(missing, want) {
		t.Errorf("formats without a corpus component: %q, want %q", missing, want)
	}
	for _, a := range fr.Apply {
		if !slices.Contains(measured, a.Format) {
			t.Errorf("Apply of %s, whose Decode was not measured", a.Format)
		}
		for _, af := range []applyFile{a.Large, a.Small} {
			// One value: a line removed and one added per plural form
			// (Arabic has 6), PO's revision date besides.
			if af.ApplySec <= 0 || af.DecodeSec <= 0 || af.Changed < 1 || af.Changed > 12 {
				t.Errorf("%s %s: Apply %.6f s, Decode %.6f s, %d lines changed", a.Format, af.Path, af.ApplySec, af.DecodeSec, af.Changed)
			}
		}
		if a.Large.Bytes < a.Small.Bytes {
			t.Errorf("%s: largest file %d bytes, smallest %d", a.Format, a.Large.Bytes, a.Small.Bytes)
		}
	}
	if len(fr.Apply) == 0 {
		t.Error("no Apply measured")
	}
}

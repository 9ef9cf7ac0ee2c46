package yaml

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/internal/corpustest"
)

// corpusDir is the shared corpus seen from this package's directory.
var corpusDir = corpustest.Root

// fileOf returns the formats.File of a diaspora file: its language's
// CLDR plural categories, by the file name.
func fileOf(path string) formats.File {
	code := filepath.Base(path)
	code = code[:len(code)-len(filepath.Ext(code))]
	plurals := map[string][]string{
		"ar": {"zero", "one", "two", "few", "many", "other"}, "cy": {"zero", "one", "two", "few", "many", "other"},
		"cs": {"one", "few", "many", "other"}, "pl": {"one", "few", "many", "other"}, "ru": {"one", "few", "many", "other"},
		"uk": {"one", "few", "many", "other"}, "ga": {"one", "two", "few", "many", "other"}, "he": {"one", "two", "other"},
		"ja": {"other"}, "zh-TW": {"other"}, "fr": {"one", "many", "other"}, "es": {"one", "many", "other"}, "pt-BR": {"one", "many", "other"},
	}[code]
	if plurals == nil {
		plurals = []string{"one", "other"}
	}
	return formats.File{Target: formats.Language{Code: code, Plurals: plurals}}
}

func mustDecode(tb testing.TB, data []byte, f formats.File) []formats.Unit {
	tb.Helper()
	units, err := Ruby.Decode(data, f)
	if err != nil {
		tb.Fatalf("Decode: %v\n%s", err, data)
	}
	return units
}

func mustApply(tb testing.TB, c Codec, data []byte, f formats.File, edits ...formats.Edit) []byte {
	tb.Helper()
	out, err := c.Apply(data, f, edits)
	if err != nil {
		tb.Fatalf("Apply: %v", err)
	}
	return out
}

// TestRoundTripCorpus checks that Apply without edits, and with every
// unit set to its own value, returns each corpus file byte for byte.
func TestRoundTripCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		data := mustRead(t, path)
		f := fileOf(path)
		units := mustDecode(t, data, f)
		if out := mustApply(t, Ruby, data, f); !bytes.Equal(out, data) {
			t.Errorf("%s: Apply without edits differs from the input", path)
		}
		var same []formats.Edit
		for _, u := range units {
			same = append(same, formats.Edit{Context: u.Context, Target: u.Target, Plural: len(u.Target) > 1})
		}
		if out := mustApply(t, Ruby, data, f, same...); !bytes.Equal(out, data) {
			t.Errorf("%s: Apply with unchanged values differs from the input", path)
		}
	}
}

// TestCorpusCounts checks SOURCE.md: 925 units in en.yml, 30 of them
// plural hashes, and 12,271 over all files, plural hashes counted once.
func TestCorpusCounts(t *testing.T) {
	total := 0
	for _, path := range corpusFiles(t) {
		f := fileOf(path)
		units := mustDecode(t, mustRead(t, path), f)
		total += len(units)
		if filepath.Base(path) == "en.yml" {
			plurals := 0
			for _, u := range units {
				if len(u.Target) > 1 {
					plurals++
				}
			}
			if len(units) != 925 || plurals != 30 {
				t.Errorf("en.yml: %d units, %d plural; SOURCE.md says 925 and 30", len(units), plurals)
			}
		}
	}
	if total != 12271 {
		t.Errorf("%d units over all files, SOURCE.md says 12,271", total)
	}
}

// corpusFiles returns diaspora's locale files.
func corpusFiles(tb testing.TB) []string {
	tb.Helper()
	return corpustest.Glob(tb, "diaspora", filepath.Join("config", "locales", "diaspora", "*.yml"))
}

// mustRead reads a corpus or test file.
var mustRead = corpustest.Read

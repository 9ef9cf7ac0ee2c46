package xliff

import (
	"testing"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/internal/corpustest"
)

// corpusDir is the shared corpus seen from this package's directory.
var corpusDir = corpustest.Root

// corpora names the XLIFF corpora and the codec that reads each.
var corpora = []struct {
	name  string
	codec Codec
}{
	{"kimai", XLIFF},
	{"pkspot", XLIFF2},
}

func mustDecode(tb testing.TB, c Codec, data []byte, f formats.File) []formats.Unit {
	tb.Helper()
	units, err := c.Decode(data, f)
	if err != nil {
		tb.Fatalf("Decode: %v\n%s", err, data)
	}
	return units
}

func mustApply(tb testing.TB, c Codec, data []byte, f formats.File, edits ...formats.Edit) []byte {
	tb.Helper()
	out, err := c.Apply(data, f, edits)
	if err != nil {
		tb.Fatalf("Apply(%+v): %v\n%s", edits, err, data)
	}
	return out
}

// byContext maps each context to its unit, failing on duplicates.
func byContext(tb testing.TB, units []formats.Unit) map[string]formats.Unit {
	tb.Helper()
	m := make(map[string]formats.Unit, len(units))
	for _, u := range units {
		if _, dup := m[u.Context]; dup {
			tb.Fatalf("context %q appears twice", u.Context)
		}
		m[u.Context] = u
	}
	return m
}

func de() formats.File {
	return formats.File{Source: formats.Language{Code: "en"}, Target: formats.Language{Code: "pt_BR"}}
}

func editOf(ctx, target string) formats.Edit {
	return formats.Edit{Context: ctx, Target: []string{target}}
}

// corpusFiles returns every .xlf file under corpus folder name, sorted.
func corpusFiles(tb testing.TB, name string) []string {
	tb.Helper()
	return corpustest.Walk(tb, name, ".xlf")
}

// mustRead reads a corpus or test file.
var mustRead = corpustest.Read

package xliff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// corpusDir is the shared corpus seen from this package's directory.
var corpusDir = filepath.Join("..", "..", "..", "shared", "corpus")

// corpora names the XLIFF corpora and the codec that reads each.
var corpora = []struct {
	name  string
	codec Codec
}{
	{"kimai", XLIFF},
	{"pkspot", XLIFF2},
}

// corpusFiles returns every .xlf file under corpus/name, sorted, skipping
// the test when the corpus is not checked out beside the repository.
func corpusFiles(tb testing.TB, name string) []string {
	tb.Helper()
	root := filepath.Join(corpusDir, name)
	if _, err := os.Stat(root); err != nil {
		tb.Skipf("corpus %s not found (%v); it lives in shared/corpus beside the checkout", root, err)
	}
	var paths []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".xlf") {
			paths = append(paths, path)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(paths) == 0 {
		tb.Fatalf("no .xlf files under %s", root)
	}
	return paths
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data
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

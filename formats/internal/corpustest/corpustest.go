// Package corpustest finds the shared corpus (shared/corpus beside the
// checkout) for the tests of the packages under formats/, which each had
// a copy of these helpers.
package corpustest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Root is shared/corpus seen from a package directory formats/<name>,
// where go test runs that package's tests.
var Root = filepath.Join("..", "..", "..", "shared", "corpus")

// Dir returns the corpus folder (its path parts below Root), skipping tb
// when the corpus is not checked out beside the repository.
func Dir(tb testing.TB, parts ...string) string {
	tb.Helper()
	dir := filepath.Join(append([]string{Root}, parts...)...)
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("corpus %s not found (%v); it lives in shared/corpus beside the checkout", dir, err)
	}
	return dir
}

// Glob returns the files of corpus folder folder matching pattern
// (relative to it), sorted; it skips tb without the corpus and fails it
// when nothing matches.
func Glob(tb testing.TB, folder, pattern string) []string {
	tb.Helper()
	root := Dir(tb, folder)
	paths, err := filepath.Glob(filepath.Join(root, pattern))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no %s in %s: %v", pattern, root, err)
	}
	return paths
}

// Walk returns every file under corpus folder folder whose name ends in
// ext, sorted; it skips tb without the corpus and fails it when there is
// none.
func Walk(tb testing.TB, folder, ext string) []string {
	tb.Helper()
	root := Dir(tb, folder)
	var paths []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ext) {
			paths = append(paths, path)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(paths) == 0 {
		tb.Fatalf("no %s files under %s", ext, root)
	}
	sort.Strings(paths)
	return paths
}

// Read returns a file's bytes or fails tb.
func Read(tb testing.TB, path string) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

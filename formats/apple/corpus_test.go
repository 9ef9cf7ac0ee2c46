package apple

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// corpusRoot is the mastodon-ios corpus seen from this package's directory.
var corpusRoot = filepath.Join("..", "..", "..", "shared", "corpus", "mastodon-ios",
	"MastodonSDK", "Sources", "MastodonLocalization", "Resources")

// corpusFiles returns the corpus files with the given extension, keyed by
// their .lproj folder name ("Base", "zh-Hans"), skipping the test when the
// corpus is not checked out beside the repository.
func corpusFiles(tb testing.TB, ext string) (names []string, files map[string][]byte) {
	tb.Helper()
	if _, err := os.Stat(corpusRoot); err != nil {
		tb.Skipf("corpus %s not found (%v); it lives in shared/corpus beside the checkout", corpusRoot, err)
	}
	paths, err := filepath.Glob(filepath.Join(corpusRoot, "*.lproj", "Localizable"+ext))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no Localizable%s under %s (%v)", ext, corpusRoot, err)
	}
	files = make(map[string][]byte)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		name := filepath.Base(filepath.Dir(p))
		name = name[:len(name)-len(".lproj")]
		files[name] = data
		names = append(names, name)
	}
	sort.Strings(names)
	return names, files
}

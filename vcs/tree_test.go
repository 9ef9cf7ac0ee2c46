package vcs

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"testing"
)

func TestFiles(t *testing.T) {
	t.Parallel()
	r := mustClone(t, mustBareRepo(t, sampleFiles))
	match := func(pattern string) func(string) bool {
		return func(p string) bool { ok, _ := path.Match(pattern, p); return ok }
	}
	tests := []struct {
		name  string
		match func(string) bool
		want  []string
	}{
		{name: "json in locales", match: match("locales/*.json"), want: []string{"locales/de.json", "locales/en.json"}},
		{name: "all", match: nil, want: []string{"README.md", "locales/de.json", "locales/en.json", "locales/extra/x.js", "src/main.go"}},
		{name: "none", match: match("*.po"), want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := listFiles(r, tc.match)
			if err != nil {
				t.Fatalf("Files: %v", err)
			}
			var got []string
			for _, f := range files {
				got = append(got, f.Path)
				content := sampleFiles[f.Path]
				if f.Size != int64(len(content)) {
					t.Errorf("%s: Size = %d, want %d", f.Path, f.Size, len(content))
				}
				if want := hashObject(t, content); f.Hash != want {
					t.Errorf("%s: Hash = %s, want %s", f.Path, f.Hash, want)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Files paths = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadFileAndBlobHash(t *testing.T) {
	t.Parallel()
	r := mustClone(t, mustBareRepo(t, sampleFiles))
	// Edits in the working tree that are not committed don't matter.
	writeFiles(t, r.Dir(), map[string]string{"locales/en.json": "dirty", "new.txt": "new"})

	for p, content := range sampleFiles {
		if got := mustReadFile(t, r, p); got != content {
			t.Errorf("ReadFile(%s) = %q, want %q", p, got, content)
		}
		h, err := r.BlobHash(p)
		if err != nil {
			t.Fatalf("BlobHash(%s): %v", p, err)
		}
		if want := hashObject(t, content); h != want {
			t.Errorf("BlobHash(%s) = %s, want git hash-object %s", p, h, want)
		}
	}
	for _, p := range []string{"new.txt", "missing.json", "locales", "locales/missing.json", "nodir/x"} {
		if _, err := r.ReadFile(p); !errors.Is(err, ErrNotExist) {
			t.Errorf("ReadFile(%s) = %v, want ErrNotExist", p, err)
		}
		if _, err := r.BlobHash(p); !errors.Is(err, ErrNotExist) {
			t.Errorf("BlobHash(%s) = %v, want ErrNotExist", p, err)
		}
	}
}

// hashObject returns `git hash-object` of content.
func hashObject(tb testing.TB, content string) string {
	tb.Helper()
	f := filepath.Join(tb.TempDir(), "blob")
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
	return mustGit(tb, "/", "hash-object", "--no-filters", f)
}

package vcs

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestBlobHashFollowsLinks: the blob hash of a path that is a symbolic
// link is that of the file it names, the hash Files lists for it, so
// that a translation read through a link matches its recorded revision.
func TestBlobHashFollowsLinks(t *testing.T) {
	root := t.TempDir()
	bare, work := filepath.Join(root, "upstream.git"), filepath.Join(root, "seed")
	mustGit(t, root, "init", "--quiet", "--bare", "--initial-branch=main", bare)
	mustGit(t, root, "init", "--quiet", "--initial-branch=main", work)
	writeFiles(t, work, map[string]string{"locales/de.json": `{"a": "b"}` + "\n"})
	if err := os.Symlink("de.json", filepath.Join(work, "locales", "de_AT.json")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	mustGit(t, work, "add", "-A")
	mustGit(t, work, "commit", "--quiet", "-m", "link")
	mustGit(t, work, "push", "--quiet", bare, "main")
	r := mustClone(t, "file://"+bare)

	want, err := r.BlobHash("locales/de.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.BlobHash("locales/de_AT.json")
	if err != nil || got != want {
		t.Errorf("BlobHash(link) = %s, %v; want the file's %s", got, err, want)
	}
	files, err := r.Files(context.Background(), FilesOptions{Match: func(string) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files.Files {
		if f.Path == "locales/de_AT.json" && f.Hash != got {
			t.Errorf("Files lists the link with %s, BlobHash says %s", f.Hash, got)
		}
	}
}

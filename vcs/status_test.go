package vcs

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("clean clone", func(t *testing.T) {
		t.Parallel()
		r := mustClone(t, mustBareRepo(t, sampleFiles))
		st, err := r.Status()
		if err != nil {
			t.Fatal(err)
		}
		head := mustHead(t, r)
		if st.Branch != "main" || st.Head.Hash != head || st.Remote == nil || st.Remote.Hash != head ||
			st.Ahead != 0 || st.Behind != 0 || len(st.Modified) != 0 || len(st.Untracked) != 0 {
			t.Errorf("Status = %+v, want clean at %s", st, head)
		}
		if st.Head.Summary() != "Initial commit" || st.Head.Author.Email != "upstream@example.invalid" {
			t.Errorf("Head = %+v", st.Head)
		}
		want := "On branch main\nYour branch is up to date with 'origin/main'.\n\nnothing to commit, working tree clean\n"
		if got := st.String(); got != want {
			t.Errorf("String() =\n%s\nwant\n%s", got, want)
		}
	})

	t.Run("fetched upstream commit", func(t *testing.T) {
		t.Parallel()
		url := mustBareRepo(t, sampleFiles)
		r := mustClone(t, url)
		head := mustHead(t, r)
		up := upstreamCommit(t, url, "main", map[string]string{"locales/de.json": "{}"})
		if st, err := r.Status(); err != nil || st.Behind != 0 {
			t.Fatalf("before fetch: Status = %+v, %v; want Behind 0", st, err)
		}
		changed, err := r.Fetch(ctx)
		if !changed || err != nil {
			t.Fatalf("Fetch = %v, %v; want true, nil", changed, err)
		}
		if changed, err := r.Fetch(ctx); changed || err != nil {
			t.Errorf("second Fetch = %v, %v; want false, nil", changed, err)
		}
		st, err := r.Status()
		if err != nil {
			t.Fatal(err)
		}
		if st.Head.Hash != head || st.Remote == nil || st.Remote.Hash != up || st.Behind != 1 || st.Ahead != 0 {
			t.Errorf("Status = %+v; want HEAD %s unmoved, remote %s, behind 1", st, head, up)
		}
		if s := st.String(); !strings.Contains(s, "Your branch is behind 'origin/main' by 1 commit, and can be fast-forwarded.") {
			t.Errorf("String() =\n%s", s)
		}
	})

	t.Run("local commit and edits", func(t *testing.T) {
		t.Parallel()
		r := mustClone(t, mustBareRepo(t, sampleFiles))
		mustCommit(t, r, map[string]string{"locales/de.json": "{}"})
		mustCommit(t, r, map[string]string{"locales/fr.json": "{}"})
		writeFiles(t, r.Dir(), map[string]string{"locales/en.json": "changed", "notes.txt": "x"})
		st, err := r.Status()
		if err != nil {
			t.Fatal(err)
		}
		if st.Ahead != 2 || st.Behind != 0 {
			t.Errorf("Ahead, Behind = %d, %d; want 2, 0", st.Ahead, st.Behind)
		}
		if !reflect.DeepEqual(st.Modified, []string{"locales/en.json"}) || !reflect.DeepEqual(st.Untracked, []string{"notes.txt"}) {
			t.Errorf("Modified = %q, Untracked = %q", st.Modified, st.Untracked)
		}
		if s := st.String(); !strings.Contains(s, "ahead of 'origin/main' by 2 commits") ||
			!strings.Contains(s, "\tmodified:   locales/en.json\n") {
			t.Errorf("String() =\n%s", s)
		}
	})

	t.Run("diverged", func(t *testing.T) {
		t.Parallel()
		url := mustBareRepo(t, sampleFiles)
		r := mustClone(t, url)
		mustCommit(t, r, map[string]string{"locales/de.json": "{}"})
		upstreamCommit(t, url, "main", map[string]string{"locales/en.json": "{}"})
		upstreamCommit(t, url, "main", map[string]string{"locales/en.json": "{ }"})
		if _, err := r.Fetch(ctx); err != nil {
			t.Fatal(err)
		}
		st, err := r.Status()
		if err != nil {
			t.Fatal(err)
		}
		if st.Ahead != 1 || st.Behind != 2 {
			t.Errorf("Ahead, Behind = %d, %d; want 1, 2", st.Ahead, st.Behind)
		}
		if s := st.String(); !strings.Contains(s, "have 1 and 2 different commits each") {
			t.Errorf("String() =\n%s", s)
		}
	})

	t.Run("local repository", func(t *testing.T) {
		t.Parallel()
		r, err := InitLocal(filepath.Join(t.TempDir(), "local"))
		if err != nil {
			t.Fatal(err)
		}
		st, err := r.Status()
		if err != nil {
			t.Fatal(err)
		}
		if st.Remote != nil || st.Ahead != 0 || st.Behind != 0 {
			t.Errorf("Status = %+v; want no remote", st)
		}
		if want := "On branch main\nnothing to commit, working tree clean\n"; st.String() != want {
			t.Errorf("String() = %q, want %q", st.String(), want)
		}
		if _, err := r.Fetch(ctx); !errors.Is(err, ErrNoRemote) {
			t.Errorf("Fetch without remote = %v, want ErrNoRemote", err)
		}
	})
}

package vcs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// packFiles lists the files of dir's objects/pack directory.
func packFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(packDir(dir))
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// cutFile cuts the file at path to size bytes, or by -size bytes when
// size is negative, as a write cut short leaves it.
func cutFile(tb testing.TB, path string, size int64) {
	tb.Helper()
	if size < 0 {
		fi, err := os.Stat(path)
		if err != nil {
			tb.Fatal(err)
		}
		size += fi.Size()
	}
	if err := os.Truncate(path, size); err != nil {
		tb.Fatal(err)
	}
}

// TestCheckPacks damages the packs of a checkout as a process killed
// inside go-git's PackWriter does (the .idx is created in place before
// the pack is renamed into place), or as a cut-off copy would, and
// checks what CheckPacks removes and whether the checkout reads, fetches
// and pulls afterwards. "fetched" is the pack a fetch brought, after the
// clone's; HEAD has not moved onto it.
func TestCheckPacks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// damage breaks the checkout at dir; fetched and cloned are
		// the two packs' paths without extension.
		damage    func(t *testing.T, dir, cloned, fetched string)
		removed   []string // base names, "cloned." and "fetched." for the packs
		lost      bool
		openErr   error // what Open says after the check
		readAfter bool  // origin/main's file reads after a fetch
	}{
		{name: "healthy", damage: func(*testing.T, string, string, string) {}, readAfter: true},
		{
			name:    "fetched index empty",
			damage:  func(t *testing.T, dir, cloned, fetched string) { cutFile(t, fetched+".idx", 0) },
			removed: []string{"fetched.idx", "fetched.pack"}, lost: true, readAfter: true,
		},
		{
			name:    "fetched index cut off",
			damage:  func(t *testing.T, dir, cloned, fetched string) { cutFile(t, fetched+".idx", -41) },
			removed: []string{"fetched.idx", "fetched.pack"}, lost: true, readAfter: true,
		},
		{
			name:    "fetched pack cut off",
			damage:  func(t *testing.T, dir, cloned, fetched string) { cutFile(t, fetched+".pack", -10) },
			removed: []string{"fetched.idx", "fetched.pack"}, lost: true, readAfter: true,
		},
		{
			name: "killed before the rename",
			damage: func(t *testing.T, dir, cloned, fetched string) {
				if err := os.Rename(fetched+".pack", filepath.Join(filepath.Dir(fetched), "tmp_pack_42")); err != nil {
					t.Fatal(err)
				}
			},
			removed: []string{"fetched.idx", "tmp_pack_42"}, readAfter: true,
		},
		{
			name:    "clone's index empty",
			damage:  func(t *testing.T, dir, cloned, fetched string) { cutFile(t, cloned+".idx", 0) },
			removed: []string{"cloned.idx", "cloned.pack"}, lost: true, openErr: ErrObjectsLost,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url := mustBareRepo(t, map[string]string{"locales/de.json": "{}\n", "README": "readme\n"})
			r := mustClone(t, url)
			dir := r.Dir()
			before := packFiles(t, dir)
			up := upstreamCommit(t, url, "main", map[string]string{"locales/de.json": `{"a": "b"}` + "\n"})
			if _, err := r.Fetch(ctx); err != nil {
				t.Fatal(err)
			}
			var cloned, fetched string
			for _, n := range packFiles(t, dir) {
				if filepath.Ext(n) != ".pack" {
					continue
				}
				base := filepath.Join(packDir(dir), n[:len(n)-len(".pack")])
				if slices.Contains(before, n) {
					cloned = base
				} else {
					fetched = base
				}
			}
			if cloned == "" || fetched == "" {
				t.Fatalf("packs %v: want the clone's and the fetch's", packFiles(t, dir))
			}
			tc.damage(t, dir, cloned, fetched)

			res, err := CheckPacks(dir)
			if err != nil {
				t.Fatalf("CheckPacks: %v", err)
			}
			var want []string
			for _, n := range tc.removed {
				switch ext := filepath.Ext(n); n[:len(n)-len(ext)] {
				case "cloned":
					want = append(want, cloned+ext)
				case "fetched":
					want = append(want, fetched+ext)
				default:
					want = append(want, filepath.Join(packDir(dir), n))
				}
			}
			slices.Sort(want)
			slices.Sort(res.Removed)
			if !slices.Equal(res.Removed, want) || res.Lost != tc.lost {
				t.Errorf("CheckPacks = %v, lost %v; want %v, lost %v", res.Removed, res.Lost, want, tc.lost)
			}
			if again, err := CheckPacks(dir); err != nil || len(again.Removed) != 0 {
				t.Errorf("CheckPacks again = %+v, %v; want nothing left to remove", again, err)
			}

			repaired.Delete(dir) // a new process
			r, err = Open(dir)
			if !errors.Is(err, tc.openErr) {
				t.Fatalf("Open = %v, want %v", err, tc.openErr)
			}
			if err != nil {
				r, _, err = Reclone(ctx, CloneOptions{URL: url, Dir: dir, NoCheckout: true})
				if err != nil {
					t.Fatalf("Reclone: %v", err)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, ".git", lostMark)); !os.IsNotExist(err) {
				t.Errorf("%s left after Open: %v", lostMark, err)
			}
			// The retried fetch writes the pack whole.
			if _, err := r.Fetch(ctx); err != nil {
				t.Fatalf("Fetch after the check: %v", err)
			}
			if got, err := r.ReadFileAt(up, "locales/de.json"); err != nil || string(got) != `{"a": "b"}`+"\n" {
				t.Errorf("upstream's file after the fetch = %q, %v", got, err)
			}
			if _, err := r.Pull(ctx); err != nil {
				t.Fatalf("Pull: %v", err)
			}
			mustCommit(t, r, map[string]string{"locales/fr.json": "{}\n"})
			if got := mustGit(t, dir, "fsck", "--no-dangling"); got != "" {
				t.Errorf("git fsck:\n%s", got)
			}
		})
	}
}

// BenchmarkCheckPacks measures the check every git job of a component
// now runs before it, on the corpus's biggest checkout (jellyfin-web,
// cloned then fetched: two packs), beside Open, which every job runs
// already.
func BenchmarkCheckPacks(b *testing.B) {
	url := mustCorpusRepo(b)
	r := mustClone(b, url)
	upstreamCommit(b, url, "main", map[string]string{"src/strings/de.json": "{}\n"})
	if _, err := r.Fetch(context.Background()); err != nil {
		b.Fatal(err)
	}
	dir := r.Dir()
	b.Run("CheckPacks", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := CheckPacks(dir)
			if err != nil || len(res.Removed) != 0 {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("Open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Open(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package vcs

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	corpusScript = "../../shared/corpus/make-repo.sh"
	jellyfinDir  = "../../shared/corpus/jellyfin-web"
	jellyfinHead = "78f7d1ed4fac57d217b2b1f3662dd113ee6975f8"
	jellyfinN    = 106
)

// mustCorpusRepo builds the bare jellyfin-web corpus repository under
// tb.TempDir() with make-repo.sh and returns its file:// URL; it skips the
// test when the corpus or git is not available.
func mustCorpusRepo(tb testing.TB) string {
	tb.Helper()
	script, err := filepath.Abs(corpusScript)
	if err != nil {
		tb.Fatal(err)
	}
	src, _ := filepath.Abs(jellyfinDir)
	if _, err := os.Stat(script); err != nil {
		tb.Skipf("corpus script absent: %v", err)
	}
	if _, err := os.Stat(src); err != nil {
		tb.Skipf("corpus absent: %v", err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git not installed")
	}
	dest := filepath.Join(tb.TempDir(), "jellyfin-web.git")
	out, err := exec.Command(script, src, dest).CombinedOutput()
	if err != nil {
		tb.Fatalf("make-repo.sh: %v\n%s", err, out)
	}
	return "file://" + dest
}

func jsonInStrings(p string) bool {
	ok, _ := path.Match("src/strings/*.json", p)
	return ok
}

func TestCorpusClone(t *testing.T) {
	t.Parallel()
	url := mustCorpusRepo(t)
	r := mustClone(t, url)
	if got := mustHead(t, r); got != jellyfinHead {
		t.Errorf("Head = %s, want %s", got, jellyfinHead)
	}
	files, err := listFiles(r, jsonInStrings)
	if err != nil {
		t.Fatalf("Files: %v", err)
	}
	if len(files) != jellyfinN {
		t.Fatalf("Files lists %d json files, want %d", len(files), jellyfinN)
	}
	// Compare with the git CLI's listing of the same tree.
	var want []string
	for _, line := range strings.Split(mustGit(t, r.Dir(), "ls-tree", "-r", "-l", "HEAD", "src/strings/"), "\n") {
		// "<mode> blob <hash> <size>\t<path>"
		meta, p, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		want = append(want, p+" "+f[2]+" "+f[3])
	}
	for i, f := range files {
		got := f.Path + " " + f.Hash + " " + strconv.FormatInt(f.Size, 10)
		if i >= len(want) || got != want[i] {
			t.Fatalf("file %d = %q, want git ls-tree %q", i, got, want[i])
		}
	}
	en := mustReadFile(t, r, "src/strings/en-us.json")
	disk, err := os.ReadFile(filepath.Join(jellyfinDir, "src", "strings", "en-us.json"))
	if err != nil || en != string(disk) {
		t.Errorf("ReadFile(en-us.json) differs from the corpus file (%d vs %d bytes, %v)", len(en), len(disk), err)
	}
}

func BenchmarkFiles(b *testing.B) {
	r := mustClone(b, mustCorpusRepo(b))
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			files, err := listFiles(r, jsonInStrings)
			if err != nil {
				b.Fatal(err)
			}
			if len(files) != jellyfinN {
				b.Fatalf("Files = %d, want %d", len(files), jellyfinN)
			}
		}
	})
	b.Run("json-cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.sizes = nil // as after Open
			files, err := listFiles(r, jsonInStrings)
			if err != nil {
				b.Fatal(err)
			}
			if len(files) != jellyfinN {
				b.Fatalf("Files = %d, want %d", len(files), jellyfinN)
			}
		}
	})
	b.Run("none", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			files, err := listFiles(r, func(string) bool { return false })
			if err != nil || len(files) != 0 {
				b.Fatal(len(files), err)
			}
		}
	})
}

func BenchmarkReadFile(b *testing.B) {
	r := mustClone(b, mustCorpusRepo(b))
	want, err := os.ReadFile(filepath.Join(jellyfinDir, "src", "strings", "en-us.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(want)))
	for b.Loop() {
		got, err := r.ReadFile("src/strings/en-us.json")
		if err != nil || len(got) != len(want) {
			b.Fatal(len(got), err)
		}
	}
}

func BenchmarkClone(b *testing.B) {
	url := mustCorpusRepo(b)
	parent := b.TempDir()
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		dir := filepath.Join(parent, strconv.Itoa(i))
		r, err := Clone(ctx, CloneOptions{URL: url, Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if h, err := r.Head(); err != nil || h != jellyfinHead {
			b.Fatalf("Head = %s, %v", h, err)
		}
		b.StopTimer()
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// TestCorpusCloneCancelled cancels a clone while it runs: Clone must return
// the context's error soon and leave nothing behind.
func TestCorpusCloneCancelled(t *testing.T) {
	t.Parallel()
	url := mustCorpusRepo(t)
	parent := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Clone(ctx, CloneOptions{URL: url, Dir: filepath.Join(parent, "c")})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Clone = %v, want context.DeadlineExceeded", err)
	}
	t.Logf("returned after %v: %v", time.Since(start), err)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Clone took %v after a 100ms deadline", d)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("cancelled clone left %d entries", len(entries))
	}
}

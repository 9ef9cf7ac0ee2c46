package vcs

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// treeEntry is one line of `git mktree`.
type treeEntry struct{ mode, typ, hash, name string }

// mustMktree writes a tree of entries into the repository at dir with
// `git mktree -z`, which takes any name, and returns its hash.
func mustMktree(tb testing.TB, dir string, entries ...treeEntry) string {
	tb.Helper()
	var in strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&in, "%s %s %s\t%s\x00", e.mode, e.typ, e.hash, e.name)
	}
	cmd := exec.Command("git", "mktree", "-z")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, gitEnv, strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git mktree: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// mustBlob writes content as a blob into the repository at dir.
func mustBlob(tb testing.TB, dir, content string) treeEntry {
	tb.Helper()
	f := filepath.Join(tb.TempDir(), "blob")
	writeFiles(tb, filepath.Dir(f), map[string]string{"blob": content})
	return treeEntry{mode: "100644", typ: "blob", hash: mustGit(tb, dir, "hash-object", "-w", "--no-filters", f)}
}

func named(e treeEntry, name string) treeEntry { e.name = name; return e }

// mustHostileRepo makes a repository whose main branch holds root (built
// by build in the repository's directory) and returns its file:// URL.
// Nothing checks the tree out: git itself would refuse or never finish.
func mustHostileRepo(tb testing.TB, build func(dir string) string) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "hostile.git")
	mustGit(tb, "/", "init", "--quiet", "--bare", "--initial-branch=main", dir)
	commit := mustGit(tb, dir, "commit-tree", "-m", "hostile", build(dir))
	mustGit(tb, dir, "update-ref", "refs/heads/main", commit)
	return "file://" + dir
}

// treeBomb writes ten levels of trees, each naming the next ten times:
// 10^10 paths in a few kilobytes.
func treeBomb(tb testing.TB, dir string) treeEntry {
	tb.Helper()
	blob := mustBlob(tb, dir, "boom\n")
	level := treeEntry{mode: "040000", typ: "tree"}
	var entries []treeEntry
	for i := 0; i < 10; i++ {
		entries = append(entries, named(blob, fmt.Sprintf("f%d.json", i)))
	}
	level.hash = mustMktree(tb, dir, entries...)
	for depth := 0; depth < 9; depth++ {
		entries = entries[:0]
		for i := 0; i < 10; i++ {
			entries = append(entries, named(level, fmt.Sprintf("d%d", i)))
		}
		level.hash = mustMktree(tb, dir, entries...)
	}
	return level
}

// mustCloneBare clones url without checking it out.
func mustCloneBare(tb testing.TB, url string) *Repo {
	tb.Helper()
	r, err := Clone(context.Background(), CloneOptions{URL: url, Dir: filepath.Join(tb.TempDir(), "checkout"), NoCheckout: true})
	if err != nil {
		tb.Fatalf("Clone(%s): %v", url, err)
	}
	return r
}

func paths(l Listing) (files []string, skipped []string) {
	for _, f := range l.Files {
		files = append(files, f.Path)
	}
	for _, s := range l.Skipped {
		skipped = append(skipped, s.Path+": "+s.Reason)
	}
	return files, skipped
}

func TestFilesTreeBomb(t *testing.T) {
	t.Parallel()
	url := mustHostileRepo(t, func(dir string) string {
		de := mustBlob(t, dir, `{"a": "b"}`)
		locales := treeEntry{mode: "040000", typ: "tree", hash: mustMktree(t, dir, named(de, "de.json"))}
		return mustMktree(t, dir, named(treeBomb(t, dir), "bomb"), named(locales, "locales"))
	})
	r := mustCloneBare(t, url)
	ctx := context.Background()

	start := time.Now()
	l, err := r.Files(ctx, FilesOptions{Scopes: []Scope{{Dir: "locales"}}})
	if files, _ := paths(l); err != nil || !reflect.DeepEqual(files, []string{"locales/de.json"}) {
		t.Errorf("Files(locales) = %q, %v; want [locales/de.json]", files, err)
	}
	// A scope of the bomb's depth reads 10 entries per level it enters.
	l, err = r.Files(ctx, FilesOptions{Scopes: []Scope{{Dir: "bomb", Depth: 1}}})
	if err != nil || len(l.Files) != 0 {
		t.Errorf("Files(bomb, depth 1) = %d files, %v; want none", len(l.Files), err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("scoped listings took %s", took)
	}

	// The whole tree stops at the cap, and at a cancelled context.
	start = time.Now()
	if _, err := r.Files(ctx, FilesOptions{MaxEntries: 50000}); !errors.Is(err, ErrTooManyEntries) {
		t.Errorf("Files(whole tree) = %v, want ErrTooManyEntries", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Files(cancelled, FilesOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Files(cancelled) = %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("capped listings took %s", took)
	}
}

func TestFilesOddNames(t *testing.T) {
	t.Parallel()
	url := mustHostileRepo(t, func(dir string) string {
		de := mustBlob(t, dir, `{"a": "b"}`)
		link := func(target string) treeEntry {
			e := mustBlob(t, dir, target)
			e.mode = "120000"
			return e
		}
		sub := treeEntry{mode: "040000", typ: "tree", hash: mustMktree(t, dir, named(de, "x.json"))}
		locales := treeEntry{mode: "040000", typ: "tree", hash: mustMktree(t, dir,
			named(de, "de.json"),
			named(de, "zh_Hant.json"),
			named(link("zh_Hant.json"), "zh_TW.json"),
			named(link("zh_TW.json"), "zh_HK.json"), // a link to a link
			named(link("../locales/de.json"), "de_AT.json"),
			named(link("/etc/passwd"), "abs.json"),
			named(link("../../outside.json"), "up.json"),
			named(link("missing.json"), "dangling.json"),
			named(link("loop.json"), "loop.json"),
			named(link("sub"), "dir.json"),
			named(sub, "sub"),
			named(de, "t\tab.json"),
			named(de, "bad\xffutf8.json"),
		)}
		return mustMktree(t, dir, named(de, "READ\tME.md"), named(de, "\x01.json"), named(locales, "locales"))
	})
	r := mustCloneBare(t, url)
	mask := func(p string) bool {
		ok, _ := filepath.Match("locales/*.json", p)
		return ok
	}
	l, err := r.Files(context.Background(), FilesOptions{Scopes: []Scope{{Dir: "locales"}}, Match: mask})
	if err != nil {
		t.Fatalf("Files: %v", err)
	}
	files, skipped := paths(l)
	wantFiles := []string{"locales/de.json", "locales/de_AT.json", "locales/zh_HK.json", "locales/zh_Hant.json", "locales/zh_TW.json"}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("files = %q\nwant %q", files, wantFiles)
	}
	wantSkipped := []string{
		`locales/abs.json: symbolic link to "/etc/passwd" leaves the repository`,
		`locales/bad` + "\xff" + `utf8.json: file name is not valid UTF-8`,
		`locales/dangling.json: symbolic link to "missing.json": no such file in the repository`,
		`locales/dir.json: symbolic link to "sub": not a regular file`,
		`locales/loop.json: too many levels of symbolic links`,
		"locales/t\tab.json: file name contains the control character U+0009",
		`locales/up.json: symbolic link to "../../outside.json" leaves the repository`,
	}
	if !reflect.DeepEqual(skipped, wantSkipped) {
		t.Errorf("skipped = %q\nwant %q", skipped, wantSkipped)
	}
	for _, f := range l.Files {
		if f.Hash != l.Files[0].Hash {
			t.Errorf("%s: hash %s, want the blob of its target %s", f.Path, f.Hash, l.Files[0].Hash)
		}
	}
	if got := l.Files[2].Target; got != "locales/zh_Hant.json" {
		t.Errorf("zh_HK.json target = %q, want locales/zh_Hant.json", got)
	}
	if got := mustReadFile(t, r, "locales/zh_TW.json"); got != `{"a": "b"}` {
		t.Errorf("ReadFile(zh_TW.json) = %q, want the target's content", got)
	}
	if _, err := r.ReadFile("locales/abs.json"); !errors.Is(err, ErrNotExist) {
		t.Errorf("ReadFile(abs.json) = %v, want ErrNotExist", err)
	}

	// A mask at the root never looks into locales/, and a name with a
	// control character outside the mask does not matter.
	rootMask := func(p string) bool { return !strings.Contains(p, "/") && strings.HasSuffix(p, ".md") }
	l, err = r.Files(context.Background(), FilesOptions{Scopes: []Scope{{}}, Match: func(p string) bool {
		return strings.HasSuffix(p, ".txt")
	}})
	if err != nil || len(l.Files)+len(l.Skipped) != 0 {
		t.Errorf("Files(*.txt) = %+v, %v; want nothing", l, err)
	}
	l, err = r.Files(context.Background(), FilesOptions{Scopes: []Scope{{}}, Match: rootMask})
	if _, skipped := paths(l); err != nil || len(skipped) != 1 || !strings.Contains(skipped[0], "control character") {
		t.Errorf("Files(*.md) skipped %q, %v; want READ\\tME.md for its control character", skipped, err)
	}
}

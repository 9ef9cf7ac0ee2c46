package sync_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gitInput runs git in dir with stdin and returns its trimmed output.
func gitInput(tb testing.TB, dir, stdin string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// pushTreeBomb commits, on top of work's HEAD and pushed to its origin,
// a directory "bomb" of ten levels of trees each naming the next ten
// times (10^10 paths in a few kilobytes), made with git plumbing: no
// checkout could hold it.
func pushTreeBomb(tb testing.TB, work string) {
	tb.Helper()
	blob := gitInput(tb, work, "boom\n", "hash-object", "-w", "--stdin")
	mode, hash := "100644 blob", blob
	for depth := 0; depth < 10; depth++ {
		var in strings.Builder
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&in, "%s %s\tn%d.json\n", mode, hash, i)
		}
		mode, hash = "040000 tree", gitInput(tb, work, in.String(), "mktree")
	}
	root := gitInput(tb, work, git(tb, work, "ls-tree", "HEAD")+"\n"+mode+" "+hash+"\tbomb\n", "mktree")
	commit := git(tb, work, "commit-tree", "-p", "HEAD", "-m", "tree bomb", root)
	git(tb, work, "push", "--quiet", "origin", commit+":refs/heads/main")
}

// processCPU is the CPU time this process has used, user and system.
func processCPU(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestImportHostileRepository: links inside and outside the checkout,
// tabs in names and a tree bomb (10^10 paths) beside the filemask's
// folder: the import reads the links inside, refuses the others, and
// never walks the bomb. Its cost is bounded against the same repository
// without the bomb, imported in the same test: the import's CPU (this
// process's, where a walk would spend it) at most 3× the baseline's plus
// 300 ms. A fixed 1 s of wall time was crossed once on PostgreSQL under
// load 20 (1.12 s); a walk of the bomb would not end.
func TestImportHostileRepository(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"locales/en.json":    `{"hello": "Hello"}`,
		"locales/de.json":    `{"hello": "Hallo"}`,
		"locales/t\tab.json": `{"hello": "tab"}`,
		"READ\tME.md":        "a tab outside the filemask",
	}
	repo := func(bomb bool) string {
		url, work := mustRepo(t, files)
		for name, target := range map[string]string{"de_AT.json": "de.json", "evil.json": "/etc/hostname",
			"up.json": "../../outside.json"} {
			if err := os.Symlink(target, filepath.Join(work, "locales", name)); err != nil {
				t.Fatal(err)
			}
		}
		writeAndPush(t, work, nil, "links")
		if bomb {
			pushTreeBomb(t, work)
		}
		return url
	}
	base, baseURL := mustEnv(t), repo(false)
	e, url := mustEnv(t), repo(true)

	start, cpu := time.Now(), processCPU(t)
	base.reconcile(t, jsonComponent("app", baseURL, "locales/*.json", "locales/en.json", "en"))
	baseWall, baseCPU := time.Since(start), processCPU(t)-cpu
	start, cpu = time.Now(), processCPU(t)
	comps := e.reconcile(t, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"))
	took, tookCPU := time.Since(start), processCPU(t)-cpu
	t.Logf("import with the bomb: %s, CPU %s; without: %s, CPU %s", took, tookCPU, baseWall, baseCPU)
	if bound := 3*baseCPU + 300*time.Millisecond; tookCPU > bound {
		t.Errorf("the import took %s of CPU, more than %s (3× the same repository's without the bomb, %s, + 300 ms)",
			tookCPU, bound, baseCPU)
	}
	langs := map[string]int{}
	ts, err := e.db.FindTranslations(ctx, comps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		langs[tr.LanguageCode] = tr.Stats.Translated
	}
	if len(langs) != 3 || langs["de"] != 1 || langs["de_AT"] != 1 {
		t.Errorf("translations (translated) = %v, want en, de and de_AT (1 each, read through the link)", langs)
	}
}

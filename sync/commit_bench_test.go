package sync_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// gitBenchEnv is the corpus's biggest component (jellyfin-web: 106
// files) imported, with a translator and a clone playing upstream.
type gitBenchEnv struct {
	env
	c    index.Component
	work string // upstream's clone
	user index.User
	// last is the summary of the newest import (a pull's included).
	last *tolksync.ImportSummary
}

func mustGitBenchEnv(b *testing.B) gitBenchEnv {
	b.Helper()
	url := mustCorpusRepo(b, "jellyfin-web")
	last := &tolksync.ImportSummary{}
	e := mustEnvWith(b, tolksync.Options{Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"},
		OnImportDone: func(_ index.Component, sum tolksync.ImportSummary, _ time.Duration, _ error) { *last = sum }})
	comps := e.reconcile(b, jsonComponent("jellyfin", url, "src/strings/*.json", "src/strings/en-us.json", "en-us"))
	ge := gitBenchEnv{env: e, c: comps[0], work: filepath.Join(b.TempDir(), "upstream"), last: last}
	git(b, filepath.Dir(ge.work), "clone", "--quiet", strings.TrimPrefix(url, "file://"), ge.work)
	ge.user = mustUser(b, e.db, "ann", "Ann Example")
	return ge
}

// commitAll commits the pending edits, one commit per translation of
// the corpus component (105).
func (ge gitBenchEnv) commitAll(b *testing.B) {
	res, err := ge.svc.Commit(context.Background(), ge.c, &ge.user)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Commits) != 105 {
		b.Fatalf("%d commits, want one per translation (105)", len(res.Commits))
	}
}

// edits makes perTranslation pending edits in every translation, each
// with a value never written before (round tells rounds apart), and
// returns how many it made.
func (ge gitBenchEnv) edits(b *testing.B, perTranslation, round int) int {
	b.Helper()
	ctx := context.Background()
	ts, err := ge.db.FindTranslations(ctx, ge.c.ID)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, t := range ts {
		if t.IsSource {
			continue
		}
		units, _, err := ge.db.FindUnits(ctx, index.UnitFilter{TranslationID: t.ID,
			Page: index.Page{Number: 1, Size: perTranslation}})
		if err != nil {
			b.Fatal(err)
		}
		for i, u := range units {
			target := fmt.Sprintf("bench %d.%d", round, i)
			_, err := ge.db.UpdateUnit(ctx, u.ID, index.UserActor(&ge.user), func(index.Unit, index.Translation) (index.UnitUpdate, error) {
				return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
			})
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	return n
}

// BenchmarkCommit measures Service.Commit of pending edits spread over
// every translation of jellyfin-web: one commit per translation. The
// checkout's first commit, which checks its work tree out, is made
// before the timed loop.
func BenchmarkCommit(b *testing.B) {
	ctx := context.Background()
	ge := mustGitBenchEnv(b)
	ge.edits(b, 1, -1)
	if _, err := ge.svc.Commit(ctx, ge.c, &ge.user); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ge.edits(b, 20, i)
		b.StartTimer()
		ge.commitAll(b)
	}
}

// BenchmarkPull measures Service.Pull of jellyfin-web: "unchanged" with
// upstream where the checkout is, "one-file" after an upstream commit
// changing one string of de.json, which must re-import that file only.
// The checkout has committed and pushed first, so it has a work tree for
// the pull to move, as a component in use has.
func BenchmarkPull(b *testing.B) {
	ctx := context.Background()
	ge := mustGitBenchEnv(b)
	ge.edits(b, 1, -1)
	if err := ge.svc.Push(ctx, ge.c, &ge.user); err != nil {
		b.Fatal(err)
	}
	b.Run("unchanged", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := ge.svc.Pull(ctx, ge.c, &ge.user); err != nil {
				b.Fatal(err)
			}
		}
	})
	round := 0 // b.Run calls the function again with a larger b.N
	b.Run("one-file", func(b *testing.B) {
		path := filepath.Join(ge.work, "src/strings/de.json")
		first := regexp.MustCompile(`(?m)^(\s*"[^"]+": ")[^"]*"`)
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			git(b, ge.work, "pull", "--quiet", "--rebase", "origin", "main")
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			round++
			value := fmt.Sprintf("upstream %d", round)
			loc := first.FindSubmatchIndex(data)
			data = append(append(append([]byte{}, data[:loc[3]]...), value...), data[loc[1]-1:]...)
			writeAndPush(b, ge.work, map[string]string{"src/strings/de.json": string(data)}, "upstream edit")
			b.StartTimer()
			if err := ge.svc.Pull(ctx, ge.c, &ge.user); err != nil {
				b.Fatal(err)
			}
			// The template is read for its strings; only de.json is
			// imported.
			if sum := *ge.last; sum.Skipped != sum.Files-1 || sum.Updated != 1 {
				b.Fatalf("the pull skipped %d files of %d and updated %d units, want all but de.json and 1",
					sum.Skipped, sum.Files, sum.Updated)
			}
		}
	})
}

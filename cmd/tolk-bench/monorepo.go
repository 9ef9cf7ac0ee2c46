package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/gitfixture"
	tolksync "github.com/tolk-project/tolk/sync"
)

// monorepoResult is the monorepo section: a component of a few locale
// files in a repository of many files outside its filemask, imported
// through the real sync.Service; the checkout's first commit and a pull
// that brings as many files again, each beside the git CLI doing the
// same git work in a sparse checkout.
type monorepoResult struct {
	Files   int    // files outside the filemask at first; the pull brings as many again
	Locales int    // files the filemask matches, the template included
	Git     string // git --version, the ceiling's
	// BuildSec is git fast-import's first commit; ImportSec the
	// component's Reconcile (a clone without a work tree, the import).
	BuildSec, ImportSec float64

	// The first commit, of one edit, on the fresh checkout.
	FirstSec, FirstCeilSec float64
	// ChangedFiles are the files the pushed first commit changed.
	ChangedFiles int

	// The pull of Files new files and one changed translation file.
	PullSec, PullCeilSec float64

	// Files in Tolk's work tree after the first commit and after the
	// pull, and how many of them were outside the filemask.
	FirstWorkTree, PulledWorkTree, Outside int

	Failures     []string // Tolk's checks that failed
	CeilFailures []string // the ceiling's
}

// Met reports whether both rows are under monorepoTarget.
func (m *monorepoResult) Met() bool {
	return m.FirstSec < monorepoTarget.Seconds() && m.PullSec < monorepoTarget.Seconds()
}

const (
	monorepoFiles      = 100000
	monorepoFilesQuick = 2000
	monorepoPerDir     = 1000            // files to a folder, as a vendored tree has them
	monorepoStrings    = 50              // strings in each locale file
	monorepoTarget     = 2 * time.Second // each of the first commit and the pull
	monorepoProject    = "monorepo"
	monorepoComponent  = "app"
)

// monorepoLocales are the component's languages, the template's first.
var monorepoLocales = []string{"en", "de", "fr", "es", "it", "pt"}

// monorepoLocale is the locale file of lang in the first commit.
func monorepoLocale(lang string) string {
	var b strings.Builder
	b.WriteString("{\n")
	for i := range monorepoStrings {
		sep := ","
		if i == monorepoStrings-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  \"app.string%02d\": \"String %d (%s)\"%s\n", i, i, lang, sep)
	}
	b.WriteString("}\n")
	return b.String()
}

// benchMonorepo measures the monorepo section with n files outside the
// filemask, in a fresh index on e with everything under dir. A failed
// check is kept in the result; an error means it could not measure.
func benchMonorepo(ctx context.Context, e *engine, dir string, n int, logf func(string, ...any)) (*monorepoResult, error) {
	res := &monorepoResult{Files: n, Locales: len(monorepoLocales)}
	var err error
	if res.Git, err = gitfixture.Git(ctx, "/", "--version"); err != nil {
		return nil, err
	}
	logf("monorepo: %d files and %d locale files, with git fast-import", n, len(monorepoLocales))
	bare := filepath.Join(dir, "upstream.git")
	if err := gitfixture.InitBare(ctx, bare); err != nil {
		return nil, err
	}
	locales := map[string]string{}
	for _, l := range monorepoLocales {
		locales["locales/"+l+".json"] = monorepoLocale(l)
	}
	start := time.Now()
	base, err := gitfixture.Commit(ctx, bare, gitfixture.Assets{Dir: "vendor", N: n, PerDir: monorepoPerDir}, locales)
	res.BuildSec = time.Since(start).Seconds()
	if err != nil {
		return nil, err
	}

	logf("monorepo: import")
	in, err := openInstance(ctx, e, filepath.Join(dir, "tolk"))
	if err != nil {
		return nil, err
	}
	defer in.Close()
	comp := index.DefaultComponent()
	comp.Slug, comp.Name, comp.Repo, comp.Filemask, comp.Template, comp.SourceLanguage, comp.FileFormat =
		monorepoComponent, monorepoComponent, "file://"+bare, "locales/*.json", "locales/en.json", "en", "json"
	start = time.Now()
	err = in.svc.Reconcile(ctx, []tolksync.ProjectSpec{{Project: index.Project{Name: monorepoProject, Slug: monorepoProject},
		Components: []index.Component{comp}}})
	res.ImportSec = time.Since(start).Seconds()
	if err != nil {
		return nil, fmt.Errorf("monorepo import: %w", err)
	}
	c, err := in.db.FindComponent(ctx, monorepoProject, monorepoComponent)
	if err != nil {
		return nil, fmt.Errorf("monorepo import: %w", err)
	}
	if ts, err := in.db.FindTranslations(ctx, c.ID); err != nil || len(ts) != len(monorepoLocales) {
		return nil, fmt.Errorf("monorepo import: %d translations (%v), want %d", len(ts), err, len(monorepoLocales))
	}
	user, err := in.db.CreateUser(ctx, index.User{Username: "tolk-bench-monorepo", FullName: "tolk-bench monorepo",
		Email: "monorepo@tolk-bench.invalid", IsActive: true})
	if err != nil {
		return nil, err
	}
	checkout := filepath.Join(in.dir, "repos", monorepoProject, monorepoComponent) // sync.Service's repoDir
	ceil := filepath.Join(dir, "ceiling")
	if err := sparseClone(ctx, bare, ceil); err != nil {
		return nil, fmt.Errorf("ceiling clone: %w", err)
	}

	want, err := makeEdits(ctx, in, c, user, 1, "tolk-bench monorepo edit")
	if err != nil {
		return nil, err
	}
	logf("monorepo: first commit, then the git CLI's")
	files, pushed, err := res.firstCommit(ctx, in, c, &user, bare, base, checkout, want)
	if err != nil {
		return nil, err
	}
	if err := res.firstCeiling(ctx, ceil, bare, files, pushed); err != nil {
		return nil, fmt.Errorf("ceiling: %w", err)
	}

	logf("monorepo: an upstream commit of %d new files and one changed translation; pulls", n)
	old, err := gitfixture.Git(ctx, bare, "show", pushed.String()+":locales/"+loadLanguage+".json")
	if err != nil {
		return nil, err
	}
	value := "tolk-bench monorepo upstream edit"
	key, changed, err := editFirstString([]byte(old+"\n"), value)
	if err != nil {
		return nil, err
	}
	up, err := gitfixture.Commit(ctx, bare, gitfixture.Assets{Dir: "more", N: n, PerDir: monorepoPerDir},
		map[string]string{"locales/" + loadLanguage + ".json": string(changed)})
	if err != nil {
		return nil, err
	}
	head := plumbing.NewHash(up)
	p := pullResult{Name: "monorepo pull"}
	d, err := timedPull(ctx, in, c, &user, head, key, value, &p)
	res.PullSec = d.Seconds()
	if err != nil {
		return nil, err
	}
	res.Failures = append(res.Failures, p.Failures...)
	if res.PulledWorkTree, err = res.workTree(checkout, "locales/"+loadLanguage+".json"); err != nil {
		return nil, err
	}
	if pending, err := in.db.PendingUnits(ctx, c.ID); err != nil || pending.Any() {
		res.Failures = append(res.Failures, fmt.Sprintf("the index owes %+v after the pull (%v)", pending, err))
	}

	start = time.Now()
	_, err = gitfixture.Git(ctx, ceil, "pull", "--quiet", "--ff-only")
	res.PullCeilSec = time.Since(start).Seconds()
	if err != nil {
		return nil, fmt.Errorf("ceiling pull: %w", err)
	}
	if got, err := gitfixture.Git(ctx, ceil, "rev-parse", "HEAD"); err != nil || got != up {
		res.CeilFailures = append(res.CeilFailures, fmt.Sprintf("HEAD %.12s after the pull, upstream %.12s (%v)", got, up, err))
	}
	if _, err := os.Stat(filepath.Join(ceil, "more")); !errors.Is(err, fs.ErrNotExist) {
		res.CeilFailures = append(res.CeilFailures, "the pulled files are in the work tree")
	}
	return res, nil
}

// firstCommit times Service.Commit of the pending edit want on the
// fresh checkout, pushes it and checks the pushed commit and the work
// tree. It returns the files the commit changed, as committed, and the
// pushed head.
func (res *monorepoResult) firstCommit(ctx context.Context, in *instance, c index.Component, user *index.User,
	bare, base, checkout string, want map[string]map[string]string) (map[string][]byte, plumbing.Hash, error) {
	start := time.Now()
	cres, err := in.svc.Commit(ctx, c, user)
	res.FirstSec = time.Since(start).Seconds()
	if err != nil {
		return nil, plumbing.ZeroHash, fmt.Errorf("first commit: %w", err)
	}
	if len(cres.Commits) != 1 {
		res.Failures = append(res.Failures, fmt.Sprintf("the first commit made %d commits, want 1", len(cres.Commits)))
	}
	if err := in.svc.Push(ctx, c, user); err != nil {
		return nil, plumbing.ZeroHash, fmt.Errorf("push: %w", err)
	}
	pushed, err := headOf(bare)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	var g gitResult
	files, err := g.checkPushed(bare, plumbing.NewHash(base), pushed, want)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	res.ChangedFiles = g.ChangedFiles
	if g.PushedCommits != 1 || g.ChangedFiles != 1 || g.ChangedValues != 1 || g.Missing != 0 {
		res.Failures = append(res.Failures, fmt.Sprintf("pushed: %d commits, %d files and %d values changed, "+
			"%d edits missing; want 1, 1, 1, 0", g.PushedCommits, g.ChangedFiles, g.ChangedValues, g.Missing))
	}
	var edited string
	for p := range files {
		edited = p
	}
	if res.FirstWorkTree, err = res.workTree(checkout, edited); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	return files, pushed, nil
}

// firstCeiling is the first commit's ceiling: in the sparse clone ceil,
// git read-tree builds the index of HEAD, then the files Tolk committed
// are written, added and committed, timed; the commit must have the tree
// Tolk pushed.
func (res *monorepoResult) firstCeiling(ctx context.Context, ceil, bare string, files map[string][]byte, pushed plumbing.Hash) error {
	start := time.Now()
	if _, err := gitfixture.Git(ctx, ceil, "read-tree", "-mu", "HEAD"); err != nil {
		return err
	}
	args := []string{"add", "--"}
	for p, data := range files {
		if err := os.WriteFile(filepath.Join(ceil, filepath.FromSlash(p)), data, 0o644); err != nil {
			return err
		}
		args = append(args, p)
	}
	if _, err := gitfixture.Git(ctx, ceil, args...); err != nil {
		return err
	}
	if _, err := gitfixture.Git(ctx, ceil, "commit", "--quiet", "-m", "Translated using tolk-bench"); err != nil {
		return err
	}
	res.FirstCeilSec = time.Since(start).Seconds()
	got, err := gitfixture.Git(ctx, ceil, "rev-parse", "HEAD^{tree}")
	if err != nil {
		return err
	}
	if want, err := gitfixture.Git(ctx, bare, "rev-parse", pushed.String()+"^{tree}"); err != nil || got != want {
		res.CeilFailures = append(res.CeilFailures, fmt.Sprintf("its commit's tree %.12s, Tolk's %.12s (%v)", got, want, err))
	}
	// Level with upstream, as Tolk's checkout is after its push.
	if _, err := gitfixture.Git(ctx, ceil, "fetch", "--quiet", "origin"); err != nil {
		return err
	}
	_, err = gitfixture.Git(ctx, ceil, "reset", "--quiet", "--hard", "origin/main")
	return err
}

// sparseClone clones bare into dir without a work tree, with a sparse
// checkout of locales/: what it later checks out is the same index as
// Tolk's (HEAD's entries, skip-worktree outside the files on disk) and
// the locale files alone on disk.
func sparseClone(ctx context.Context, bare, dir string) error {
	if _, err := gitfixture.Git(ctx, "/", "clone", "--quiet", "--no-checkout", "file://"+bare, dir); err != nil {
		return err
	}
	if _, err := gitfixture.Git(ctx, dir, "config", "core.sparseCheckout", "true"); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ".git", "info", "sparse-checkout"), []byte("/locales/\n"), 0o644)
}

// workTree counts the files in the work tree of checkout (.git aside)
// and adds those outside locales/ to res.Outside; it records a failure
// when the work tree lacks must (a file Tolk wrote), or has any file
// outside locales/.
func (res *monorepoResult) workTree(checkout, must string) (int, error) {
	if _, err := os.Stat(filepath.Join(checkout, ".git")); err != nil {
		return 0, fmt.Errorf("Tolk's checkout: %w", err)
	}
	files, outside := 0, 0
	err := filepath.WalkDir(checkout, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		files++
		if rel, _ := filepath.Rel(checkout, p); !strings.HasPrefix(filepath.ToSlash(rel), "locales/") {
			outside++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if _, err := os.Stat(filepath.Join(checkout, filepath.FromSlash(must))); err != nil {
		res.Failures = append(res.Failures, fmt.Sprintf("the work tree lacks %s, which Tolk wrote", must))
	}
	if outside > 0 {
		res.Failures = append(res.Failures, fmt.Sprintf("%d files outside the filemask in the work tree", outside))
	}
	res.Outside += outside
	return files, nil
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/tolk-project/tolk/formats"
	jsonfmt "github.com/tolk-project/tolk/formats/json"
	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
)

// gitResult is the git section (issue 10): Service.Commit of pending
// edits and two pulls of the corpus's biggest component, each beside
// go-git doing the same git work alone.
type gitResult struct {
	Component    string // project/component
	Files        int    // files in its repository
	Translations int    // translations the edits went to
	Edits        int    // pending edits made through the store
	EditSec      float64

	// FirstCommitSec is the checkout's first commit, of one edit, which
	// checks its work tree out.
	FirstCommitSec float64
	// Service.Commit of the pending edits, and the ceiling: the same
	// files written into a go-git work tree and one commit.
	CommitSec, CeilingSec float64
	Commits               int // commits Service.Commit made
	// Read back from the repository after Service.Push: commits between
	// the head before the edits and the pushed one, files and values they
	// changed, and edits whose value the pushed files lack.
	PushedCommits, ChangedFiles, ChangedValues, Missing int
	// SameTree: the ceiling's commit has the tree of Tolk's last commit.
	SameTree      bool
	PendingAfter  index.Pending // what the index still owes afterwards
	CeilingCommit string        // what the ceiling's commit was

	Pulls []pullResult
}

// pullResult is one pull row: Rounds pulls by Tolk alternating with
// Rounds go-git fetches and hard resets of the same change.
type pullResult struct {
	Name           string
	Rounds         int
	Sec, CeilSec   float64 // medians
	Failures       []string
	CeilingChecked bool // the ceiling's HEAD was upstream's after every round
}

// gitEdits is how many pending edits the commit row commits (-quick:
// gitEditsQuick); gitRounds how many times each pull row is measured.
const (
	gitEdits      = 10000
	gitEditsQuick = 400
	gitRounds     = 5
	gitComponent  = "jellyfin"
)

// pullComponent is the pull that both pull rows measure, and the one
// place to change when the real one lands.
//
// pullComponent is the pull every pull row measures: Service.Pull, as
// POST .../repository/ {"operation": "pull"} and the scheduler run it.
func pullComponent(ctx context.Context, svc *tolksync.Service, c index.Component, user *index.User) error {
	return svc.Pull(ctx, c, user)
}

// benchGit measures the git section over the 1x index in: pending edits
// spread over every translation of the corpus component gitComponent,
// committed, pushed and checked, then the pulls.
func benchGit(ctx context.Context, cfg config, rep *report, in *instance, repos []corpusRepo, dir string, logf func(string, ...any)) error {
	var repo corpusRepo
	for _, r := range repos {
		if r.slug == gitComponent {
			repo = r
		}
	}
	c, err := in.db.FindComponent(ctx, "bench", gitComponent)
	if err != nil {
		return fmt.Errorf("git: %w", err)
	}
	res := &gitResult{Component: "bench/" + gitComponent, Files: len(repo.files)}
	rep.Git = res
	user, err := in.db.CreateUser(ctx, index.User{Username: "tolk-bench-git", FullName: "tolk-bench git",
		Email: "git@tolk-bench.invalid", IsActive: true})
	if err != nil {
		return fmt.Errorf("git: user: %w", err)
	}
	// The import cloned Tolk's checkout without a work tree; its first
	// commit checks one out. That commit, of one edit, is timed on its
	// own, so the measured commit is what every later one costs.
	logf("git: first commit of the checkout")
	if _, err := makeEdits(ctx, in, c, user, 1, "tolk-bench git first edit"); err != nil {
		return fmt.Errorf("git: %w", err)
	}
	start := time.Now()
	_, err = in.svc.Commit(ctx, c, &user)
	res.FirstCommitSec = time.Since(start).Seconds()
	if err == nil {
		err = in.svc.Push(ctx, c, &user)
	}
	if err != nil {
		return fmt.Errorf("git: first commit: %w", err)
	}

	n := gitEdits
	if cfg.Quick {
		n = gitEditsQuick
	}
	logf("git: %d pending edits over the translations of %s", n, res.Component)
	start = time.Now()
	want, err := makeEdits(ctx, in, c, user, n, "tolk-bench git edit")
	if err != nil {
		return fmt.Errorf("git: %w", err)
	}
	res.EditSec, res.Edits, res.Translations = time.Since(start).Seconds(), n, len(want)
	if err := res.commit(ctx, cfg, in, c, &user, repo, want, filepath.Join(dir, "ceiling"), logf); err != nil {
		return fmt.Errorf("git: %w", err)
	}
	logf("git: pulls, %d rounds each", gitRounds)
	if err := res.pulls(ctx, cfg, in, c, &user, repo, filepath.Join(dir, "pulls")); err != nil {
		return fmt.Errorf("git: %w", err)
	}
	return nil
}

// commit times Service.Commit of the pending edits, pushes, checks what
// the repository received against want, and times the ceiling in a
// go-git clone made in ceilDir before the commit.
func (res *gitResult) commit(ctx context.Context, cfg config, in *instance, c index.Component, user *index.User,
	repo corpusRepo, want map[string]map[string]string, ceilDir string, logf func(string, ...any)) error {
	bare := strings.TrimPrefix(repo.url, "file://")
	base, err := headOf(bare)
	if err != nil {
		return err
	}
	// The ceiling's clone, checked out before anything is timed, as
	// Tolk's is now.
	ceil, err := git.PlainCloneContext(ctx, ceilDir, false, &git.CloneOptions{URL: repo.url})
	if err != nil {
		return fmt.Errorf("ceiling clone: %w", err)
	}

	logf("git: Service.Commit")
	var cres index.CommitResult
	start := time.Now()
	err = cfg.cpuProfile("git-commit")(func() error {
		var err error
		cres, err = in.svc.Commit(ctx, c, user)
		return err
	})
	res.CommitSec = time.Since(start).Seconds()
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	res.Commits = len(cres.Commits)
	if res.PendingAfter, err = in.db.PendingUnits(ctx, c.ID); err != nil {
		return err
	}
	if err := in.svc.Push(ctx, c, user); err != nil {
		return fmt.Errorf("push: %w", err)
	}
	pushed, err := headOf(bare)
	if err != nil {
		return err
	}
	files, err := res.checkPushed(bare, base, pushed, want)
	if err != nil {
		return err
	}
	logf("git: ceiling: %d files and one go-git commit", len(files))
	if err := res.commitCeiling(ceil, files, bare, pushed); err != nil {
		return fmt.Errorf("ceiling: %w", err)
	}
	return nil
}

// makeEdits makes n pending edits through the store's edit path
// (UpdateUnit, as the API's PATCH does), spread round-robin over every
// non-source translation of c, one distinct unit each, with a target
// made of prefix and a number. It returns the expected values by file
// and key.
func makeEdits(ctx context.Context, in *instance, c index.Component, user index.User, n int, prefix string) (map[string]map[string]string, error) {
	ts, err := in.db.FindTranslations(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	files := map[int64]string{}
	for _, t := range ts {
		if !t.IsSource && t.Filename != "" {
			files[t.ID] = t.Filename
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s has no translation to edit", c.Slug)
	}
	units, err := sampleUnits(ctx, in.store, (n+len(files)-1)/len(files), c.ID)
	if err != nil {
		return nil, err
	}
	var picks []int64
	for round := 0; len(picks) < n; round++ {
		took := false
		for _, tr := range units {
			if round < len(tr) && len(picks) < n {
				picks, took = append(picks, tr[round]), true
			}
		}
		if !took {
			return nil, fmt.Errorf("%s has only %d editable units", c.Slug, len(picks))
		}
	}
	want := map[string]map[string]string{}
	for i, id := range picks {
		target := prefix + " " + strconv.Itoa(i)
		u, err := in.db.UpdateUnit(ctx, id, index.UserActor(&user), func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
		})
		if err != nil {
			return nil, fmt.Errorf("edit unit %d: %w", id, err)
		}
		f := files[u.TranslationID]
		if want[f] == nil {
			want[f] = map[string]string{}
		}
		want[f][u.Context] = target
	}
	return want, nil
}

// checkPushed reads what Tolk pushed to the bare repository: the commits
// from base to head, the files they changed and, in those (JSON) files,
// the values that differ from base's and the expected edits missing. It
// returns the changed files' bytes at head for the ceiling.
func (res *gitResult) checkPushed(bare string, base, head plumbing.Hash, want map[string]map[string]string) (map[string][]byte, error) {
	r, err := git.PlainOpen(bare)
	if err != nil {
		return nil, err
	}
	for h := head; h != base; {
		cm, err := r.CommitObject(h)
		if err != nil {
			return nil, err
		}
		res.PushedCommits++
		if cm.NumParents() != 1 {
			return nil, fmt.Errorf("commit %s has %d parents", h, cm.NumParents())
		}
		h = cm.ParentHashes[0]
	}
	oldTree, err := treeOf(r, base)
	if err != nil {
		return nil, err
	}
	newTree, err := treeOf(r, head)
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTree(oldTree, newTree)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, ch := range changes {
		path := ch.To.Name
		after, err := fileAt(newTree, path)
		if err != nil {
			return nil, err
		}
		before, err := fileAt(oldTree, ch.From.Name)
		if err != nil {
			return nil, err
		}
		files[path] = after
		got, err := jsonValues(after)
		if err != nil {
			return nil, fmt.Errorf("%s as pushed: %w", path, err)
		}
		old, err := jsonValues(before)
		if err != nil {
			return nil, fmt.Errorf("%s before: %w", path, err)
		}
		for k, v := range got {
			if o, ok := old[k]; !ok || o != v {
				res.ChangedValues++
			}
		}
	}
	res.ChangedFiles = len(files)
	for path, edits := range want {
		got, err := jsonValues(files[path])
		if err != nil {
			return nil, err
		}
		for k, v := range edits {
			if got[k] != v {
				res.Missing++
			}
		}
	}
	return files, nil
}

// commitCeiling writes files into the ceiling's work tree, stages them
// and makes one commit with go-git, timed, and checks that its tree is
// the one Tolk pushed as head.
func (res *gitResult) commitCeiling(r *git.Repository, files map[string][]byte, bare string, head plumbing.Hash) error {
	wt, err := r.Worktree()
	if err != nil {
		return err
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	sig := &object.Signature{Name: "tolk-bench git", Email: "git@tolk-bench.invalid", When: time.Now()}
	start := time.Now()
	for _, p := range paths {
		if err := os.WriteFile(filepath.Join(wt.Filesystem.Root(), p), files[p], 0o644); err != nil {
			return err
		}
		if err := wt.AddWithOptions(&git.AddOptions{Path: p, SkipStatus: true}); err != nil {
			return err
		}
	}
	h, err := wt.Commit("Translated using tolk-bench", &git.CommitOptions{Author: sig, Committer: sig})
	res.CeilingSec = time.Since(start).Seconds()
	if err != nil {
		return err
	}
	res.CeilingCommit = h.String()
	got, err := treeOf(r, h)
	if err != nil {
		return err
	}
	up, err := git.PlainOpen(bare)
	if err != nil {
		return err
	}
	want, err := treeOf(up, head)
	if err != nil {
		return err
	}
	res.SameTree = got.Hash == want.Hash
	return nil
}

// pulls measures the two pull rows, each round of Tolk's pull followed
// by the ceiling's: a go-git clone of the pushed repository that fetches
// and hard-resets to what it fetched. Upstream commits come from a third
// clone.
func (res *gitResult) pulls(ctx context.Context, cfg config, in *instance, c index.Component, user *index.User, repo corpusRepo, dir string) error {
	ceil, err := git.PlainCloneContext(ctx, filepath.Join(dir, "ceiling"), false, &git.CloneOptions{URL: repo.url})
	if err != nil {
		return err
	}
	up, err := git.PlainCloneContext(ctx, filepath.Join(dir, "upstream"), false, &git.CloneOptions{URL: repo.url})
	if err != nil {
		return err
	}
	unchanged := pullResult{Name: "pull, upstream unchanged", CeilingChecked: true}
	oneFile := pullResult{Name: fmt.Sprintf("pull, an upstream commit touching 1 of %d files", res.Files), CeilingChecked: true}
	path := ""
	for _, f := range repo.files {
		if langOf(f) == loadLanguage {
			path = f
		}
	}
	var times, ceilTimes [2][]time.Duration
	// One profile of every round: Tolk's pulls are what
	// -focus=Service..Pull shows of it.
	stop := cfg.startCPU("git-pulls")
	defer stop()
	for round := range gitRounds {
		// Unchanged: HEAD must stay where it is.
		head, err := headOf(strings.TrimPrefix(repo.url, "file://"))
		if err != nil {
			return err
		}
		d, err := timedPull(ctx, in, c, user, head, "", "", &unchanged)
		if err != nil {
			return err
		}
		times[0] = append(times[0], d)
		d, err = fetchReset(ctx, ceil, head, &unchanged)
		if err != nil {
			return err
		}
		ceilTimes[0] = append(ceilTimes[0], d)

		// One file: upstream changes one value of one translation.
		value := fmt.Sprintf("tolk-bench upstream edit %d", round)
		key, head, err := upstreamEdit(up, path, value)
		if err != nil {
			return fmt.Errorf("upstream commit: %w", err)
		}
		if d, err = timedPull(ctx, in, c, user, head, key, value, &oneFile); err != nil {
			return err
		}
		times[1] = append(times[1], d)
		if d, err = fetchReset(ctx, ceil, head, &oneFile); err != nil {
			return err
		}
		ceilTimes[1] = append(ceilTimes[1], d)
	}
	for i, p := range []*pullResult{&unchanged, &oneFile} {
		p.Rounds = gitRounds
		p.Sec, p.CeilSec = median(times[i]).Seconds(), median(ceilTimes[i]).Seconds()
		res.Pulls = append(res.Pulls, *p)
	}
	return nil
}

// timedPull times one pullComponent and checks its effect: the checkout's
// HEAD is head and, when key is given, the loadLanguage unit with that
// key reads value in the index. A failed check is kept in p.
func timedPull(ctx context.Context, in *instance, c index.Component, user *index.User, head plumbing.Hash, key, value string, p *pullResult) (time.Duration, error) {
	start := time.Now()
	err := pullComponent(ctx, in.svc, c, user)
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("%s: %w", p.Name, err)
	}
	st, err := in.svc.RepositoryStatus(ctx, c)
	if err != nil {
		return d, err
	}
	if st.LocalCommit.Revision != head.String() {
		p.Failures = append(p.Failures, fmt.Sprintf("HEAD %.12s after the pull, upstream %.12s", st.LocalCommit.Revision, head))
	}
	if key == "" {
		return d, nil
	}
	raw, err := in.store.raw(true)
	if err != nil {
		return d, err
	}
	defer raw.Close()
	var got string
	err = raw.QueryRowContext(ctx, `SELECT u.target FROM units u JOIN translations t ON t.id = u.translation_id
		WHERE t.component_id = ? AND t.language_code = ? AND u.context = ?`, c.ID, loadLanguage, key).Scan(&got)
	if err != nil {
		return d, fmt.Errorf("read %s back: %w", key, err)
	}
	if got != value {
		p.Failures = append(p.Failures, fmt.Sprintf("%s/%s reads %q after the pull, upstream %q", loadLanguage, key, got, value))
	}
	return d, nil
}

// fetchReset is the pull ceiling: a go-git fetch and, when it brought
// something, a hard reset to the fetched branch, timed, then checked
// against head.
func fetchReset(ctx context.Context, r *git.Repository, head plumbing.Hash, p *pullResult) (time.Duration, error) {
	start := time.Now()
	err := r.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin"})
	switch {
	case errors.Is(err, git.NoErrAlreadyUpToDate):
	case err != nil:
		return 0, fmt.Errorf("ceiling fetch: %w", err)
	default:
		ref, err := r.Reference(plumbing.NewRemoteReferenceName("origin", "main"), true)
		if err != nil {
			return 0, err
		}
		wt, err := r.Worktree()
		if err != nil {
			return 0, err
		}
		if err := wt.Reset(&git.ResetOptions{Commit: ref.Hash(), Mode: git.HardReset}); err != nil {
			return 0, fmt.Errorf("ceiling reset: %w", err)
		}
	}
	d := time.Since(start)
	if h, err := r.Head(); err != nil || h.Hash() != head {
		p.CeilingChecked = false
	}
	return d, nil
}

// upstreamEdit commits, in the upstream clone r, a change of the first
// string of the JSON file at path to value, pushes it, and returns the
// key changed and the new head.
func upstreamEdit(r *git.Repository, path, value string) (string, plumbing.Hash, error) {
	wt, err := r.Worktree()
	if err != nil {
		return "", plumbing.ZeroHash, err
	}
	if err := wt.Pull(&git.PullOptions{RemoteName: "origin"}); err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return "", plumbing.ZeroHash, err
	}
	full := filepath.Join(wt.Filesystem.Root(), path)
	data, err := os.ReadFile(full)
	if err != nil {
		return "", plumbing.ZeroHash, err
	}
	key, data, err := editFirstString(data, value)
	if err != nil {
		return "", plumbing.ZeroHash, err
	}
	if err := os.WriteFile(full, data, 0o644); err != nil {
		return "", plumbing.ZeroHash, err
	}
	if _, err := wt.Add(path); err != nil {
		return "", plumbing.ZeroHash, err
	}
	sig := &object.Signature{Name: "Upstream Developer", Email: "dev@upstream.invalid", When: time.Now()}
	h, err := wt.Commit("Change one string upstream", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		return "", plumbing.ZeroHash, err
	}
	if err := r.Push(&git.PushOptions{RemoteName: "origin"}); err != nil {
		return "", plumbing.ZeroHash, err
	}
	return key, h, nil
}

// editFirstString returns the JSON translation file data with its first
// editable string set to value, and that string's key.
func editFirstString(data []byte, value string) (string, []byte, error) {
	f, err := jsonfmt.Decode(bytes.NewReader(data))
	if err != nil {
		return "", nil, err
	}
	key := ""
	for _, u := range f.Units() {
		if f.Editable(u.Context) {
			key = u.Context
			break
		}
	}
	if key == "" {
		return "", nil, errors.New("no editable string")
	}
	var buf bytes.Buffer
	if err := f.Encode(&buf, []formats.Edit{{Context: key, Target: []string{value}}}); err != nil {
		return "", nil, err
	}
	return key, buf.Bytes(), nil
}

// headOf is the main branch of the repository at dir.
func headOf(dir string) (plumbing.Hash, error) {
	r, err := git.PlainOpen(dir)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	ref, err := r.Reference(plumbing.NewBranchReferenceName("main"), true)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%s: %w", dir, err)
	}
	return ref.Hash(), nil
}

func treeOf(r *git.Repository, h plumbing.Hash) (*object.Tree, error) {
	cm, err := r.CommitObject(h)
	if err != nil {
		return nil, err
	}
	return cm.Tree()
}

// fileAt is the content of path in t; nil when path is "" (a file the
// tree lacks, as object.DiffTree names it).
func fileAt(t *object.Tree, path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	f, err := t.File(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s, err := f.Contents()
	return []byte(s), err
}

// jsonValues maps each key of a JSON translation file to its first
// target form; nil data is a file with no key.
func jsonValues(data []byte) (map[string]string, error) {
	out := map[string]string{}
	if data == nil {
		return out, nil
	}
	f, err := jsonfmt.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	for _, u := range f.Units() {
		out[u.Context] = strings.Join(u.Target, "\x1e")
	}
	return out, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return quantile(s, 0.5)
}

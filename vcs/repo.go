package vcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// remoteName is the only remote this package uses.
const remoteName = "origin"

// Repo is one git working tree with at most one remote, "origin", and one
// checked-out branch.
//
// A Repo is safe for concurrent use: its methods are serialized by a mutex.
// Dir, Branch and URL are fixed when the Repo is made.
// Two Repo values for the same directory, or other programs working in it,
// are not coordinated; give each directory to one Repo.
type Repo struct {
	// mu guards repo, auth, sizes, objects, trees, and the working tree and
	// .git directory on disk.
	mu   sync.Mutex
	repo *git.Repository
	auth *Auth
	// objects writes Commit's objects; nil until the first.
	objects *objectWriter
	// trees are trees read or written lately (tree.go, treeCacheSize):
	// each commit reads again the trees the one before it wrote.
	trees map[plumbing.Hash]*object.Tree
	// sizes caches blob sizes for Files: those of its last result.
	sizes map[plumbing.Hash]int64
	// timeouts bound each fetch, push and listing of the remote.
	timeouts Timeouts
	// guard judges their connections; nil means none.
	guard Guard

	dir    string // absolute path of the working tree
	branch string // checked-out branch, short name; "" if HEAD is detached
	url    string // URL of origin; "" if there is none
}

// Clone clones the branch o.Branch (the remote's default branch if "") of
// o.URL into o.Dir and checks it out, unless o.NoCheckout. Only that branch is fetched, without
// tags. o.Dir must be absent or empty (else ErrDirNotEmpty); its parent is
// created if needed. The clone is made in a temporary sibling directory and
// renamed into place, so a failed or cancelled clone leaves no partial
// checkout at o.Dir. o.Timeouts bound the clone.
//
// Errors wrap ErrMissingURL, ErrMissingDir, ErrInvalidURL, ErrAuthRequired,
// ErrRemoteNotFound, ErrBranchNotFound, ErrStalled, ErrTimeout, or the
// context's error.
func Clone(ctx context.Context, o CloneOptions) (*Repo, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	empty, err := isEmptyDir(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("clone %s: %w", redactURL(o.URL), err)
	}
	if !empty {
		return nil, fmt.Errorf("clone %s into %s: %w", redactURL(o.URL), o.Dir, ErrDirNotEmpty)
	}
	return cloneInto(ctx, o)
}

// cloneInto clones into a temporary sibling of o.Dir, then replaces o.Dir
// (absent, empty, or a checkout to discard) with it.
func cloneInto(ctx context.Context, o CloneOptions) (*Repo, error) {
	wctx := ctx // the watched context, once the clone starts
	fail := func(err error) (*Repo, error) {
		return nil, remoteError(wctx, "clone", o.URL, o.Auth, err)
	}
	parent := filepath.Dir(o.Dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fail(err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(o.Dir)+".clone-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed

	gctx, auth, err := remoteSetup(ctx, o.Auth, o.Guard, o.URL)
	if err != nil {
		return fail(err)
	}
	co := &git.CloneOptions{
		URL:          o.URL,
		Auth:         auth,
		RemoteName:   remoteName,
		SingleBranch: true,
		Tags:         git.NoTags,
		NoCheckout:   o.NoCheckout,
	}
	if o.Branch != "" {
		co.ReferenceName = plumbing.NewBranchReferenceName(o.Branch)
	}
	// The watch forwards o.Progress; go-git would ask the remote for no
	// progress messages without a writer.
	w := watchRemote(gctx, o.Timeouts, packDir(tmp), o.Progress)
	defer w.stop()
	wctx, co.Progress = w.ctx, w
	if _, err := git.PlainCloneContext(w.ctx, tmp, false, co); err != nil {
		return fail(err)
	}
	if err := os.RemoveAll(o.Dir); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, o.Dir); err != nil {
		return fail(err)
	}
	r, err := open(o.Dir)
	if err != nil {
		return fail(err)
	}
	if err := r.trackBranch(); err != nil {
		return fail(err)
	}
	r.auth, r.timeouts, r.guard = o.Auth, o.Timeouts, o.Guard
	return r, nil
}

// trackBranch makes origin's fetch refspec name the checked-out branch and
// sets refs/remotes/origin/<branch> to HEAD. go-git's single-branch clone of
// the remote's default branch instead records "+HEAD:refs/remotes/origin/HEAD",
// which would follow the remote's HEAD if it were moved to another branch.
func (r *Repo) trackBranch() error {
	if r.branch == "" {
		return ErrDetachedHead
	}
	cfg, err := r.repo.Config()
	if err != nil {
		return err
	}
	rem, ok := cfg.Remotes[remoteName]
	if !ok {
		return ErrNoRemote
	}
	rem.Fetch = []config.RefSpec{fetchRefSpec(r.branch)}
	if err := r.repo.SetConfig(cfg); err != nil {
		return err
	}
	h, err := r.head()
	if err != nil {
		return err
	}
	if err := r.repo.Storer.SetReference(plumbing.NewHashReference(
		plumbing.NewRemoteReferenceName(remoteName, r.branch), h)); err != nil {
		return err
	}
	if err := r.markSynced(h); err != nil {
		return err
	}
	err = r.repo.Storer.RemoveReference(plumbing.NewRemoteReferenceName(remoteName, "HEAD"))
	if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return err
	}
	return nil
}

// Open opens the existing checkout at dir. It returns an error wrapping
// ErrNotCheckout if dir is not a non-bare git repository. The Repo has no
// credentials; see SetAuth.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	r, err := open(abs)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	return r, nil
}

func open(dir string) (*Repo, error) {
	repo, err := git.PlainOpen(dir)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, ErrNotCheckout
	}
	if err != nil {
		return nil, err
	}
	if _, err := repo.Worktree(); errors.Is(err, git.ErrIsBareRepository) {
		return nil, fmt.Errorf("%w: bare repository", ErrNotCheckout)
	} else if err != nil {
		return nil, err
	}
	r := &Repo{repo: repo, dir: dir}
	head, err := repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	if head.Type() == plumbing.SymbolicReference && head.Target().IsBranch() {
		r.branch = head.Target().Short()
	}
	if rem, err := repo.Remote(remoteName); err == nil && len(rem.Config().URLs) > 0 {
		r.url = rem.Config().URLs[0]
	} else if err != nil && !errors.Is(err, git.ErrRemoteNotFound) {
		return nil, err
	}
	if err := r.repairOnce(); err != nil {
		return nil, err
	}
	if err := r.checkLost(); err != nil {
		return nil, err
	}
	return r, nil
}

// OpenOrClone reuses o.Dir if it is a checkout of o.URL (and of o.Branch,
// when given), and clones otherwise. When o.Dir holds a checkout of another
// URL or branch, it is replaced by a fresh clone: commits there that were
// not pushed are lost, which is acceptable because Tolk can write pending
// edits again. A directory that is neither empty nor a checkout is never
// deleted; that is an error wrapping ErrDirNotEmpty. A reused checkout is
// not pulled; call Pull.
func OpenOrClone(ctx context.Context, o CloneOptions) (*Repo, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	r, err := open(o.Dir)
	switch {
	case err == nil:
		if sameURL(r.url, o.URL) && (o.Branch == "" || o.Branch == r.branch) {
			r.auth, r.timeouts, r.guard = o.Auth, o.Timeouts, o.Guard
			return r, nil
		}
		return cloneInto(ctx, o)
	case errors.Is(err, ErrNotCheckout):
		empty, err := isEmptyDir(o.Dir)
		if err != nil {
			return nil, fmt.Errorf("clone %s: %w", redactURL(o.URL), err)
		}
		if !empty {
			return nil, fmt.Errorf("clone %s into %s: %w", redactURL(o.URL), o.Dir, ErrDirNotEmpty)
		}
		return cloneInto(ctx, o)
	default:
		return nil, fmt.Errorf("open %s: %w", o.Dir, err)
	}
}

// Reclone clones o.URL afresh into o.Dir, replacing the checkout there,
// as OpenOrClone replaces a checkout of another URL: for a checkout that
// lost objects (ErrObjectsLost). Its commits that were not pushed are
// lost with it. It returns the new Repo and the commit the old
// checkout's branch named ("" when none could be read), so the caller
// can tell whether the branch is where it was. Errors are Clone's.
func Reclone(ctx context.Context, o CloneOptions) (*Repo, string, error) {
	if err := o.Validate(); err != nil {
		return nil, "", err
	}
	var previous string
	if old, err := git.PlainOpen(o.Dir); err == nil {
		// References only: the objects may be gone.
		if ref, err := old.Reference(plumbing.HEAD, true); err == nil {
			previous = ref.Hash().String()
		}
	}
	r, err := cloneInto(ctx, o)
	return r, previous, err
}

// InitLocal opens the repository at dir, creating it first if needed, for a
// component whose files Tolk owns (vcs "local"). A new repository has the
// branch "main" and an initial empty commit, so that HEAD exists. It has no
// remote: Pull and Push return ErrNoRemote. Calling InitLocal again opens the
// same repository (and adds the initial commit if an earlier call was
// interrupted before making it).
func InitLocal(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	repo, err := git.PlainOpen(abs)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, fmt.Errorf("init %s: %w", dir, err)
		}
		repo, err = git.PlainInitWithOptions(abs, &git.PlainInitOptions{
			InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
		})
	}
	if err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	if _, err := repo.Head(); errors.Is(err, plumbing.ErrReferenceNotFound) {
		wt, err := repo.Worktree()
		if err != nil {
			return nil, fmt.Errorf("init %s: %w", dir, err)
		}
		sig := &object.Signature{Name: "Tolk", Email: "tolk@localhost", When: time.Now()}
		_, err = wt.Commit("Initialize repository\n", &git.CommitOptions{
			Author: sig, Committer: sig, AllowEmptyCommits: true,
		})
		if err != nil {
			return nil, fmt.Errorf("init %s: initial commit: %w", dir, err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	r, err := open(abs)
	if err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	return r, nil
}

// SetAuth sets the credentials used by Pull and Push; nil means none.
func (r *Repo) SetAuth(a *Auth) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.auth = a
}

// SetTimeouts sets the bounds of Pull, Fetch, Push and the listing of
// the remote; the zero value means the defaults.
func (r *Repo) SetTimeouts(t Timeouts) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timeouts = t
}

// SetGuard sets the guard of the connections of Pull, Fetch, Push and
// the listing of the remote (see Guard); nil means none.
func (r *Repo) SetGuard(g Guard) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.guard = g
}

// Dir returns the absolute path of the working tree.
func (r *Repo) Dir() string { return r.dir }

// Branch returns the short name of the checked-out branch, or "" if HEAD is
// detached.
func (r *Repo) Branch() string { return r.branch }

// URL returns the URL of the remote "origin" as configured, credentials
// included, or "" for a repository without a remote. Use it for
// comparisons, not in messages.
func (r *Repo) URL() string { return r.url }

// Head returns the hex hash of the commit HEAD points to.
func (r *Repo) Head() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.head()
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

func (r *Repo) head() (plumbing.Hash, error) {
	ref, err := r.repo.Head()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read HEAD: %w", err)
	}
	return ref.Hash(), nil
}

// checkedOut reports whether the working tree has been checked out: a
// clone made with NoCheckout has no index until ensureCheckout writes one,
// and every checkout go-git or git makes writes one. r.mu is held.
func (r *Repo) checkedOut() (bool, error) {
	_, err := os.Stat(filepath.Join(r.dir, git.GitDirName, "index"))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// ensureCheckout checks HEAD out into a working tree left empty by
// NoCheckout: it writes the index, and no file (checkout.go); r.mu is
// held.
func (r *Repo) ensureCheckout() error {
	ok, err := r.checkedOut()
	if err != nil || ok {
		return err
	}
	h, err := r.head()
	if err != nil {
		return err
	}
	return r.checkoutIndex(h)
}

// isEmptyDir reports whether dir is absent or an empty directory.
func isEmptyDir(dir string) (bool, error) {
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	if err == io.EOF {
		return true, nil
	}
	return false, err
}

// sameURL reports whether two remote URLs name the same repository: file
// URLs and plain paths compare by cleaned path, others by their endpoint
// without a trailing slash.
func sameURL(a, b string) bool {
	return normalizeURL(a) == normalizeURL(b)
}

func normalizeURL(s string) string {
	ep, err := transport.NewEndpoint(s)
	if err != nil {
		return s
	}
	if ep.Protocol == "file" {
		return "file://" + filepath.Clean(ep.Path)
	}
	return strings.TrimSuffix(ep.String(), "/")
}

// fetchRefSpec is the refspec that keeps refs/remotes/origin/<branch> up to
// date with the remote branch.
func fetchRefSpec(branch string) config.RefSpec {
	return config.RefSpec(fmt.Sprintf("+refs/heads/%s:refs/remotes/%s/%s", branch, remoteName, branch))
}

// RemoveStaleClones removes from dir the temporary directories that
// Clone (".<name>.clone-*") and CreateBare (".<name>.create-*") make
// beside their target and a crash left behind, and returns their paths.
// Only call it while no clone into dir can be running: at start, with
// the directory owned by this process.
func RemoveStaleClones(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, ".") ||
			!(strings.Contains(name, ".clone-") || strings.Contains(name, ".create-")) {
			continue
		}
		p := filepath.Join(dir, name)
		if err := os.RemoveAll(p); err != nil {
			return removed, err
		}
		removed = append(removed, p)
	}
	return removed, nil
}

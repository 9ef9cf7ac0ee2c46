package vcs

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// Errors returned by this package, usually wrapped; test them with errors.Is.
var (
	// ErrMissingURL is returned by CloneOptions.Validate when URL is empty.
	ErrMissingURL = errors.New("vcs: missing remote URL")
	// ErrMissingDir is returned by CloneOptions.Validate when Dir is empty.
	ErrMissingDir = errors.New("vcs: missing checkout directory")
	// ErrInvalidURL is returned when a remote URL cannot be parsed or uses an
	// unsupported scheme.
	ErrInvalidURL = errors.New("vcs: invalid remote URL")
	// ErrInvalidBranch is returned by CloneOptions.Validate for a branch
	// name git would refuse, or one given as a full reference ("refs/...").
	ErrInvalidBranch = errors.New("vcs: invalid branch name")
	// ErrDirNotEmpty is returned by Clone when Dir exists and is not empty.
	ErrDirNotEmpty = errors.New("vcs: checkout directory is not empty")
	// ErrNotCheckout is returned by Open and OpenOrClone when the directory
	// is not a git working tree (absent, bare, or not a repository).
	ErrNotCheckout = errors.New("vcs: not a git checkout")
	// ErrRemoteNotFound is returned when the remote repository does not exist.
	ErrRemoteNotFound = errors.New("vcs: remote repository not found")
	// ErrBranchNotFound is returned when the branch does not exist on the
	// remote.
	ErrBranchNotFound = errors.New("vcs: branch not found on remote")
	// ErrNoRemote is returned by Pull and Push on a repository without an
	// "origin" remote, such as one made by InitLocal.
	ErrNoRemote = errors.New("vcs: repository has no remote")
	// ErrDetachedHead is returned when HEAD is not on a branch.
	ErrDetachedHead = errors.New("vcs: HEAD is not on a branch")
	// ErrNotExist is returned when a path is not a file of the HEAD tree.
	ErrNotExist = errors.New("vcs: file not in tree")
	// ErrTooManyEntries is returned by Files when a listing would read
	// more tree entries than FilesOptions.MaxEntries allows.
	ErrTooManyEntries = errors.New("vcs: too many tree entries")
	// ErrInvalidPath is returned by Commit for a path that is empty, absolute,
	// not clean, leaves the working tree, names .git, or goes through a
	// symbolic link.
	ErrInvalidPath = errors.New("vcs: invalid file path")
	// ErrMissingMessage is returned by CommitOptions.Validate for an empty
	// message.
	ErrMissingMessage = errors.New("vcs: missing commit message")
	// ErrMissingAuthor is returned by CommitOptions.Validate when the author
	// has no name or no email.
	ErrMissingAuthor = errors.New("vcs: missing commit author")
	// ErrNothingToCommit is returned by Commit when the files given leave the
	// tree unchanged.
	ErrNothingToCommit = errors.New("vcs: nothing to commit")
	// ErrNonFastForward is returned by Push when the remote branch has
	// commits that HEAD does not contain; Pull (and later a rebase) first.
	ErrNonFastForward = errors.New("vcs: non-fast-forward push rejected")
	// ErrDiverged is returned by Pull when HEAD has local commits that are
	// not on the remote branch and the remote branch has moved as well. The
	// checkout is left untouched. Rebasing is not implemented yet.
	ErrDiverged = errors.New("vcs: local and remote branches have diverged")
	// ErrAuthRequired is returned when the remote asks for credentials or
	// refuses the ones given (go-git's transport.ErrAuthenticationRequired
	// and transport.ErrAuthorizationFailed, which stay in the chain too).
	ErrAuthRequired = errors.New("vcs: authentication required")
	// ErrStalled is returned when a network operation received nothing
	// for the stall timeout (Timeouts.Stall).
	ErrStalled = errors.New("vcs: remote stalled")
	// ErrTimeout is returned when a network operation did not finish in
	// the total timeout (Timeouts.Total).
	ErrTimeout = errors.New("vcs: remote operation timed out")
	// ErrObjectsLost is returned by Open and OpenOrClone for a checkout
	// whose branch's history can no longer be read: its commit, or one
	// of the objects it descends from, went with a damaged pack
	// (CheckPacks). Clone it again (Reclone).
	ErrObjectsLost = errors.New("vcs: objects of the branch's history lost")
)

// redactedError carries a message with secrets removed while keeping the
// original error for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// remoteError wraps err from a network operation op on rawURL: it maps
// go-git's errors to this package's sentinels, names the URL without its
// credentials, and removes secrets from the whole message.
// When ctx has ended, the context's error is in the chain even if go-git
// lost it (it formats some errors with %v).
func remoteError(ctx context.Context, op, rawURL string, auth *Auth, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, ErrStalled) || errors.Is(cause, ErrTimeout) {
		// The watch ended it, not the caller: go-git's error is only
		// the cancellation, which callers must not take for their own.
		return redact(fmt.Errorf("%s %s: %w", op, redactURL(rawURL), cause), secrets(rawURL, auth)...)
	}
	var kind error
	var nomatch git.NoMatchingRefSpecError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
	case ctx.Err() != nil:
		kind = ctx.Err()
	case errors.Is(err, transport.ErrAuthenticationRequired),
		errors.Is(err, transport.ErrAuthorizationFailed):
		kind = ErrAuthRequired
	case errors.Is(err, transport.ErrRepositoryNotFound):
		kind = ErrRemoteNotFound
	case errors.As(err, &nomatch), errors.Is(err, plumbing.ErrReferenceNotFound):
		kind = ErrBranchNotFound
	case errors.Is(err, git.ErrForceNeeded),
		strings.Contains(err.Error(), "non-fast-forward"):
		// go-git reports a rejected update with an unexported
		// fmt.Errorf("non-fast-forward update: %s"), and the server's
		// report status says "non-fast-forward" too; the text is all we have.
		kind = ErrNonFastForward
	}
	var wrapped error
	if kind != nil {
		wrapped = fmt.Errorf("%s %s: %w (%w)", op, redactURL(rawURL), kind, err)
	} else {
		wrapped = fmt.Errorf("%s %s: %w", op, redactURL(rawURL), err)
	}
	return redact(wrapped, secrets(rawURL, auth)...)
}

// redact returns err with every secret replaced by "xxxxx" in its message.
func redact(err error, secrets ...string) error {
	msg := err.Error()
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// secrets lists the credentials that must not appear in messages: the
// password of rawURL, its user name too when it is an http(s) URL (tokens
// are often given as the user name there), and auth's password and
// passphrase.
func secrets(rawURL string, auth *Auth) []string {
	var s []string
	if u, err := url.Parse(rawURL); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			s = append(s, p, url.QueryEscape(p), url.PathEscape(p))
		}
		if isHTTP(u.Scheme) {
			s = append(s, u.User.Username())
		}
	}
	if auth != nil {
		s = append(s, auth.Password, auth.SSHKeyPassphrase)
	}
	return s
}

// redactURL returns rawURL without credentials: the password becomes
// "xxxxx", and so does the user name of an http(s) URL. Other forms (plain
// paths, scp-like ssh) are returned unchanged.
func redactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return rawURL
	}
	_, hasPassword := u.User.Password()
	switch {
	case isHTTP(u.Scheme):
		u.User = url.User("xxxxx")
	case hasPassword:
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	default:
		return rawURL
	}
	return u.String()
}

func isHTTP(scheme string) bool {
	return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")
}

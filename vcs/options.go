package vcs

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// CloneOptions describes a remote branch and where to check it out.
type CloneOptions struct {
	// URL of the remote: file://, http://, https://, ssh:// or git:// URLs,
	// scp-like user@host:path, or a plain path (made absolute by Validate).
	URL string
	// Branch to check out; "" means the remote's default branch (the branch
	// its HEAD points to).
	Branch string
	// Dir is the working tree to create or reuse (made absolute by Validate).
	Dir string
	// Auth holds credentials; nil means none.
	Auth *Auth
	// Progress, if not nil, receives the remote's human-readable progress
	// messages during Clone and Pull.
	Progress io.Writer
	// NoCheckout leaves the working tree empty after a clone: everything
	// that reads files reads them from the object store, so writing them
	// out only pays off once Commit needs the working tree, and Commit
	// checks it out then. Pull keeps such a checkout empty.
	NoCheckout bool
	// Timeouts bound the clone, and the fetches and pushes of the Repo
	// returned (see Repo.SetTimeouts).
	Timeouts Timeouts
	// Guard, when set, judges every connection of the clone and of the
	// fetches and pushes of the Repo returned (see Guard, Repo.SetGuard).
	Guard Guard
}

// Validate fills defaults and rejects impossible values: it returns
// ErrMissingURL, ErrMissingDir, ErrInvalidURL or ErrInvalidBranch (wrapped). It makes Dir and
// a plain-path URL absolute.
func (o *CloneOptions) Validate() error {
	if o.URL == "" {
		return ErrMissingURL
	}
	if o.Dir == "" {
		return ErrMissingDir
	}
	ep, err := transport.NewEndpoint(o.URL)
	if err != nil {
		return redact(fmt.Errorf("%w %s: %w", ErrInvalidURL, redactURL(o.URL), err), secrets(o.URL, o.Auth)...)
	}
	switch ep.Protocol {
	case "file":
		if !strings.Contains(o.URL, "://") {
			// A relative path would be resolved against the process's
			// working directory at each fetch; pin it now.
			abs, err := filepath.Abs(o.URL)
			if err != nil {
				return fmt.Errorf("%w %s: %w", ErrInvalidURL, o.URL, err)
			}
			o.URL = abs
		}
	case "http", "https", "ssh", "git":
	default:
		return fmt.Errorf("%w %s: unsupported scheme %q", ErrInvalidURL, redactURL(o.URL), ep.Protocol)
	}
	if strings.HasPrefix(o.Branch, "refs/") || strings.ContainsAny(o.Branch, " ~^:?*[\\") {
		return fmt.Errorf("%w %q", ErrInvalidBranch, o.Branch)
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return fmt.Errorf("vcs: checkout directory %s: %w", o.Dir, err)
	}
	o.Dir = dir
	return nil
}

// Auth holds credentials for a remote. Its String and LogValue methods
// redact the secrets, so it is safe to print or log.
//
// For http(s) URLs, Username and Password (or a token as Password) are sent
// as HTTP basic authentication. For ssh URLs, SSHKey (a PEM private key,
// decrypted with SSHKeyPassphrase if needed) is used when set, else Password
// when set, else the SSH agent; the user is Username, else the URL's user,
// else "git". Host keys are checked against the known_hosts files
// ($SSH_KNOWN_HOSTS, else ~/.ssh/known_hosts).
type Auth struct {
	Username         string
	Password         string
	SSHKey           []byte
	SSHKeyPassphrase string
}

// String returns a description of a without its secrets.
func (a Auth) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "vcs.Auth{Username: %q", a.Username)
	if a.Password != "" {
		b.WriteString(", Password: xxxxx")
	}
	if len(a.SSHKey) > 0 {
		b.WriteString(", SSHKey: xxxxx")
	}
	b.WriteString("}")
	return b.String()
}

// LogValue implements slog.LogValuer, so that logging an Auth never logs
// its secrets.
func (a Auth) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("username", a.Username),
		slog.Bool("password", a.Password != ""),
		slog.Bool("ssh_key", len(a.SSHKey) > 0),
	)
}

// method returns the go-git authentication for rawURL; nil means none.
func (a *Auth) method(rawURL string) (transport.AuthMethod, error) {
	if a == nil {
		return nil, nil
	}
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil {
		return nil, err
	}
	switch ep.Protocol {
	case "http", "https":
		if a.Username == "" && a.Password == "" {
			return nil, nil
		}
		return &githttp.BasicAuth{Username: a.Username, Password: a.Password}, nil
	case "ssh":
		user := a.Username
		if user == "" {
			user = ep.User
		}
		if user == "" {
			user = "git"
		}
		switch {
		case len(a.SSHKey) > 0:
			k, err := gitssh.NewPublicKeys(user, a.SSHKey, a.SSHKeyPassphrase)
			if err != nil {
				return nil, fmt.Errorf("vcs: ssh key: %w", err)
			}
			return k, nil
		case a.Password != "":
			return &gitssh.Password{User: user, Password: a.Password}, nil
		}
	}
	return nil, nil
}

// Signature names the author or committer of a commit.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// CommitOptions describes a commit made by Repo.Commit.
type CommitOptions struct {
	// Files maps slash-separated paths, relative to the root of the working
	// tree, to their new content. Parent directories are created as needed.
	Files map[string][]byte
	// Remove lists slash-separated paths to delete from the working tree
	// and the commit's tree; a path the tree lacks is ignored.
	Remove []string
	// Message is the commit message; it must not be empty.
	Message string
	// Author must have a name and an email; a zero When means now.
	Author Signature
	// Committer defaults to Author; a zero When means Author.When.
	Committer *Signature
}

// Validate fills defaults and rejects impossible values: it returns
// ErrMissingMessage, ErrMissingAuthor or ErrInvalidPath (wrapped).
func (o *CommitOptions) Validate() error {
	if strings.TrimSpace(o.Message) == "" {
		return ErrMissingMessage
	}
	if o.Author.Name == "" || o.Author.Email == "" {
		return ErrMissingAuthor
	}
	if o.Author.When.IsZero() {
		o.Author.When = time.Now()
	}
	if o.Committer == nil {
		c := o.Author
		o.Committer = &c
	}
	if o.Committer.Name == "" || o.Committer.Email == "" {
		return fmt.Errorf("committer: %w", ErrMissingAuthor)
	}
	if o.Committer.When.IsZero() {
		o.Committer.When = o.Author.When
	}
	for p := range o.Files {
		if err := checkPath(p); err != nil {
			return err
		}
	}
	for _, p := range o.Remove {
		if err := checkPath(p); err != nil {
			return err
		}
	}
	return nil
}

// checkPath rejects paths that are empty, absolute, not clean, leave the
// tree, or name a .git directory.
func checkPath(p string) error {
	if p == "" || p == "." || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") {
		return fmt.Errorf("%w: %q", ErrInvalidPath, p)
	}
	for _, elem := range strings.Split(p, "/") {
		switch {
		case elem == "", elem == ".", elem == "..", strings.EqualFold(elem, ".git"):
			return fmt.Errorf("%w: %q", ErrInvalidPath, p)
		}
	}
	return nil
}

package index

import "time"

// RepositoryStatus is the state of a component's repository as the
// reference's repository endpoint reports it
// (../shared/reference/weblate-core.md, "What the reference's own client
// needs").
type RepositoryStatus struct {
	// NeedsCommit: edits are pending that are not committed yet.
	NeedsCommit bool
	// NeedsMerge: the remote branch, as last fetched, has commits the
	// checkout lacks.
	NeedsMerge bool
	// NeedsPush: the checkout has commits the remote branch lacks.
	NeedsPush bool
	// Status is the repository state as `git status` prints it.
	Status string
	// MergeFailure is the text of the last failed merge or rebase, or ""
	// when the last repository operation did not fail.
	MergeFailure string
	// LocalCommit is the checkout's HEAD.
	LocalCommit Commit
	// RemoteCommit is the remote branch as last fetched, or nil for a
	// component without a remote (vcs "local").
	RemoteCommit *Commit
	// Outgoing counts the local commits the remote branch lacks, Missing
	// the remote's commits the checkout lacks.
	Outgoing, Missing int
	// Pending is what the next commit owes the repository.
	Pending Pending
	// Jobs are the component's scheduled jobs, by name; nil when no
	// scheduler runs.
	Jobs []Job
}

// Job is one scheduled job of a component ("commit" or "pull") and how
// its last run went.
type Job struct {
	Name string
	// Running: a run is under way or waiting for its turn; another run
	// of the job is not started meanwhile.
	Running bool
	// LastStart and LastEnd bound the last run; zero before the first
	// run starts, and LastEnd zero while it runs.
	LastStart, LastEnd time.Time
	// LastResult is "ok" or the error that ended the last run; "" before
	// one ended.
	LastResult string
	// NextRun is when the scheduler next looks whether the job is due (a
	// commit is due once the oldest pending edit is older than the
	// component's commit_pending_age), later after failures.
	NextRun time.Time
	// Failures counts the runs that failed in a row; each one doubles
	// the wait before the next run (see sync's scheduler), so a
	// component whose file upstream broke is not retried every minute.
	Failures int
}

// Commit describes one commit of a repository.
type Commit struct {
	Revision       string // full hex hash
	AuthorName     string
	AuthorEmail    string
	AuthorDate     time.Time // in the author's time zone
	CommitterName  string
	CommitterEmail string
	CommitDate     time.Time // in the committer's time zone
	Message        string    // full message
}

// Summary returns the first line of the message.
func (c *Commit) Summary() string {
	for i := 0; i < len(c.Message); i++ {
		if c.Message[i] == '\n' {
			return c.Message[:i]
		}
	}
	return c.Message
}

// Pending is what the next commit of a component owes its repository.
type Pending struct {
	Units   int // edited or added units, in translations with a file
	Removed int // units removed since the last commit
	Files   int // translation files to create or delete
}

// Any reports whether anything waits to be committed.
func (p Pending) Any() bool { return p.Units+p.Removed+p.Files > 0 }

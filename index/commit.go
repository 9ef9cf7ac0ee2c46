package index

// Committed is what one commit of a component's pending edits wrote to
// its repository, for the index to forget: sync builds it after the git
// commit succeeded and the store applies it in one transaction.
type Committed struct {
	ComponentID int64
	// UserID is who asked for the commit; the change "Changes committed"
	// (17) of each translation in Record names them (0: nobody).
	UserID       int64
	Translations []CommittedTranslation
	// Files are the component's pending_files rows done, by path and
	// language (the one file of a String Catalog is every language's).
	Files []PendingFile
	// Head, when not nil, is the head the commit moved the component's
	// branch to, recorded in the same transaction (see GitHead), so that
	// edits are never forgotten while other processes cannot see the
	// commit holding them.
	Head *GitHead
}

// CommittedTranslation is one translation's part of a Committed.
type CommittedTranslation struct {
	TranslationID int64
	// Units are the pending units as written: each stops being pending
	// unless its target changed since (an edit made during the commit
	// stays pending for the next one).
	Units []Unit
	// Removed are the ids of the removed_units rows the file no longer
	// holds.
	Removed []int64
	// Revision, when not empty, is the translation's new revision, as the
	// import computes it from the file's blob, so that the next import
	// skips what Tolk itself wrote.
	Revision string
	// Record says whether a new git commit holds this translation's
	// edits, so that change 17 is recorded; edits found already committed
	// (a commit whose index update was lost) are cleared silently.
	Record bool
}

// CommitResult says what a commit of a component's pending edits did.
type CommitResult struct {
	// Commits are the hashes of the commits made, oldest first.
	Commits []string
	// Translations counts the translations whose pending edits the index
	// forgot, committed now or found already committed.
	Translations int
}

// Repended is what a pull found in the local commits upstream lacks, for
// the index to owe the repository again before the checkout moves onto
// upstream: the next commit then re-applies it on top. Applying it twice
// does nothing more than applying it once.
type Repended struct {
	ComponentID  int64
	Translations []RependedTranslation
	// Files are translation files the local commits added or deleted,
	// owed again as pending_files rows.
	Files []PendingFile
}

// RependedTranslation is one translation's part of a Repended.
type RependedTranslation struct {
	TranslationID int64
	// IDHashes name the units whose committed text upstream lacks: they
	// become pending again.
	IDHashes []int64
	// Removed are the entries the local commits took out of the file,
	// which must stay out (removed_units rows; ID and TranslationID are
	// not read).
	Removed []RemovedUnit
}

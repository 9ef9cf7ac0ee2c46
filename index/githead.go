package index

// GitHead is a component's head commit as the index records it for the
// processes that share it (several Tolk processes on one PostgreSQL,
// each with a checkout of its own): the database is the truth, and a
// process whose checkout's HEAD differs moves it there before a git job
// or a read of its files.
type GitHead struct {
	ComponentID int64
	// Head is the commit the component's branch is at.
	Head string
	// Base is the upstream commit the local commits (those upstream
	// lacks) sit on: a process lacking it fetches first. "" when every
	// commit is local (a component without a remote).
	Base string
	// Objects are the git objects of local commits that the record adds
	// (commits, trees, blobs), which no other process can fetch. A
	// process reading the record gets every object recorded since the
	// last Replace.
	Objects []GitObject
	// Replace drops the objects recorded before (the local commits they
	// belonged to were replaced, or upstream now has them).
	Replace bool
}

// GitObject is one git object as git encodes it: its type ("commit",
// "tree", "blob" or "tag") and content without the header; Hash names
// it.
type GitObject struct {
	Hash string
	Type string
	Data []byte
}
